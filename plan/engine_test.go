package plan_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// engine returns vLLM's defaults for model on gpu at TP tp with
// max-model-len 14336, in precision p.
func engine(t *testing.T, model, gpu string, tp int, p cost.Precision) plan.Engine {
	t.Helper()
	m, err := cost.Model(model)
	require.NoError(t, err)
	g, err := cost.GPU(gpu)
	require.NoError(t, err)
	cfg := batching.Defaults(m, g)
	cfg.Deployment.TP, cfg.MaxModelLen = tp, 14336
	d, args, err := plan.ApplyPrecision(p, cfg.Deployment)
	require.NoError(t, err)
	cfg.Deployment = d
	return plan.Engine{Config: cfg, ServeArgs: args}
}

// dpEngine is engine with dp attention data-parallel groups, expert
// parallel over all TP·dp GPUs when ep is set.
func dpEngine(t *testing.T, model, gpu string, tp, dp int, ep bool) plan.Engine {
	e := engine(t, model, gpu, tp, cost.BF16)
	e.Config.Deployment.DP = dp
	if ep {
		e.Config.Deployment.EP = tp * dp
	}
	return e
}

func azure(slo metrics.SLO) plan.Demand {
	return plan.NewDemand(capacity.DefaultCriteria(slo, 0.99), workload.AzureConversation())
}

// TestEngineScreen: each rule of the screen, on a case whose verdict is
// known from the catalog's numbers.
func TestEngineScreen(t *testing.T) {
	t.Parallel()
	loose := azure(metrics.SLO{TTFT: 10, TPOT: 1})
	chunkOff := engine(t, "llama-3.1-8b", "h100-sxm", 1, cost.BF16)
	chunkOff.Config.EnableChunkedPrefill = false
	longCtx := engine(t, "llama-3.1-70b", "h100-sxm", 2, cost.BF16)
	longCtx.Config.MaxModelLen = 131072 // 20 GiB of KV a rank; the pool holds 34,672 tokens
	tests := []struct {
		name   string
		e      plan.Engine
		d      plan.Demand
		reason plan.Reason
		why    string
	}{
		{"tp 3 does not divide 64 heads", engine(t, "llama-3.1-70b", "h100-sxm", 3, cost.BF16), loose, plan.Invalid, "tp: 3 must divide heads 64"},
		{"chunked prefill off, budget 8192 < 14336", chunkOff, loose, plan.Invalid, "chunked prefill off needs max-num-batched-tokens 8192 >= max-model-len 14336"},
		{"70B BF16 on one H100: 131 GiB of weights", engine(t, "llama-3.1-70b", "h100-sxm", 1, cost.BF16), loose, plan.DoesNotFit, "weights 131.4 GiB"},
		{"70B BF16 on two H100s at 128k context", longCtx, loose, plan.DoesNotFit, "fewer than one max-model-len request (131072)"},
		// 70B BF16 on 4 L40S: 35.3 GB of weights a rank stream in at least
		// 51 ms at 80% of 864 GB/s, above a 50 ms TPOT bound.
		{"TPOT floor above the bound", engine(t, "llama-3.1-70b", "l40s", 4, cost.BF16), azure(metrics.SLO{TTFT: 2, TPOT: 0.05}), plan.Unreachable, "TPOT for 100.0%"},
		{"fits and can meet it", engine(t, "llama-3.1-70b", "h100-sxm", 4, cost.FP8), azure(metrics.SLO{TTFT: 2, TPOT: 0.05}), plan.NoReason, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.e.Screen(tt.d)
			assert.Equal(t, tt.reason, s.Reason, s.Why)
			assert.Contains(t, s.Why, tt.why)
			assert.NotContains(t, s.Why, "\n")
			if tt.reason == plan.NoReason {
				assert.Greater(t, s.MaxRate, 0.0)
				assert.False(t, math.IsInf(s.MaxRate, 1))
			}
		})
	}
}

