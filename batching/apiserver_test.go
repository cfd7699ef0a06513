package batching

import (
	"math"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// constantEngine is an engine whose every step takes tau seconds.
func constantEngine(tau float64, api APIServer) Config {
	return Config{
		Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: 256, MaxNumBatchedTokens: 4096, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 100000, StepTime: func(cost.Batch) float64 { return tau }, APIServer: api,
	}
}

// TestAPIServerTimesOneRequest follows one request through the API server
// by hand, 10 ms steps: it reaches the engine after 5 ms + 10 × 0.1 ms of
// intake (6 ms); its prefill step ends at 16 ms and the first token
// reaches the client 2 ms later (18 ms); the two decode steps end at 26 and
// 36 ms, the last token reaching the client at 38 ms.
func TestAPIServerTimesOneRequest(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		api                    APIServer
		first, done, itl, tpot float64
	}{
		{name: "none", first: 0.010, done: 0.030, itl: 0.010, tpot: 0.010},
		{name: "api server", api: APIServer{PerRequest: 0.005, PerPromptToken: 0.0001, PerOutputToken: 0.002},
			first: 0.018, done: 0.038, itl: 0.010, tpot: 0.010},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0}},
					Lengths: workload.Sequence{Pairs: []workload.Pair{{Input: 10, Output: 3}}}},
				Server: constantEngine(0.010, tc.api), Requests: 1, Seed: 1,
			})
			require.NoError(t, err)
			require.Len(t, res.Requests, 1)
			r := res.Requests[0]
			assert.InDelta(t, tc.first, r.FirstToken, 1e-12, "first token")
			assert.InDelta(t, tc.done, r.Done, 1e-12, "end")
			assert.InDelta(t, tc.itl, res.ITL().Mean(), 1e-9, "ITL")
			assert.InDelta(t, tc.tpot, res.TPOT().Mean(), 1e-9, "TPOT")
		})
	}
}

// TestAPIServerIntakeQueues: one CPU takes requests in one after another
// (5 ms each) and streams tokens in the order its work arrived. Four
// requests sent 10 ms apart never queue: each reaches the engine 5 ms
// after it was sent and, with a 1 ms step, sees its token 1 ms later. Sent
// at once, they reach the engine at 5, 10, 15 and 20 ms, and every token
// waits behind the intake of the requests sent with it: all four reach
// their clients at 20 ms (at 21 ms the engine is done with the last).
func TestAPIServerIntakeQueues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times []float64
		first []float64
	}{
		{"spaced", []float64{0, 0.010, 0.020, 0.030}, []float64{0.006, 0.016, 0.026, 0.036}},
		{"at once", []float64{0, 0, 0, 0}, []float64{0.020, 0.020, 0.020, 0.021}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Replay{Times: tc.times},
					Lengths: workload.Sequence{Pairs: []workload.Pair{{Input: 4, Output: 1}}}},
				Server: constantEngine(0.001, APIServer{PerRequest: 0.005}), Requests: 4, Seed: 1,
			})
			require.NoError(t, err)
			require.Len(t, res.Requests, 4)
			for k, r := range res.Requests {
				assert.InDelta(t, tc.first[k], r.FirstToken, 1e-12, "request %d", k)
			}
		})
	}
}

// TestAPIServerCapsThroughput is the utilisation law: when the engine is
// far faster than the API server, the server's one CPU is always busy in
// a closed loop of many clients, so requests complete at 1/(work per
// request), work = PerRequest + Input·PerPromptToken + Output·PerOutputToken.
func TestAPIServerCapsThroughput(t *testing.T) {
	api := APIServer{PerRequest: 0.004, PerPromptToken: 2e-6, PerOutputToken: 1e-4}
	const in, out = 500, 40
	work := api.PerRequest + in*api.PerPromptToken + out*api.PerOutputToken // 9 ms
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 64,
			Lengths: workload.Fixed{Input: in, Output: out}},
		Server: constantEngine(1e-5, api), Requests: 20000, Warmup: 500, Seed: 1,
	})
	require.NoError(t, err)
	t.Logf("throughput %v against 1/work %v", res.RequestThroughput, 1/work)
	assert.InEpsilon(t, 1/work, res.RequestThroughput, 0.01, "completed requests/s against 1/work")
	// Without the API server the same engine serves far more.
	free, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 64, Lengths: workload.Fixed{Input: in, Output: out}},
		Server:   constantEngine(1e-5, APIServer{}), Requests: 4000, Warmup: 500, Seed: 1,
	})
	require.NoError(t, err)
	assert.Greater(t, free.RequestThroughput, 10/work)
}

func TestAPIServerValidate(t *testing.T) {
	for _, api := range []APIServer{{PerRequest: -1}, {PerPromptToken: math.NaN()}, {PerOutputToken: math.Inf(1)}} {
		err := constantEngine(0.01, api).Validate()
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), "api_server.")
		assert.Contains(t, err.Error(), "must be a finite number of seconds >= 0")
	}
	require.NoError(t, constantEngine(0.01, APIServer{PerRequest: 0.01}).Validate())
}

// TestAPIServerEveryScheduler runs a closed loop through an API server
// under each scheduler that supports one: every request completes, its
// times in order (sent ≤ first token ≤ end), and the clients' mean TTFT
// is longer than without the server.
func TestAPIServerEveryScheduler(t *testing.T) {
	api := APIServer{PerRequest: 0.002, PerPromptToken: 1e-6, PerOutputToken: 2e-4}
	a := 0.7
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
	}{
		{"chunked prefill", func(*Config) {}},
		{"prefill first", func(c *Config) { c.EnableChunkedPrefill = false }},
		{"speculative", func(c *Config) {
			c.Speculative = &specdecode.Config{Method: specdecode.Ngram, NumSpeculativeTokens: 3, AcceptanceRate: &a}
		}},
		{"data parallel", func(c *Config) { c.Deployment.DP = 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(api APIServer) *sim.Result {
				c := constantEngine(0.005, api)
				tc.mutate(&c)
				res, err := sim.Run(sim.Config{
					Workload: workload.Workload{Clients: 16, Lengths: workload.Fixed{Input: 300, Output: 20}},
					Server:   c, Requests: 400, Seed: 3,
				})
				require.NoError(t, err)
				return res
			}
			with, without := run(api), run(APIServer{})
			assert.Equal(t, 400, with.Completed)
			for _, r := range with.Requests {
				assert.LessOrEqual(t, r.Sent, r.FirstToken, "request %d", r.ID)
				assert.LessOrEqual(t, r.FirstToken, r.Done, "request %d", r.ID)
			}
			assert.Greater(t, with.TTFT().Mean(), without.TTFT().Mean())
		})
	}
}

func TestAPIServerPipelineBatchQueue(t *testing.T) {
	c := constantEngine(0.01, APIServer{PerRequest: 0.001})
	err := Pipeline{Engine: c, Stages: 2}.Validate()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "api_server: is not modelled with pipeline_parallel_size 2 and the v1 batch queue: drop api_server or use pipeline_scheduler")
	require.NoError(t, Pipeline{Engine: c, Stages: 2, Scheduler: VirtualEngines}.Validate())
}
