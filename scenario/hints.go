package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/nearest"
)

// maxHintTP is the largest tensor-parallel degree a "fits at TP >= N" hint
// tries: eight nodes of eight GPUs.
const maxHintTP = 64

// withFitHint adds to an engine validation error that the model does not
// fit, or that its KV pool is short of one step or of max_model_len, the
// smallest power-of-two tensor-parallel degree above the configured one at
// which the same engine fits with room for both, or says that none up to
// maxHintTP does. Other errors are returned unchanged.
func withFitHint(c batching.Config, err error) error {
	fe := fielderr.Of(err)
	if !errors.Is(err, cost.ErrDoesNotFit) || fe == nil {
		return err
	}
	if c.Deployment.KVCacheMemory > 0 || c.KVBlocks > 0 {
		return err // a fixed pool: more ranks do not change it
	}
	need := max(c.MaxModelLen, c.MaxNumBatchedTokens, 1)
	for tp := 2; tp <= maxHintTP; tp *= 2 {
		if tp <= c.Deployment.TP {
			continue
		}
		d := c.Deployment
		d.TP = tp
		if d.Validate() != nil {
			continue // the shape does not split tp ways
		}
		m, merr := d.Memory(c.BlockSize)
		if merr == nil && m.KVTokens >= need {
			fe.Fix = joinFix(fe.Fix, fmt.Sprintf("it fits at --tensor-parallel-size >= %d (%d KV tokens per replica at TP %d)", tp, m.KVTokens, tp))
			return err
		}
	}
	fe.Fix = joinFix(fe.Fix, fmt.Sprintf("it fits at no --tensor-parallel-size up to %d on %s: choose a larger GPU, a quantized checkpoint (--quantization fp8) or a smaller --max-model-len", maxHintTP, c.Deployment.GPU.Name))
	return err
}

// joinFix appends a hint to what a field error says to do.
func joinFix(fix, hint string) string {
	if fix == "" {
		return hint
	}
	return fix + "; " + hint
}

// gpuKey is a GPU name as the catalog spells it: lower-case, without an
// "NVIDIA " or "AMD " prefix, spaces and underscores as dashes ("NVIDIA
// H100_SXM" is h100-sxm, "RTX 4090" rtx-4090, then rtx4090).
func gpuKey(name string) string {
	k := strings.ToLower(strings.TrimSpace(name))
	for _, p := range []string{"nvidia ", "nvidia-", "amd ", "amd-"} {
		k = strings.TrimPrefix(k, p)
	}
	k = strings.NewReplacer(" ", "-", "_", "-").Replace(k)
	if _, err := cost.GPU(k); err != nil {
		if j := strings.ReplaceAll(k, "-", ""); j != k {
			if _, err := cost.GPU(j); err == nil {
				return j
			}
		}
	}
	return k
}

// nearGPUs returns the catalog GPUs a name is the prefix of a variant of
// ("h100" → h100-pcie, h100-sxm), else those within edit distance 1 of
// it.
func nearGPUs(key string) []string {
	var prefix, close []string
	for _, n := range cost.GPUNames() {
		switch {
		case len(key) >= 2 && strings.HasPrefix(n, key):
			prefix = append(prefix, n)
		case nearest.EditDistance(key, n) <= 1:
			close = append(close, n)
		}
	}
	if len(prefix) > 0 {
		return prefix
	}
	return close
}

// UseCheckpoint makes checkpoint the server's model when Server.Model
// names no model servesim can load and checkpoint does: vLLM's client
// (`vllm bench serve --model NAME --tokenizer CHECKPOINT`) sends --model
// as the API's model name, which may be a served name (`vllm serve
// CHECKPOINT --served-model-name NAME`), and reads the checkpoint
// --tokenizer names. It reports whether it switched; a model that loads,
// or a checkpoint that does not either, is left as it is (and Model then
// reports the model's error).
func (s *Scenario) UseCheckpoint(checkpoint string) bool {
	if checkpoint == "" || checkpoint == s.Server.Model || s.Server.Kind == KindFCFS {
		return false
	}
	if _, _, err := s.baseModel(); err == nil {
		return false
	}
	name := s.Server.Model
	s.Server.Model = checkpoint
	if _, _, err := s.baseModel(); err != nil {
		s.Server.Model = name
		return false
	}
	return true
}
