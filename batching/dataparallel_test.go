package batching

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// dpConfig is a model-free engine of dp attention data-parallel groups:
// StepTime prices every step.
func dpConfig(dp int, stepTime func(cost.Batch) float64) Config {
	return Config{Deployment: cost.Deployment{TP: 1, DP: dp}, MaxNumSeqs: 64, MaxNumBatchedTokens: 4096,
		EnableChunkedPrefill: true, BlockSize: 16, KVBlocks: 100_000, StepTime: stepTime}
}

// TestDataParallelSymmetricLoadIsOneGroup: when every group runs the same
// batches (a closed loop of 2c clients of equal lengths over 2 groups,
// balanced by the router), the lockstep changes nothing: each group
// behaves as one engine serving c clients alone.
func TestDataParallelSymmetricLoadIsOneGroup(t *testing.T) {
	step := func(b cost.Batch) float64 { return 0.005 + 2e-6*float64(b.Tokens()) + 1e-9*b.DecodeContext }
	run := func(dp, clients int) *sim.Result {
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Clients: clients, Lengths: workload.Fixed{Input: 700, Output: 50}},
			Server:   dpConfig(dp, step), Requests: 40 * clients, Seed: 1,
		})
		require.NoError(t, err)
		return res
	}
	for _, c := range []int{1, 3, 16} {
		one, two := run(1, c), run(2, 2*c)
		assert.InDelta(t, one.TTFT().Mean(), two.TTFT().Mean(), 1e-12, "TTFT, %d clients a group", c)
		assert.InDelta(t, one.TPOT().Mean(), two.TPOT().Mean(), 1e-12, "TPOT, %d clients a group", c)
		assert.InDelta(t, one.E2E().Mean(), two.E2E().Mean(), 1e-12, "E2E, %d clients a group", c)
	}
}

// TestDataParallelPrefillHoldsDecodes: one group's prefill lengthens the
// step of the other group's decode, worked by hand. Request A (1 prompt
// token, 10 output tokens) arrives at 0 at group 0; request B (600 prompt
// tokens, 1 output token) arrives at 25.5 ms, mid-step, and goes to idle
// group 1. Steps cost 10 ms + 0.1 ms per prompt token of the group's own
// batch: A's prefill ends at 10.1 ms, its decodes at 20.1 and 30.1 ms;
// then B's prefill (70 ms) and A's decode (10 ms) run together and both
// end at 100.1 ms; A's last six tokens follow at 10 ms each, done at
// 160.1 ms (100.1 ms alone). Steps of at most CUDAGraphTokens tokens a
// group route D times the largest group's tokens through the MoE layers
// (padded CUDA graphs); the shared step, larger, routes both groups' 601.
func TestDataParallelPrefillHoldsDecodes(t *testing.T) {
	var dpTokens []int
	step := func(b cost.Batch) float64 {
		dpTokens = append(dpTokens, b.DPTokens)
		return 0.010 + 0.0001*float64(b.PrefillTokens)
	}
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0, 0.0255}},
			Lengths: workload.Sequence{Pairs: []workload.Pair{{Input: 1, Output: 10}, {Input: 600, Output: 1}}}},
		Server: dpConfig(2, step), Requests: 2, Seed: 1,
	})
	require.NoError(t, err)
	require.Len(t, res.Requests, 2)
	a, b := res.Requests[0], res.Requests[1]
	if a.Input != 1 {
		a, b = b, a
	}
	assert.InDelta(t, 0.0101, a.FirstToken, 1e-12)
	assert.InDelta(t, 0.1601, a.Done, 1e-12)
	assert.InDelta(t, 0.1001, b.FirstToken, 1e-12)
	assert.InDelta(t, 0.1001, b.Done, 1e-12)
	// Group 0 alone for three steps, then both groups, then group 0 alone.
	assert.Equal(t, []int{2, 2, 2, 601, 601, 2, 2, 2, 2, 2, 2}, dpTokens)
}

// TestDataParallelRouting: requests go to the group of least
// 4·waiting + running, ties to the lowest index, so a burst spreads
// evenly.
func TestDataParallelRouting(t *testing.T) {
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: make([]float64, 12)}, Lengths: workload.Fixed{Input: 64, Output: 8}},
		Server:   dpConfig(3, func(cost.Batch) float64 { return 0.01 }), Requests: 12, Seed: 1,
	})
	require.NoError(t, err)
	got := map[string]float64{}
	for _, s := range res.Server {
		got[s.Name] = s.Value
	}
	assert.Equal(t, 3.0, got["dp_groups"])
	for _, g := range []string{"dp0", "dp1", "dp2"} {
		assert.Equal(t, 4.0, got[g+"_requests"], g)
	}

	// DPFirstGroup: all to group 0; the others only step with it.
	first := dpConfig(3, func(cost.Batch) float64 { return 0.01 })
	first.DPRouter = DPFirstGroup
	res, err = sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: make([]float64, 12)}, Lengths: workload.Fixed{Input: 64, Output: 8}},
		Server:   first, Requests: 12, Seed: 1,
	})
	require.NoError(t, err)
	got = map[string]float64{}
	for _, s := range res.Server {
		got[s.Name] = s.Value
	}
	assert.Equal(t, []float64{12, 0, 0}, []float64{got["dp0_requests"], got["dp1_requests"], got["dp2_requests"]})

	bad := first
	bad.DPRouter = "random"
	err = bad.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `dp_router: "random" must be "balanced" or "first-group"`)
}