// TestRooflineBoundsThroughput: MaxRate bounds what a replica completes:
// flooded far above it (4x), the engine's measured request throughput
// stays below it, with chunked prefill on and off, at TP 1 and 2, and for
// a mixture-of-experts engine of two data-parallel groups with and
// without expert parallelism. The margin between them is what the pruning
// leaves on the table.
func TestRooflineBoundsThroughput(t *testing.T) {
	t.Parallel()
	d := azure(metrics.SLO{TTFT: 10, TPOT: 1})
	off := engine(t, "llama-3.1-8b", "h100-sxm", 1, cost.BF16)
	off.Config.EnableChunkedPrefill, off.Config.MaxNumBatchedTokens = false, 16384
	for _, e := range []plan.Engine{
		engine(t, "llama-3.1-8b", "h100-sxm", 1, cost.BF16),
		engine(t, "llama-3.1-8b", "l40s", 2, cost.FP8),
		off,
		dpEngine(t, "gpt-oss-120b", "h100-sxm", 1, 2, false),
		dpEngine(t, "gpt-oss-120b", "h100-sxm", 1, 2, true),
	} {
		s := e.Screen(d)
		require.Equal(t, plan.NoReason, s.Reason, s.Why)
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 4 * s.MaxRate}, Lengths: workload.AzureConversation()},
			Server:   e.Servers(1), Requests: 3000, Seed: 1, SummaryOnly: true,
		})
		require.NoError(t, err)
		t.Logf("%s %s tp%d dp%d chunked %v: roofline %.2f req/s, flooded %.2f req/s", e.Config.Deployment.Model.Name, e.Config.Deployment.GPU.Name,
			e.Config.Deployment.TP, e.Config.Deployment.DP, e.Config.EnableChunkedPrefill, s.MaxRate, res.RequestThroughput)
		assert.Less(t, res.RequestThroughput, s.MaxRate)
		assert.Greater(t, res.RequestThroughput, s.MaxRate/4, "the bound is not vacuous")
	}
}

// TestLatencyFloorsBoundOneRequest: a request alone in the engine takes
// at least the screen's floors; an SLO just below them is unreachable,
// just above them is not. The same for a request alone on one of two
// data-parallel groups of a mixture-of-experts engine.
func TestLatencyFloorsBoundOneRequest(t *testing.T) {
	t.Parallel()
	for _, e := range []plan.Engine{engine(t, "llama-3.1-8b", "h100-sxm", 1, cost.BF16), dpEngine(t, "gpt-oss-120b", "h100-sxm", 1, 2, true)} {
		floorsBoundOneRequest(t, e)
	}
}

func floorsBoundOneRequest(t *testing.T, e plan.Engine) {
	const in, out = 2000, 100
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: in, Output: out}},
		Server:   e.Servers(1), Requests: 1, Seed: 1,
	})
	require.NoError(t, err)
	ttft, tpot := res.TTFT().Max(), res.TPOT().Max()
	fixed := func(slo metrics.SLO) plan.Demand {
		return plan.NewDemand(capacity.DefaultCriteria(slo, 0.99), workload.Fixed{Input: in, Output: out})
	}
	for _, tt := range []struct {
		slo         metrics.SLO
		unreachable bool
	}{
		{metrics.SLO{TTFT: ttft * 1.001}, false},
		{metrics.SLO{TPOT: tpot * 1.001}, false},
		{metrics.SLO{E2E: res.E2E().Max() * 1.001}, false},
		{metrics.SLO{TTFT: ttft * 0.5}, true},
		{metrics.SLO{TPOT: tpot * 0.8}, true},
	} {
		s := e.Screen(fixed(tt.slo))
		assert.Equal(t, tt.unreachable, s.Reason == plan.Unreachable, "%+v (alone: TTFT %v, TPOT %v): %s", tt.slo, ttft, tpot, s.Why)
	}
}
