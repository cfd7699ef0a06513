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
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// specSweep is a sweep of an engine whose step takes 2 ms plus 0.05 ms
// per token (verified drafts included), EAGLE at acceptance a, under an
// end-to-end SLO of 0.3 s.
func specSweep(t *testing.T, a float64, ks ...int) capacity.SpecSweep {
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	return capacity.SpecSweep{
		Ks: ks,
		Config: func(k int) (sim.Config, error) {
			c := batching.Defaults(m, g)
			c.KVBlocks = 20000
			c.StepTime = func(b cost.Batch) float64 { return 2e-3 + 5e-5*float64(b.Tokens()) }
			if k > 0 {
				c.Speculative = &specdecode.Config{Method: specdecode.Eagle, NumSpeculativeTokens: k, AcceptanceRate: &a}
			}
			return sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 10}, Lengths: workload.Fixed{Input: 64, Output: 64}},
				Server: c, Requests: 300}, nil
		},
		Search: capacity.Search{Criteria: capacity.DefaultCriteria(metrics.SLO{E2E: 0.3}, 0.9), Seed: 1,
			Replications: 1, Start: 10, Precision: 0.25},
	}
}

// TestSpecSweep: every request costs the same token time with or without
// drafts that are always accepted (64 verified tokens), but the 2 ms a
// step is paid 4 times less often at k = 3, so λ* is higher at k = 3
// and speculative decoding pays at every rate; drafts never accepted
// verify 4 tokens for every one emitted, so λ* falls and it never pays.
func TestSpecSweep(t *testing.T) {
	t.Parallel()
	res, err := specSweep(t, 1, 0, 3).Run()
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	off, on := res.Rows[0], res.Rows[1]
	assert.Nil(t, off.Crossover)
	assert.Greater(t, on.Lower, off.Upper, "λ* with drafts always accepted")
	assert.Equal(t, 1, res.Best)
	assert.Len(t, res.Rates, 12)
	assert.True(t, math.IsInf(on.Crossover.Crossover, 1), "pays at every rate: %+v", on.Crossover.Rows)

	res, err = specSweep(t, 0, 0, 3).Run()
	require.NoError(t, err)
	off, on = res.Rows[0], res.Rows[1]
	assert.Less(t, on.Upper, off.Lower, "λ* with drafts never accepted")
	assert.Equal(t, 0, res.Best)
	assert.Equal(t, res.Rates[0], on.Crossover.Crossover, "never pays")
}

func TestSpecSweepInvalid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ks   []int
		want string
	}{
		{nil, "has no k to compare"},
		{[]int{2, 3}, "must include 0 (off) first"},
		{[]int{0, 3, 3}, "k[2] 3 must be from 0 to 64 and above the one before"},
		{[]int{0, 65}, "k[1] 65 must be from 0 to 64"},
	} {
		_, err := specSweep(t, 1, c.ks...).Run()
		require.ErrorIs(t, err, capacity.ErrInvalid)
		require.ErrorContains(t, err, c.want)
	}
	s := specSweep(t, 1, 0, 2)
	s.Rates = []float64{3, math.Inf(1)}
	_, err := s.Run()
	require.ErrorContains(t, err, "rates[1] +Inf must be finite")
}
