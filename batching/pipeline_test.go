package batching

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// stepEngine is a model-free engine whose every step takes t seconds.
func stepEngine(t float64, maxSeqs int) Config {
	return Config{
		Deployment:          cost.Deployment{TP: 1},
		MaxNumSeqs:          maxSeqs,
		MaxNumBatchedTokens: 4096, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 1 << 12, StepTime: func(cost.Batch) float64 { return t },
	}
}

// makespan runs m single-step requests (prefill only, one output token)
// sent at once and returns when the last one finished.
func makespan(t *testing.T, srv sim.ServerConfig, m int) float64 {
	end, _ := makespanBusy(t, srv, m)
	return end
}

// makespanBusy is makespan with the server's busy_fraction.
func makespanBusy(t *testing.T, srv sim.ServerConfig, m int) (float64, float64) {
	t.Helper()
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: make([]float64, m)}, Lengths: workload.Fixed{Input: 100, Output: 1}},
		Server:   srv, Requests: m, Seed: 1,
	})
	require.NoError(t, err)
	require.Equal(t, m, res.Completed)
	end := 0.0
	for _, r := range res.Requests {
		end = max(end, r.Done)
	}
	busy, _ := res.Stat("busy_fraction")
	return end, busy
}

// schedulers are the two pipeline schedulers, each with an engine whose
// steps take step seconds and hold one 100-token prompt each: v0's
// virtual engines one request each (max_num_seqs 1), v1's batch queue a
// token budget of one prompt.
func schedulers(step float64) []struct {
	s PipelineScheduler
	e Config
} {
	v1 := stepEngine(step, 64)
	v1.MaxNumBatchedTokens = 100
	return []struct {
		s PipelineScheduler
		e Config
	}{{VirtualEngines, stepEngine(step, 1)}, {BatchQueue, v1}}
}

// TestPipelineBubble checks the pipeline's throughput against the
// pipelining identity: k balanced stages fed m micro-batches at once
// finish them in (m+k−1) stage times, so the throughput is k·m/(m+k−1)
// times that of the unpipelined engine, which runs them one whole-model
// step each. One request per micro-batch, no activation cost, under
// both schedulers.
func TestPipelineBubble(t *testing.T) {
	const step = 0.012 // s, the whole model's step
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, sc := range schedulers(step) {
		for _, tc := range []struct{ k, m int }{{1, 5}, {2, 1}, {2, 7}, {4, 1}, {4, 3}, {4, 4}, {4, 13}, {8, 8}} {
			plain := makespan(t, sc.e, tc.m)
			assert.InDelta(t, float64(tc.m)*step, plain, 1e-12)
			pp, busy := makespanBusy(t, Pipeline{Engine: sc.e, Stages: tc.k, ActivationLink: free, Scheduler: sc.s}, tc.m)
			want := float64(tc.k*tc.m) / float64(tc.m+tc.k-1)
			assert.InDelta(t, want, plain/pp, 1e-9, "%s k=%d m=%d", sc.s, tc.k, tc.m)
			// Each stage works m stage times of the m+k−1 the run lasts.
			assert.InDelta(t, float64(tc.m)/float64(tc.m+tc.k-1), busy, 1e-9, "%s k=%d m=%d busy", sc.s, tc.k, tc.m)
		}
	}
}

