package plan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// smallPlan is Llama-3.1-8B at 15 req/s of Azure-conversation traffic
// over H100 and L40S, TP 1 and 2, BF16 and FP8, with short runs.
func smallPlan(t testing.TB, seed uint64) plan.Plan {
	model, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	var gpus []plan.GPUOption
	for _, name := range []string{"h100-sxm", "l40s"} {
		g, err := cost.GPU(name)
		require.NoError(t, err)
		gpus = append(gpus, plan.GPUOption{GPU: g})
	}
	p := plan.NewPlan(model)
	p.Space = plan.Space{GPUs: gpus, TP: []int{1, 2}, Precisions: []cost.Precision{cost.BF16, cost.FP8}}
	p.Objective = plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation()},
		Rate:     15,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.05}, 0.99),
	}
	p.Search.Requests, p.Search.Warmup, p.Search.Seed, p.Search.Round = 400, 40, seed, 4
	return p
}

func runPlan(t testing.TB, p plan.Plan) *plan.Result {
	res, err := p.Run()
	require.NoError(t, err)
	return res
}

// smallPlan(t, 1)'s result at two or more GOMAXPROCS, run once for the
// tests that only read it.
var (
	smallPlanOnce sync.Once
	smallPlanRes  *plan.Result
	errSmallPlan  = errors.New("smallPlan(1) failed in an earlier test")
)

func smallPlanResult(t testing.TB) *plan.Result {
	t.Helper()
	smallPlanOnce.Do(func() {
		old := runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(max(old, 2))
		defer runtime.GOMAXPROCS(old)
		smallPlanRes, errSmallPlan = smallPlan(t, 1).Run()
	})
	require.NoError(t, errSmallPlan)
	return smallPlanRes
}

// TestPlanLLMDeterministic: the JSON of an LLM plan is byte-identical at
// GOMAXPROCS 1 and at 2 or more. Not parallel: it sets GOMAXPROCS.
func TestPlanLLMDeterministic(t *testing.T) {
	wide, err := json.Marshal(smallPlanResult(t))
	require.NoError(t, err)
	old := runtime.GOMAXPROCS(1)
	res := runPlan(t, smallPlan(t, 1))
	runtime.GOMAXPROCS(old)
	one, err := json.Marshal(res)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(one, wide), "GOMAXPROCS 1 and %d differ", max(old, 2))
}

// TestPlanLLMPruningKeepsTheWinners: with pruning off every screened
// candidate is simulated; the winners, their cost and replica counts are
// the same.
func TestPlanLLMPruningKeepsTheWinners(t *testing.T) {
	t.Parallel()
	pruned := smallPlanResult(t)
	p := smallPlan(t, 1)
	p.Search.NoPrune = true
	full := runPlan(t, p)
	require.NotZero(t, pruned.Winners)
	t.Logf("pruned: %d of %d simulated, %d runs; full: %d simulated, %d runs", pruned.Simulated, pruned.Screened, pruned.Runs, full.Simulated, full.Runs)
	var b bytes.Buffer
	require.NoError(t, full.WriteTable(&b))
	t.Log("\n" + b.String())
	assert.Equal(t, winners(pruned), winners(full))
	assert.Zero(t, full.Pruned)
	assert.Equal(t, full.Screened, full.Simulated)
	assert.Less(t, pruned.Runs, full.Runs)
}

// winners lists the winners' labels, replicas and costs.
func winners(r *plan.Result) []string {
	var out []string
	for _, x := range r.Best() {
		out = append(out, fmt.Sprintf("%s x%d $%.4f", x.Settings, x.Replicas, x.CostPerHour))
	}
	return out
}

// TestPlanLLMSeedStability: five seeds pick the same deployment of
// Llama-3.1-8B at 15 req/s between an H100 ($3.95/h) and two L40S
// ($3.90/h). Short runs are no good here: the stability verdict needs a
// window of several request lifetimes (a long answer takes 30 s), and at
// 400 requests a replica it calls a calm 2-replica run "growing" now and
// then, so this test runs the default 1,500.
func TestPlanLLMSeedStability(t *testing.T) {
	t.Parallel()
	results := make([]*plan.Result, 5)
	t.Run("seeds", func(t *testing.T) {
		for i := range results {
			t.Run(fmt.Sprint(i+1), func(t *testing.T) {
				t.Parallel()
				p := smallPlan(t, uint64(i+1))
				p.Space.TP, p.Space.Precisions = []int{1}, []cost.Precision{cost.FP8}
				p.Search.Requests, p.Search.Warmup = plan.DefaultSearch().Requests, plan.DefaultSearch().Warmup
				results[i] = runPlan(t, p)
			})
		}
	})
	first := winners(results[0])
	t.Logf("seed 1 winners: %v", first)
	require.Equal(t, []string{"l40s tp1 seqs256 mnbt2048 chunked fp8 x2 $3.9024"}, first)
	for i, r := range results[1:] {
		assert.Equal(t, first, winners(r), "seed %d", i+2)
	}
}
