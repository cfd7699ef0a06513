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
	"github.com/servesim/servesim/workload"
)

// TestPPCandidates: each colocated point is also searched split into k
// stages (TP·k GPUs a replica); a 70B model that does not fit one H100
// at TP 1 fits as four TP 1 stages (each holds a quarter of the layers),
// which the screen lets through.
func TestPPCandidates(t *testing.T) {
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	p := plan.NewPlan(m)
	p.MaxModelLen = 4096
	sp, err := plan.Choices{GPUs: []string{"h100-sxm"}, TP: []int{1, 2}, Precisions: []cost.Precision{cost.BF16},
		PipelineParallel: []int{1, 4}}.Space()
	require.NoError(t, err)
	p.Space = sp
	p.Objective = plan.Objective{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 500, Output: 50}},
		Rate: 1, Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 5}, 0.9)}
	cands, err := p.Candidates()
	require.NoError(t, err)
	require.Len(t, cands, 4)
	assert.Equal(t, "h100-sxm tp1 pp4 seqs1024 mnbt8192 chunked bf16", cands[2].Name)
	assert.Equal(t, 4, cands[2].GPUs)
	assert.Equal(t, 8, cands[3].GPUs)
	d := plan.NewDemand(p.Objective.Criteria, p.Objective.Workload.Lengths)
	assert.Equal(t, plan.DoesNotFit, cands[0].Replica.(plan.Screener).Screen(d).Reason, "70B at TP 1 on one H100")
	assert.Equal(t, plan.NoReason, cands[2].Replica.(plan.Screener).Screen(d).Reason, "70B over four TP 1 stages")

	p.Space.PipelineParallel = []int{2, 2}
	_, err = p.Candidates()
	require.ErrorIs(t, err, plan.ErrInvalid)
	assert.Contains(t, err.Error(), "pipeline_parallel[1] 2 repeats pipeline_parallel[0]")
}

// TestPlanPP: a pipeline-parallel winner's vllm serve line carries
// --pipeline-parallel-size after its TP.
func TestPlanPP(t *testing.T) {
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	p := plan.NewPlan(m)
	p.MaxModelLen = 4096
	sp, err := plan.Choices{GPUs: []string{"h100-sxm"}, TP: []int{1}, Precisions: []cost.Precision{cost.BF16},
		PipelineParallel: []int{4}}.Space()
	require.NoError(t, err)
	p.Space = sp
	p.Objective = plan.Objective{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 500, Output: 50}},
		Rate: 0.5, Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 5}, 0.9)}
	p.Search.Requests, p.Search.Warmup, p.Search.MaxReplicas = 100, 0, 4
	res, err := p.Run()
	require.NoError(t, err)
	require.Equal(t, 1, res.Winners)
	w := res.Best()[0]
	assert.Equal(t, 4, w.Settings.PP)
	assert.True(t, strings.HasPrefix(w.Serve, "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 1 --pipeline-parallel-size 4 "), w.Serve)
}
