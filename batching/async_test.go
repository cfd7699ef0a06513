package batching

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// TestAsyncSchedulingOneStepLater: with a constant 10 ms step, request A
// (1-token prompt, 10 tokens out) arrives at 0 and keeps the engine
// stepping; B arrives at the time given. Without asynchronous scheduling
// B is scheduled in the step that starts after it arrives; with it, the
// step after that one (vLLM forms step k+1 when step k launches), one step
// later. An arrival at an idle engine is scheduled at once either way.
func TestAsyncSchedulingOneStepLater(t *testing.T) {
	const tau = 0.010
	for _, tc := range []struct {
		name           string
		aOut           int
		bAt            float64
		async          bool
		bFirst, aFirst float64
	}{
		{"mid-step, sync", 10, 0.015, false, 0.030, 0.010},
		{"mid-step, async", 10, 0.015, true, 0.040, 0.010},
		{"busy from 0, async", 10, 0.001, true, 0.030, 0.010},
		{"idle engine, sync", 1, 0.055, false, 0.065, 0.010},
		{"idle engine, async", 1, 0.055, true, 0.065, 0.010},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{
				Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: 8, MaxNumBatchedTokens: 1000, EnableChunkedPrefill: true, BlockSize: 16,
				KVBlocks: 1000, StepTime: func(cost.Batch) float64 { return tau }, AsyncScheduling: tc.async,
			}
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0, tc.bAt}},
					Lengths: workload.Sequence{Pairs: []workload.Pair{{Input: 1, Output: tc.aOut}, {Input: 1, Output: 1}}}},
				Server: cfg, Requests: 2, Seed: 1,
			})
			require.NoError(t, err)
			require.Len(t, res.Requests, 2)
			assert.InDelta(t, tc.aFirst, res.Requests[0].FirstToken, 1e-12, "A's first token")
			assert.InDelta(t, tc.bFirst, res.Requests[1].FirstToken, 1e-12, "B's first token")
			assert.InDelta(t, tc.aFirst+float64(tc.aOut-1)*tau, res.Requests[0].Done, 1e-12, "A's completion")
		})
	}
}
