package plan

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// Precision is the numeric format a candidate serves the model in. The
// cost package describes a model by the bytes of one weight, one KV-cache
// element and one activation (cost.ModelSpec.WeightBytes, KVBytes,
// ActBytes) and a GPU by its dense peak per data type; Apply derives the
// deployment of a precision from those fields. When the cost package gains
// named precisions, Apply is where they plug in.
type Precision uint8

// Precisions.
const (
	// BF16 serves the unquantized checkpoint: 2-byte weights, KV cache and
	// activations, at the GPU's BF16 peak. It needs a checkpoint of at
	// least 16 bits (ModelSpec.WeightBytes ≥ 2).
	BF16 Precision = iota
	// FP8 is vLLM's `--quantization fp8`. On a GPU with FP8 tensor cores
	// (GPUSpec.PeakFLOPS.FP8 > 0: H100, H200, B200, L40S, ...) weights and
	// GEMM activations are FP8 (W8A8, every FLOP at the FP8 peak) and the
	// KV cache is FP8 too (`--kv-cache-dtype fp8`): 1-byte weights and KV.
	// On a GPU without them (A100) vLLM runs FP8 weights through its
	// weight-only kernels: 1-byte weights, BF16 compute and KV cache.
	// All-reduces stay BF16 (ActBytes 2) either way.
	FP8
)

var precisionNames = [...]string{"bf16", "fp8"}

// String returns "bf16" or "fp8".
func (p Precision) String() string {
	if int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return fmt.Sprintf("Precision(%d)", uint8(p))
}

// MarshalText writes String.
func (p Precision) MarshalText() ([]byte, error) {
	if int(p) >= len(precisionNames) {
		return nil, fmt.Errorf("plan: unknown precision %d", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads "bf16" or "fp8".
func (p *Precision) UnmarshalText(b []byte) error {
	q, err := ParsePrecision(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ParsePrecision parses "bf16" or "fp8".
func ParsePrecision(s string) (Precision, error) {
	for i, n := range precisionNames {
		if n == s {
			return Precision(i), nil
		}
	}
	return 0, fmt.Errorf("%w: precision %q must be bf16 or fp8", ErrInvalid, s)
}

// Apply returns d served in precision p, with the `vllm serve` flags that
// select it. It fails when the precision does not apply to the model: BF16
// from a checkpoint stored in fewer than 2 bytes a weight, FP8 from one
// stored in fewer than 1.
func (p Precision) Apply(d cost.Deployment) (cost.Deployment, []string, error) {
	m := &d.Model
	switch p {
	case BF16:
		if m.WeightBytes < 2 {
			return d, nil, fmt.Errorf("bf16 needs a checkpoint of 16 bits or more; model %q stores %v-byte weights", m.Name, m.WeightBytes)
		}
		m.WeightBytes, m.KVBytes, m.ActBytes = 2, 2, 2
		return d, nil, nil
	case FP8:
		if m.WeightBytes < 1 {
			return d, nil, fmt.Errorf("fp8 needs a checkpoint of 8 bits or more; model %q stores %v-byte weights", m.Name, m.WeightBytes)
		}
		var args []string
		if m.WeightBytes > 1 {
			args = append(args, "--quantization", "fp8")
		}
		m.WeightBytes, m.ActBytes = 1, 2
		if fp8 := d.GPU.PeakFLOPS.FP8; fp8 > 0 {
			d.PeakFLOPS = fp8
			m.KVBytes = 1
			args = append(args, "--kv-cache-dtype", "fp8")
		} else {
			m.KVBytes = 2
		}
		return d, args, nil
	default:
		return d, nil, fmt.Errorf("%w: unknown precision %d", ErrInvalid, uint8(p))
	}
}