// TestBatchQueueChunkedPrompt: under v1's batch queue an isolated prompt
// of n budget-sized chunks sends one chunk into the pipeline per stage
// time, each without waiting for the last to return, so its first token
// leaves after n+k−1 stage times; v0's virtual engine waits for each
// chunk's micro-batch, n whole-model steps (n·k stage times).
func TestBatchQueueChunkedPrompt(t *testing.T) {
	const step = 0.012
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, tc := range []struct{ k, n int }{{1, 3}, {2, 1}, {2, 5}, {4, 3}, {4, 8}, {8, 2}} {
		e := stepEngine(step, 8)
		e.MaxNumBatchedTokens = 64
		lengths := workload.Fixed{Input: 64 * tc.n, Output: 1}
		for _, s := range []PipelineScheduler{BatchQueue, VirtualEngines} {
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0}}, Lengths: lengths},
				Server:   Pipeline{Engine: e, Stages: tc.k, ActivationLink: free, Scheduler: s}, Requests: 1, Seed: 1,
			})
			require.NoError(t, err)
			require.Equal(t, 1, res.Completed)
			stages := float64(tc.n * tc.k) // v0
			if s == BatchQueue {
				stages = float64(tc.n + tc.k - 1)
			}
			assert.InDelta(t, stages*step/float64(tc.k), res.Requests[0].FirstToken, 1e-12, "%s k=%d n=%d", s, tc.k, tc.n)
		}
	}
}

// TestBatchQueueDecodeBubble: r requests sent at once join one batch
// under v1's batch queue (its one scheduler forms the next batch from
// everything waiting), and a decoder in flight is not scheduled again
// until its token returns: every step of that batch is a whole-model
// step (k stage times), each request ends after its output length in
// steps, and each stage is busy 1/k of the run whatever r. v0 spreads
// the same r ≤ k requests over r virtual engines: r micro-batches in
// flight, the i-th entering the first stage i stage times late, so it
// ends at out·step + i·step/k and each stage is busy r·out/(k·out+r−1).
func TestBatchQueueDecodeBubble(t *testing.T) {
	const step, out = 0.012, 20
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, tc := range []struct{ k, r int }{{2, 1}, {2, 2}, {4, 1}, {4, 3}, {8, 5}} {
		for _, s := range []PipelineScheduler{BatchQueue, VirtualEngines} {
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Replay{Times: make([]float64, tc.r)}, Lengths: workload.Fixed{Input: 100, Output: out}},
				Server:   Pipeline{Engine: stepEngine(step, 64), Stages: tc.k, ActivationLink: free, Scheduler: s}, Requests: tc.r, Seed: 1,
			})
			require.NoError(t, err)
			require.Equal(t, tc.r, res.Completed)
			lag, wantBusy := 0.0, 1/float64(tc.k) // v1: one batch
			if s == VirtualEngines {
				lag, wantBusy = step/float64(tc.k), float64(tc.r*out)/float64(tc.k*out+tc.r-1)
			}
			for i, r := range res.Requests {
				assert.InDelta(t, out*step+float64(i)*lag, r.Done, 1e-12, "%s k=%d r=%d", s, tc.k, tc.r)
			}
			busy, _ := res.Stat("busy_fraction")
			assert.InDelta(t, wantBusy, busy, 1e-9, "%s k=%d r=%d busy", s, tc.k, tc.r)
		}
	}
}

// TestPipelineActivationHop: an isolated micro-batch crosses k−1 links,
// each α + tokens·hidden/TP·act_bytes/B.
func TestPipelineActivationHop(t *testing.T) {
	const step = 0.010
	link := topology.Link{Name: "x", Bandwidth: 1e9, Latency: 1e-4}
	c := stepEngine(step, 1)
	c.Deployment.Model = cost.ModelSpec{Hidden: 4096, ActBytes: 2}
	c.Deployment.TP = 2
	got := makespan(t, Pipeline{Engine: c, Stages: 4, ActivationLink: link}, 1)
	hop := 1e-4 + 100*4096/2*2/1e9
	assert.InDelta(t, step+3*hop, got, 1e-12)
}

