package capacity_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// specArm is an engine whose step takes 2 ms plus 0.05 ms per token, with
// speculative decoding at acceptance a (sp false: none).
func specArm(t *testing.T, sp bool, a float64) func(float64) (sim.Config, error) {
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	return func(rate float64) (sim.Config, error) {
		c := batching.Defaults(m, g)
		c.KVBlocks = 20000
		c.StepTime = func(b cost.Batch) float64 { return 2e-3 + 5e-5*float64(b.Tokens()) }
		if sp {
			c.Speculative = &specdecode.Config{Method: specdecode.Eagle, NumSpeculativeTokens: 3, AcceptanceRate: &a}
		}
		return sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: workload.Fixed{Input: 64, Output: 64}},
			Server: c, Requests: 300}, nil
	}
}

// TestSpecCrossover: drafts that are always accepted pay at every rate
// here (four tokens for the price of 1.15 steps); drafts never accepted
// never pay (the same one token for a dearer step).
func TestSpecCrossover(t *testing.T) {
	t.Parallel()
	rates := []float64{2, 8, 32}
	res, err := capacity.SpecCrossover{Rates: rates, Off: specArm(t, false, 0), On: specArm(t, true, 1), Seed: 1}.Run()
	require.NoError(t, err)
	assert.True(t, math.IsInf(res.Crossover, 1), "pays everywhere: %+v", res.Rows)
	for _, r := range res.Rows {
		assert.Less(t, r.OnTPOT, r.OffTPOT/2, "rate %v", r.Rate)
	}
	res, err = capacity.SpecCrossover{Rates: rates, Off: specArm(t, false, 0), On: specArm(t, true, 0), Seed: 1}.Run()
	require.NoError(t, err)
	assert.Equal(t, rates[0], res.Crossover)
	for _, r := range res.Rows {
		assert.Greater(t, r.OnTPOT, r.OffTPOT, "rate %v", r.Rate)
	}
	_, err = capacity.SpecCrossover{Rates: []float64{4, 2}, Off: specArm(t, false, 0), On: specArm(t, true, 0)}.Run()
	require.ErrorIs(t, err, capacity.ErrInvalid)
	require.ErrorContains(t, err, "rates[1] 2 must be > 0 and above the one before")
	_, err = capacity.SpecCrossover{Rates: rates}.Run()
	require.ErrorContains(t, err, "needs both Off and On")
}
