package calibrate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCrossGPU(t *testing.T) {
	t.Parallel()
	run := func(id, gpu string, tput float64) Point {
		return Point{ID: id, Model: "Qwen/Qwen3-14B", GPU: gpu, TP: 1, Precision: "bf16", Input: 2000, Output: 100, NumPrompts: 500,
			BackendVersion: "0.11.0", Measured: Metrics{OutputThroughput: tput}}
	}
	// H100 SXM over A100 80GB: bandwidth 3.35/2.039 = 1.64, BF16 989/312 = 3.17.
	pairs := CrossGPU([]Point{run("a100", "a100-80gb", 100), run("h100-ok", "h100-sxm", 170), run("a100-other", "a100-80gb", 100)})
	require.Len(t, pairs, 2)
	assert.InDelta(t, 3.35e12/2.039e12, pairs[0].Floor, 0.01)
	assert.InDelta(t, 1.70, pairs[0].Speedup, 1e-9)
	assert.False(t, pairs[0].Flagged)
	slow := CrossGPU([]Point{run("a100", "a100-80gb", 100), run("h100-slow", "h100-sxm", 120)})
	require.Len(t, slow, 1)
	assert.True(t, slow[0].Flagged, slow[0].String())
	// Another setup, another version, or GPUs of which neither dominates
	// (L40S: more BF16 FLOP/s than the A100, less bandwidth and memory) pair
	// with nothing.
	other := run("h100-other", "h100-sxm", 50)
	other.Input = 4000
	newer := run("h100-newer", "h100-sxm", 50)
	newer.BackendVersion = "0.19.0"
	assert.Empty(t, CrossGPU([]Point{run("a100", "a100-80gb", 100), other, newer}))
	assert.Empty(t, CrossGPU([]Point{run("a100", "a100-80gb", 100), run("l40s", "l40s", 30)}))
}

// TestCrossGPUPublished pins what the check finds in gpustack's runs,
// which measured the same bursts on one A100 and one H100 with one vLLM:
// the H100's Qwen3-32B runs all, and its 14B 128x4 burst, fall below the
// 1.64x the H100's bandwidth alone guarantees (docs/fidelity.md).
func TestCrossGPUPublished(t *testing.T) {
	t.Parallel()
	var flagged []string
	pairs := CrossGPU(publicVLLM(t))
	for _, p := range pairs {
		t.Log(p)
		if p.Flagged {
			flagged = append(flagged, p.Fast.ID)
		}
	}
	assert.Len(t, pairs, 10)
	assert.Equal(t, []string{"gpustack-vllm-h100-sxm-qwen3-14b-random128x4", "gpustack-vllm-h100-sxm-qwen3-32b-random128x4",
		"gpustack-vllm-h100-sxm-qwen3-32b-random2000x100", "gpustack-vllm-h100-sxm-qwen3-32b-random32000x100",
		"gpustack-vllm-h100-sxm-qwen3-32b-random4000x200", "gpustack-vllm-h100-sxm-qwen3-32b-sharegpt"}, flagged)
}