// TestPipelineMemory: a 70B model that does not fit one H100 at TP 1
// fits in four stages, each holding a quarter of the layers, and the
// stage's KV pool is split over the virtual engines.
func TestPipelineMemory(t *testing.T) {
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	c := Defaults(m, g)
	require.Error(t, c.Validate())
	p := Pipeline{Engine: c, Stages: 4, Scheduler: VirtualEngines}
	require.NoError(t, p.Validate())
	st, err := p.Stage()
	require.NoError(t, err)
	assert.Equal(t, 20, st.Deployment.Model.Layers)
	whole := st
	whole.KVBlocks = 0
	wp, err := whole.Pool()
	require.NoError(t, err)
	vp, err := st.Pool()
	require.NoError(t, err)
	assert.Equal(t, wp.Blocks/4, vp.Blocks)
	// v1's batch queue: one scheduler over the stage's whole pool.
	v1, err := Pipeline{Engine: c, Stages: 4}.Stage()
	require.NoError(t, err)
	assert.Zero(t, v1.KVBlocks)
	// The stage's weights are a quarter of the layers' plus the whole
	// embedding and LM head (untied: two vocab × hidden matrices).
	embed := 2 * float64(m.Vocab) * float64(m.Hidden) * m.WeightBytes / m.WeightBytesTotal()
	frac := st.Deployment.WeightBytesPerRank() / c.Deployment.WeightBytesPerRank()
	assert.InDelta(t, 0.25+0.75*embed, frac, 1e-3)
	assert.Equal(t, 4, p.GPUs())
}

func TestPipelineValidate(t *testing.T) {
	c := stepEngine(0.01, 1)
	for _, tc := range []struct {
		p    Pipeline
		want string
	}{
		{Pipeline{Engine: c, Stages: 0}, "pipeline_parallel_size: 0 must be in [1, 64]"},
		{Pipeline{Engine: c, Stages: 65}, "pipeline_parallel_size: 65 must be in [1, 64]"},
		{Pipeline{Engine: c, Stages: 2, ActivationLink: topology.Link{Name: "bad", Bandwidth: math.NaN()}}, `activation_link.bandwidth_bytes_per_s: NaN must be a finite number > 0 (link "bad")`},
		{Pipeline{Engine: c, Stages: 2, Scheduler: "v2"}, `pipeline_scheduler: v2 must be "v1"`},
		{Pipeline{Engine: withOffload(c), Stages: 2}, "kv_offload: 4 with pipeline_parallel_size 2 is not modelled: the offload store serves the prefix cache"},
	} {
		err := tc.p.Validate()
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// withOffload returns c with a 4 GiB host store turned on.
func withOffload(c Config) Config {
	c.KVOffload = &KVOffload{Size: 4}
	return c
}

// TestPipelineReplicas: two pipelines of k stages behind the
// least-outstanding router split m simultaneous single-step requests
// evenly, so they finish in (m/2 + k − 1) stage times, the bubble
// identity of one pipeline fed m/2; busy_fraction is a stage's, over the
// pipelines: (m/2)/(m/2 + k − 1).
func TestPipelineReplicas(t *testing.T) {
	const step = 0.012
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, sc := range schedulers(step) {
		for _, tc := range []struct{ k, m int }{{2, 8}, {4, 6}, {3, 2}} {
			for _, router := range []Router{"", RoundRobin} {
				p := Pipeline{Engine: sc.e, Stages: tc.k, ActivationLink: free, Replicas: 2, Router: router, Scheduler: sc.s}
				assert.Equal(t, 2*tc.k, p.GPUs())
				end, busy := makespanBusy(t, p, tc.m)
				half := float64(tc.m / 2)
				assert.InDelta(t, (half+float64(tc.k)-1)*step/float64(tc.k), end, 1e-12, "%s k=%d m=%d %s", sc.s, tc.k, tc.m, router)
				assert.InDelta(t, half/(half+float64(tc.k)-1), busy, 1e-9, "%s k=%d m=%d busy", sc.s, tc.k, tc.m)
			}
		}
	}
	bad := Pipeline{Engine: stepEngine(step, 1), Stages: 2, Replicas: -1}
	require.ErrorContains(t, bad.Validate(), "pipeline_replicas: -1 must be in [0, 1024]")
	bad = Pipeline{Engine: stepEngine(step, 1), Stages: 2, Router: PrefixAware}
	require.ErrorContains(t, bad.Validate(), `pipeline_router: prefix-aware must be`)
}

// TestBatchQueueStress runs the batch queue on a small KV pool under a
// Poisson load (preemptions, chunked and whole prefills, prompts longer
// than the budget): every request ends, and no token leaves less than
// one whole-model step (k stage times, the link free) after the
// request's previous one, since a request's next step is formed only
// when its last batch has returned.
func TestBatchQueueStress(t *testing.T) {
	const step = 0.01
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, k := range []int{2, 3} {
		for _, chunked := range []bool{true, false} {
			e := stepEngine(step, 16)
			e.KVBlocks, e.MaxNumBatchedTokens, e.EnableChunkedPrefill = 48, 256, chunked
			e.StepTime = func(b cost.Batch) float64 { return step * (1 + float64(b.Tokens())/1e4) }
			lengths := workload.Random{InputLen: 150, OutputLen: 60, RangeRatio: 0.8}
			if !chunked {
				lengths.InputLen = 100
			}
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 30}, Lengths: lengths},
				Server:   Pipeline{Engine: e, Stages: k, ActivationLink: free}, Requests: 400, Seed: 3,
			})
			require.NoError(t, err)
			assert.Equal(t, 400, res.Completed+res.Rejected, "k=%d chunked=%v", k, chunked)
			pre, _ := res.Stat("preemptions")
			assert.Positive(t, pre, "k=%d chunked=%v: the pool should force preemptions", k, chunked)
			assert.GreaterOrEqual(t, res.ITL().Min(), step-1e-12, "k=%d chunked=%v", k, chunked)
		}
	}
}

