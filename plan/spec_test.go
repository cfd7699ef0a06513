package plan_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// specPlan is Llama-3.1-8B on one H100 at rate req/s under a TPOT bound,
// searching speculative decoding off and EAGLE-3 at k.
func specPlan(t *testing.T, rate, tpot float64, ks ...int) plan.Plan {
	model, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	p := plan.NewPlan(model)
	p.Engine.Speculative = &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: 3, AcceptanceDataset: "mt-bench"}
	p.Space = plan.Space{GPUs: []plan.GPUOption{{GPU: g}}, TP: []int{1}, Precisions: []cost.Precision{cost.BF16}, SpecK: ks}
	p.Objective = plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 512, Output: 128}},
		Rate:     rate,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: tpot}, 0.9),
	}
	p.Search.Requests, p.Search.Warmup, p.Search.Seed, p.Search.MaxReplicas = 200, 20, 1, 4
	return p
}

// TestPlanSpecK: under a TPOT bound of 6 ms, below the plain engine's
// batch-1 step (about 7 ms on an H100), only speculative decoding meets
// the SLO, so the plan picks k = 3 and its serve command carries it; the
// report places where k = 3 stops paying per replica.
func TestPlanSpecK(t *testing.T) {
	t.Parallel()
	res, err := specPlan(t, 2, 0.006, 0, 3).Run()
	require.NoError(t, err)
	require.Equal(t, 2, res.Candidates)
	require.GreaterOrEqual(t, res.Winners, 1)
	w := res.Ranked[0]
	assert.Equal(t, 3, w.Settings.SpecK)
	assert.True(t, strings.HasSuffix(w.Name, " spec-k3"), w.Name)
	assert.Contains(t, w.Serve, `"num_speculative_tokens":3`)
	require.Len(t, res.Rejected, 1)
	assert.True(t, strings.HasSuffix(res.Rejected[0].Name, " no-spec"), res.Rejected[0].Name)
	rep := res.Speculative
	require.NotNil(t, rep)
	assert.Equal(t, 3, rep.WinnerK)
	assert.InDelta(t, 2/float64(w.Replicas), rep.RatePerReplica, 1e-12)
	require.Len(t, rep.Ks, 1)
	assert.Equal(t, 3, rep.Ks[0].K)
	assert.True(t, rep.Ks[0].PaysAtTarget, "k=3 pays at the light target load: %+v", rep.Ks[0])
}

func TestPlanSpecKInvalid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ks   []int
		nil_ bool
		want string
	}{
		{[]int{0, 65}, false, "spec_k[1] 65 must be from 0 (off) to 64"},
		{[]int{3, 3}, false, "spec_k repeats 3"},
		{[]int{0, 9}, false, `acceptance_dataset "mt-bench" has no measurement at num_speculative_tokens 9`},
		{[]int{0, 2}, true, "spec_k[1] 2 needs the engine's speculative_config"},
	} {
		p := specPlan(t, 2, 0.05, c.ks...)
		if c.nil_ {
			p.Engine.Speculative = nil
		}
		_, err := p.Run()
		require.ErrorIs(t, err, plan.ErrInvalid)
		require.ErrorContains(t, err, c.want)
	}
}