// TestDataParallelLimits: too many groups, in one deployment or over its
// replicas, and prefix-aware routing over replicas of one, are refused
// with the field named.
func TestDataParallelLimits(t *testing.T) {
	one := func(cost.Batch) float64 { return 0.01 }
	err := dpConfig(MaxDataParallel+1, one).Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "deployment.dp: 1025 exceeds 1024")
	err = Cluster{Engine: dpConfig(8, one), Replicas: 129, Router: RoundRobin}.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "replicas: 129 of a deployment with dp 8 make more than 1024 data-parallel groups")
	err = Cluster{Engine: dpConfig(2, one), Replicas: 2, Router: PrefixAware}.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `router: "prefix-aware" over replicas of a deployment with dp 2 is not modelled`)
	require.NoError(t, Cluster{Engine: dpConfig(8, one), Replicas: 128, Router: RoundRobin}.Validate())
	require.NoError(t, Cluster{Engine: dpConfig(2, one), Replicas: 1, Router: PrefixAware}.Validate())
}

// TestDataParallelReplicas: replicas of a data-parallel deployment step
// independently, each its own groups together. Two replicas of the
// deployment of TestDataParallelPrefillHoldsDecodes get that test's two
// requests each, the second pair 1 ms after the first (A at 0 and B at
// 25.5 ms; C at 1 ms and D at 25.6 ms, each mid-step): A, B and the step
// sequence are as there, and C and D the same 1 ms later (C done at
// 161.1 ms). Stepping with the first replica, C would have waited for its
// steps. Both routers send A and B to one replica and C and D to the other
// (least-outstanding: C to the empty replica, B to the first of a tie, D
// to the replica holding one).
func TestDataParallelReplicas(t *testing.T) {
	for _, router := range []Router{RoundRobin, LeastOutstanding} {
		step := func(b cost.Batch) float64 { return 0.010 + 0.0001*float64(b.PrefillTokens) }
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0, 0.001, 0.0255, 0.0256}},
				Lengths: workload.Sequence{Pairs: []workload.Pair{{Input: 1, Output: 10}, {Input: 1, Output: 10}, {Input: 600, Output: 1}, {Input: 600, Output: 1}}}},
			Server: Cluster{Engine: dpConfig(2, step), Replicas: 2, Router: router}, Requests: 4, Seed: 1,
		})
		require.NoError(t, err, router)
		require.Len(t, res.Requests, 4)
		byArrival := map[float64]float64{} // done time by arrival
		first := map[float64]float64{}
		for _, r := range res.Requests {
			byArrival[r.Arrival] = r.Done
			first[r.Arrival] = r.FirstToken
		}
		assert.InDelta(t, 0.1601, byArrival[0], 1e-12, "A, %s", router)
		assert.InDelta(t, 0.1611, byArrival[0.001], 1e-12, "C, %s", router)
		assert.InDelta(t, 0.1001, first[0.0255], 1e-12, "B, %s", router)
		assert.InDelta(t, 0.1011, first[0.0256], 1e-12, "D, %s", router)
		got := map[string]float64{}
		for _, s := range res.Server {
			got[s.Name] = s.Value
		}
		assert.Equal(t, []float64{2, 2, 2, 2}, []float64{got["replicas"], got["dp_groups"], got["replica0_requests"], got["replica1_requests"]}, router)
		assert.Len(t, res.Series, 4, "one series a group")
	}
}

// TestCUDAGraphTokens: vLLM's default largest CUDA-graph size,
// min(2·max_num_seqs, 512, max_num_batched_tokens).
func TestCUDAGraphTokens(t *testing.T) {
	for _, tt := range []struct{ seqs, budget, want int }{
		{1024, 8192, 512}, {256, 2048, 512}, {64, 4096, 128}, {128, 100, 100},
	} {
		assert.Equal(t, tt.want, CUDAGraphTokens(Config{MaxNumSeqs: tt.seqs, MaxNumBatchedTokens: tt.budget}), "max_num_seqs %d, budget %d", tt.seqs, tt.budget)
	}
}

// TestDataParallelReplicasInvariants: replicas of a mixture-of-experts
// deployment of two data-parallel groups under an open loop that queues
// and preempts: every group's state is recomputed and checked after each
// of its steps (engine.verify), every request completes, and every KV
// block is back in its pool at the end.
func TestDataParallelReplicasInvariants(t *testing.T) {
	t.Parallel()
	model, err := cost.Model("gpt-oss-20b")
	require.NoError(t, err)
	gpu, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	eng := Defaults(model, gpu)
	eng.Deployment.DP, eng.Deployment.EP = 2, 2
	eng.KVBlocks, eng.MaxNumBatchedTokens = 400, 1024 // 6400 tokens a group: preemption
	for _, router := range []Router{RoundRobin, LeastOutstanding} {
		var engines []*engine
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 40}, Lengths: workload.Random{InputLen: 700, OutputLen: 300, RangeRatio: 0.6}},
			Server:   checked{ServerConfig: Cluster{Engine: eng, Replicas: 3, Router: router}, t: t, engines: &engines, every: 1},
			Requests: 250, Seed: 5,
		})
		require.NoError(t, err, router)
		require.Len(t, engines, 6, router)
		preempted := 0.0
		for _, s := range res.Server {
			if s.Name == "preemptions" {
				preempted = s.Value
			}
		}
		assert.Positive(t, preempted, "%s: the pool is small enough to preempt", router)
		assert.Equal(t, 250, res.Completed, router)
		for _, e := range engines {
			assert.Zero(t, e.usedBlocks, "%s %s: blocks returned to the pool", router, e.name)
			assert.Zero(t, e.running, router)
			assert.False(t, e.busy, router)
		}
	}
}