// BenchmarkPipelineSchedulers runs llama-3.1-70b at TP 2 × PP 4 under a
// Poisson load with each scheduler and reports simulated requests per
// second of wall time (measure on an idle machine).
func BenchmarkPipelineSchedulers(b *testing.B) {
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(b, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(b, err)
	e := Defaults(m, g)
	e.Deployment.TP, e.MaxModelLen = 2, 8192
	for _, s := range []PipelineScheduler{BatchQueue, VirtualEngines} {
		b.Run(string(s), func(b *testing.B) {
			const n = 2000
			cfg := sim.Config{
				Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 8}, Lengths: workload.Random{InputLen: 1000, OutputLen: 200, RangeRatio: 0.5}},
				Server:   Pipeline{Engine: e, Stages: 4, Scheduler: s}, Requests: n, Seed: 1,
			}
			for b.Loop() {
				_, err := sim.Run(cfg)
				require.NoError(b, err)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// TestBatchQueueLanes: under v1's batch queue a request that arrives
// while a batch is in flight (and the queue has room) starts a batch of
// its own, which enters the first stage when that stage frees: with k
// stages, request j sent at j·step/(2k) for j < k fills lane j, ends at
// out·step + j·step/k, and the stages are busy k·out/(k·out + k − 1).
func TestBatchQueueLanes(t *testing.T) {
	const step, out = 0.012, 10
	free := topology.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, k := range []int{2, 3, 4} {
		times := make([]float64, k)
		for j := range times {
			times[j] = float64(j) * step / float64(2*k)
		}
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Replay{Times: times}, Lengths: workload.Fixed{Input: 100, Output: out}},
			Server:   Pipeline{Engine: stepEngine(step, 64), Stages: k, ActivationLink: free}, Requests: k, Seed: 1,
		})
		require.NoError(t, err)
		require.Equal(t, k, res.Completed)
		for j, r := range res.Requests {
			assert.InDelta(t, out*step+float64(j)*step/float64(k), r.Done, 1e-12, "k=%d request %d", k, j)
		}
		busy, _ := res.Stat("busy_fraction")
		assert.InDelta(t, float64(k*out)/float64(k*out+k-1), busy, 1e-9, "k=%d", k)
	}
}
