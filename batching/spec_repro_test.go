package batching_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/servesim/servesim/specdecode"
)

// TestSpecReproducesVLLMEagle predicts vLLM's measured EAGLE TPOT of
// vllm-project/vllm#20780 (Llama-3.1-8B-Instruct on one H100, MT-Bench,
// greedy, batch 1, vLLM v1; EAGLE-1 head yuhuili/EAGLE-LLaMA3.1-Instruct-8B)
// from the cost model's H100 profile and the acceptance lengths measured
// in the same runs (specdecode.DefaultTable): nothing is fitted to these
// TPOTs. Plain decoding, TPOT at every k from 2 to 7, and the speed-up
// must each be within 15%. MT-Bench's lengths are taken as 128 prompt and
// 256 output tokens (vLLM's spec_decode example's default output length);
// at batch 1 TPOT hardly depends on them.
func TestSpecReproducesVLLMEagle(t *testing.T) {
	t.Parallel()
	tpot := func(sc *specdecode.Config) float64 { return batch1TPOT(t, sc) }
	const vanilla = 7.07e-3 // measured, s
	base := tpot(nil)
	assert.InEpsilon(t, vanilla, base, 0.15, "plain decoding TPOT")
	measured := map[int]float64{2: 4.37e-3, 3: 4.29e-3, 4: 4.48e-3, 5: 4.71e-3, 6: 4.94e-3, 7: 5.2e-3}
	for k := 2; k <= 7; k++ {
		got := tpot(&specdecode.Config{Method: specdecode.Eagle, Model: "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
			NumSpeculativeTokens: k, AcceptanceDataset: "mt-bench"})
		assert.InEpsilon(t, measured[k], got, 0.15, "EAGLE k=%d TPOT", k)
		assert.InEpsilon(t, vanilla/measured[k], base/got, 0.15, "EAGLE k=%d speed-up", k)
	}
}
