package batching

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func qwen4090(t testing.TB) Config {
	t.Helper()
	m, err := cost.Model("qwen2.5-7b")
	require.NoError(t, err)
	g, err := cost.GPU("rtx4090")
	require.NoError(t, err)
	c := Defaults(m, g)
	c.Deployment.KVCacheMemory = 6.41 * cost.GiB
	return c
}

// checked wraps a Config or Cluster so that every engine it builds
// verifies its invariants every `every` steps (0: never), single-steps
// (every step's end an event, no fast-forward) when single is set, and is
// appended to engines, so that the test can read it.
type checked struct {
	sim.ServerConfig
	t       *testing.T
	engines *[]*engine
	every   int64
	single  bool
}

func (c checked) NewServer(env *sim.Env) (sim.Server, error) {
	srv, err := c.ServerConfig.NewServer(env)
	if err != nil {
		return nil, err
	}
	var es []*engine
	switch v := srv.(type) {
	case *engine:
		es = []*engine{v}
	case *cluster:
		es = v.engines
	case *dataParallel:
		es = v.groups
	case *dpCluster:
		es = v.groups
	}
	for _, e := range es {
		e.singleStep = c.single
		if c.every > 0 {
			e.check = func() {
				if e.step%c.every == 0 {
					e.verify(c.t)
				}
			}
		}
	}
	*c.engines = append(*c.engines, es...)
	return srv, nil
}

// verify recomputes the engine's aggregate state from its running list and
// compares: KV blocks in use, decoders, Σ context, phase classes; the pool
// is never exceeded; and the engine is busy whenever it holds work
// (work-conserving).
func (e *engine) verify(t *testing.T) {
	used, dec, measured := 0, 0, 0
	var kv int64
	phase := make([]int, len(e.phase))
	n := 0
	// With prefix caching, blocks in use are each request's anonymous
	// blocks plus the distinct cached blocks held (shared ones once);
	// the O(pool) recount of holders runs every 256 steps.
	full := e.cache != nil && (e.step%256 == 0 || e.running == 0)
	var refs map[int32]int32
	if full {
		refs = map[int32]int32{}
	}
	held := func(c int, q *seq) int {
		if e.cache == nil {
			return e.blocks(c)
		}
		if len(q.ents) > c/e.cfg.BlockSize {
			t.Fatalf("request %d holds %d cached blocks, more than its %d full blocks", q.req.ID, len(q.ents), c/e.cfg.BlockSize)
		}
		if full {
			for _, id := range q.ents {
				refs[id]++
			}
		}
		return e.blocks(c) - len(q.ents) // anonymous
	}
	for q := e.head; q != nil; q = q.next {
		n++
		if q.decoding {
			c := q.computedAt(e.step)
			used += held(c, q)
			dec++
			kv += int64(c)
			phase[e.phaseOf(q)]++
			if !q.req.Warmup {
				measured++
			}
			g := q.generated + int(e.step-q.joinStep) // tokens emitted so far
			// Plain comparisons, not testify: verify runs at every step,
			// and each require call costs a stack walk (t.Helper).
			if c != q.req.Input+g-1 {
				t.Fatalf("request %d: decoder computed = L+g−1: computed %d, L %d, g %d", q.req.ID, c, q.req.Input, g)
			}
			if g >= q.req.Output {
				t.Fatalf("request %d: a decoder still owes tokens: %d emitted of %d", q.req.ID, g, q.req.Output)
			}
			if want, got := q.joinStep+int64(q.req.Output-q.generated), q.finKey+e.finish.delay; got != want {
				t.Fatalf("request %d: finish step %d, want %d", q.req.ID, got, want)
			}
		} else {
			used += held(q.computed, q)
		}
	}
	if e.off != nil { // requests holding blocks before admission (KV offloading)
		used += e.off.verify(t, held) + e.verifyWaiting(t, held)
	}
	if e.cache != nil && e.cache.used != e.usedBlocks {
		t.Fatalf("cache holds %d blocks, engine counts %d", e.cache.used, e.usedBlocks)
	}
	if full {
		used += len(refs) // each shared block once
		for id, r := range refs {
			if r != e.cache.ents[id].ref {
				t.Fatalf("cached block %d: %d holders, counted %d", id, r, e.cache.ents[id].ref)
			}
		}
		e.cache.verify(t)
	}
	switch {
	case e.running != n:
		t.Fatalf("running count %d, running list holds %d", e.running, n)
	case (e.cache == nil || full) && e.usedBlocks != used:
		t.Fatalf("blocks in use: engine counts %d, running list holds %d", e.usedBlocks, used)
	case e.usedBlocks > e.cfg.pool.Blocks:
		t.Fatalf("pool exceeded: %d blocks in use of %d", e.usedBlocks, e.cfg.pool.Blocks)
	case e.decoders != dec:
		t.Fatalf("decoders: engine counts %d, running list holds %d", e.decoders, dec)
	case e.finish.Len() != dec:
		t.Fatalf("finish queue holds the decoders: %d queued, %d decoders", e.finish.Len(), dec)
	case e.measuredDec != measured:
		t.Fatalf("measured decoders: engine counts %d, running list holds %d", e.measuredDec, measured)
	case e.kvSum != kv:
		t.Fatalf("Σ context of the decoders: engine counts %d, running list holds %d", e.kvSum, kv)
	case !slices.Equal(e.phase, phase):
		t.Fatalf("phase classes: engine counts %v, running list holds %v", e.phase, phase)
	case (e.waiting.Len() > 0 || e.running > 0) && !e.busy:
		t.Fatalf("work-conserving: %d waiting, %d running, idle", e.waiting.Len(), e.running)
	case !e.cfg.EnableChunkedPrefill && len(e.chunks) > 0 && e.stepDecodes != 0:
		t.Fatalf("prefill-first: prefill steps run alone, but this one has %d decodes", e.stepDecodes)
	}
}

type scenario struct {
	name string
	cfg  sim.Config
}

func scenarios(t *testing.T) []scenario {
	base := qwen4090(t)
	tiny := base
	tiny.Deployment.KVCacheMemory = 0
	tiny.KVBlocks = 300 // 4800 tokens: forces preemption
	tiny.MaxNumBatchedTokens = 512
	nochunk := base
	nochunk.EnableChunkedPrefill = false
	nochunk.MaxNumBatchedTokens = 8192
	overhead := base
	overhead.RequestOverhead = 0.005
	small := base
	small.BlockSize = 1
	tinyNochunk := tiny
	tinyNochunk.EnableChunkedPrefill = false
	tinyNochunk.MaxNumBatchedTokens = 4096
	lengths := workload.LogNormal{InputMedian: 800, InputSigma: 0.8, OutputMedian: 150, OutputSigma: 0.7, Correlation: 0.2, InputMax: 4000, OutputMax: 1000}
	return []scenario{
		{"closed chunked", sim.Config{Workload: workload.Workload{Clients: 24, Lengths: lengths}, Server: base, Requests: 400, Warmup: 20, Seed: 1}},
		{"open poisson", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 4}, Lengths: lengths}, Server: base, Requests: 500, Warmup: 20, Seed: 2}},
		{"open bursty capped", sim.Config{Workload: workload.Workload{Arrivals: workload.Gamma{Rate: 6, Burstiness: 0.3}, MaxConcurrency: 40, Lengths: lengths}, Server: base, Requests: 500, Seed: 3}},
		{"tiny pool preempts", sim.Config{Workload: workload.Workload{Clients: 16, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}, Server: tiny, Requests: 300, Warmup: 10, Seed: 4}},
		{"no chunked prefill", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 5}, Lengths: lengths}, Server: nochunk, Requests: 400, Seed: 5}},
		{"request overhead", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 3}, Lengths: lengths}, Server: overhead, Requests: 300, Seed: 6}},
		{"block size 1", sim.Config{Workload: workload.Workload{Clients: 8, Lengths: lengths}, Server: small, Requests: 200, Seed: 7}},
		{"rate inf", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: math.Inf(1)}, Lengths: lengths}, Server: base, Requests: 300, Seed: 8}},
		// Shared prefixes: blocks held by several requests, hits on blocks
		// being evicted, preempted requests re-hitting their own blocks.
		{"shared prefix tiny pool", sim.Config{Workload: workload.Workload{Clients: 16, Lengths: workload.SharedPrefix{Tokens: 700, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}}, Server: tiny, Requests: 150, Seed: 9}},
		{"prefix repetition", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 8}, Lengths: workload.PrefixRepetition{PrefixLen: 900, SuffixLen: 200, NumPrefixes: 5, OutputLen: 100}}, Server: base, Requests: 400, Seed: 10}},
		{"sessions", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Random{InputLen: 200, OutputLen: 150, RangeRatio: 0.8},
			Sessions: &workload.Sessions{Turns: distribution.Uniform{Min: 1, Max: 8}, Think: distribution.Exponential{Rate: 0.5}, SystemPrompt: 300}}, Server: base, Requests: 400, Seed: 11}},
		{"sessions tiny pool no chunking", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 2}, Lengths: workload.Random{InputLen: 100, OutputLen: 100, RangeRatio: 0.5},
			Sessions: &workload.Sessions{Turns: distribution.Uniform{Min: 2, Max: 6}, SystemPrompt: 50}}, Server: tinyNochunk, Requests: 300, Seed: 12}},
		{"trace blocks unaligned", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 6}, Lengths: traceBlocks(50, 24)}, Server: small, Requests: 300, Seed: 13}},
	}
}

// traceBlocks is a synthetic trace of n rows with hash ids of size-token
// blocks: rows share 0 to 8 leading blocks of one of three roots, so that
// engine blocks of another size straddle trace blocks.
func traceBlocks(n, size int) workload.Sequence {
	s := workload.Sequence{BlockSize: size}
	for i := range n {
		shared := i % 9
		in := size*(shared+2) + i%size
		ids := make([]int64, 0, shared+3)
		for b := range shared {
			ids = append(ids, int64(1000*(i%3)+b))
		}
		for b := shared; b*size < in; b++ {
			ids = append(ids, int64(1_000_000+i*100+b))
		}
		s.Pairs = append(s.Pairs, workload.Pair{Input: in, Output: 1 + i%40})
		s.Blocks = append(s.Blocks, ids)
	}
	return s
}

// TestInvariants: conservation, causality, E2E = TTFT + (O−1)·TPOT, KV
// blocks never above the pool and all back when the run drains, aggregate
// state equal to a recomputation, work conservation, monotone step clock.
func TestInvariants(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			var engines []*engine
			cfg := sc.cfg
			cfg.Server = checked{ServerConfig: cfg.Server, t: t, engines: &engines, every: 1}
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			require.Len(t, engines, 1)
			e := engines[0]
			assert.Zero(t, e.usedBlocks, "blocks returned to the pool")
			assert.Zero(t, e.running)
			assert.Zero(t, e.waiting.Len())
			assert.False(t, e.busy)
			assert.Equal(t, cfg.Requests, res.Injected)
			assert.Equal(t, res.Measured, res.Completed+res.Rejected)
			for _, r := range res.Requests {
				require.Equal(t, metrics.Completed, r.Status, "request %d", r.ID)
				require.LessOrEqual(t, r.Arrival, r.Sent)
				require.Less(t, r.Sent, r.Start+1e-12)
				require.Less(t, r.Start, r.FirstToken)
				require.LessOrEqual(t, r.FirstToken, r.Done)
				if tpot, ok := r.TPOT(); ok {
					require.InDelta(t, r.E2E(), r.TTFT()+float64(r.Output-1)*tpot, 1e-9)
				}
			}
			var out int64
			for _, r := range res.Requests {
				if !r.Warmup {
					out += int64(r.Output)
				}
			}
			// One ITL per token after the first, for measured requests, and
			// a request's gaps add up to its decode time: Σ ITL =
			// Σ (Done − FirstToken), preemptions and pauses included.
			assert.Equal(t, int(out)-res.Completed, res.ITL().Count())
			var decode float64
			for _, r := range res.Requests {
				if !r.Warmup {
					decode += r.Done - r.FirstToken
				}
			}
			itl := res.ITL()
			assert.InDelta(t, decode, itl.Mean()*float64(itl.Count()), 1e-9*decode+1e-9, "Σ ITL")
			pre, _ := res.Stat("preemptions")
			if strings.Contains(sc.name, "tiny pool") {
				assert.Greater(t, pre, 10.0, "a tiny pool must preempt")
			}
			if hits, _ := res.Stat("prefix_cache_hits"); strings.Contains(sc.name, "prefix") || strings.Contains(sc.name, "sessions") || strings.Contains(sc.name, "trace") {
				assert.Positive(t, hits, "shared prefixes hit")
			}
			if cfg.Workload.Arrivals != nil {
				assert.Equal(t, res.Measured, res.Completed)
			}
		})
	}
}

// TestReducesToFCFS: with max_num_seqs 1 and a step time that does not
// depend on the batch, the engine is FCFS(1) with service time
// (prefill steps + O − 1)·τ: start and completion times equal the Lindley
// recursion request by request.
func TestReducesToFCFS(t *testing.T) {
	const tau = 0.01
	cfg := Config{
		Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: 1, MaxNumBatchedTokens: 1000, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 10_000, StepTime: func(cost.Batch) float64 { return tau },
	}
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 3}, Lengths: workload.Random{InputLen: 1500, OutputLen: 20, RangeRatio: 0.9}},
		Server:   cfg, Requests: 20_000, Seed: 3,
	})
	require.NoError(t, err)
	var f float64
	for i, r := range res.Requests {
		prefillSteps := max(1, (r.Input+999)/1000)
		b := math.Max(r.Arrival, f)
		f = b + float64(prefillSteps+r.Output-1)*tau
		require.InDelta(t, b, r.Start, 1e-9, "start of request %d", i)
		require.InDelta(t, b+float64(prefillSteps)*tau, r.FirstToken, 1e-9, "first token of request %d", i)
		require.InDelta(t, f, r.Done, 1e-9, "completion of request %d", i)
	}
}

// TestITLAtConcurrencyOne: alone, a request's every inter-token latency is
// the cost model's decode step at its context.
func TestITLAtConcurrencyOne(t *testing.T) {
	cfg := qwen4090(t)
	const in, out, n = 512, 64, 5
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: in, Output: out}},
		Server:   cfg, Requests: n, Seed: 1,
	})
	require.NoError(t, err)
	sm, err := cfg.Deployment.Compile()
	require.NoError(t, err)
	var want []float64
	for range n {
		for j := 1; j < out; j++ {
			want = append(want, sm.Step(cost.DecodeBatch(1, float64(in+j))).Time)
		}
	}
	slices.Sort(want)
	got := res.ITL().Values()
	slices.Sort(got)
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-12, "ITL %d", i)
	}
	// TTFT alone is the prefill step of 512 tokens after the profile's
	// frontend overhead.
	var prefill cost.Batch
	prefill.AddPrefill(in, 0)
	ttft := cfg.Deployment.FrontendOverhead() + sm.Step(prefill).Time
	assert.Positive(t, cfg.Deployment.FrontendOverhead())
	assert.InDelta(t, ttft, res.TTFT().Mean(), 1e-12)
}

// TestChunkedPrefillSplits: a prompt three budgets long takes three steps
// to its first token; without chunked prefill a prompt above the budget is
// rejected.
func TestChunkedPrefillSplits(t *testing.T) {
	const tau = 0.02
	cfg := Config{Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: 8, MaxNumBatchedTokens: 1000, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 1000, StepTime: func(cost.Batch) float64 { return tau }}
	run := func(c Config) *sim.Result {
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 3000, Output: 5}}, Server: c, Requests: 3, Seed: 1})
		require.NoError(t, err)
		return res
	}
	res := run(cfg)
	assert.InDelta(t, 3*tau, res.TTFT().Mean(), 1e-12)
	assert.InDelta(t, 7*tau, res.E2E().Mean(), 1e-12)
	cfg.EnableChunkedPrefill = false
	res = run(cfg)
	assert.Equal(t, 3, res.Rejected)
	assert.Zero(t, res.Completed)
}

// TestPromptLargerThanPool: a request whose KV footprint exceeds the whole
// pool fails alone, at once; the others complete.
func TestPromptLargerThanPool(t *testing.T) {
	cfg := qwen4090(t)
	pool, err := cfg.Pool()
	require.NoError(t, err)
	pairs := []workload.Pair{{Input: 1000, Output: 100}, {Input: pool.Tokens + 1, Output: 10}, {Input: 2000, Output: 50}}
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Constant{Rate: 1}, Lengths: workload.Sequence{Pairs: pairs}},
		Server:   cfg, Requests: 3, Seed: 1,
	})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Completed)
	assert.Equal(t, 1, res.Rejected)
	assert.Equal(t, metrics.Rejected, res.Requests[1].Status)
	assert.Equal(t, res.Requests[1].Sent, res.Requests[1].Done)
	rej, _ := res.Stat("engine_rejected")
	assert.Equal(t, 1.0, rej)
}

func TestPreemptedRequestsAllComplete(t *testing.T) {
	cfg := qwen4090(t)
	cfg.Deployment.KVCacheMemory = 0
	cfg.KVBlocks = 200 // 3200 tokens
	cfg.MaxNumBatchedTokens = 256
	cfg.MaxNumSeqs = 64
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 20}, Lengths: workload.Fixed{Input: 200, Output: 800}},
		Server:   cfg, Requests: 200, Seed: 9,
	})
	require.NoError(t, err)
	assert.Equal(t, 200, res.Completed)
	pre, _ := res.Stat("preemptions")
	assert.Greater(t, pre, 50.0)
	maxKV, _ := res.Stat("max_kv_cache_usage")
	assert.LessOrEqual(t, maxKV, 1.0)
	assert.Greater(t, maxKV, 0.95)
}

func TestCluster(t *testing.T) {
	for _, router := range []Router{RoundRobin, LeastOutstanding, PrefixAware} {
		t.Run(string(router), func(t *testing.T) {
			cl := Cluster{Engine: qwen4090(t), Replicas: 3, Router: router}
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 6}, Lengths: workload.Fixed{Input: 500, Output: 100}},
				Server:   cl, Requests: 600, Seed: 2,
			})
			require.NoError(t, err)
			assert.Equal(t, 600, res.Completed)
			assert.Equal(t, 3, res.GPUs)
			reps, _ := res.Stat("replicas")
			assert.Equal(t, 3.0, reps)
			var steps []float64
			for i := range 3 {
				s, ok := res.Stat("replica" + string(rune('0'+i)) + "_steps")
				require.True(t, ok)
				steps = append(steps, s)
			}
			// Balanced load: every replica works a similar number of steps.
			assert.InDelta(t, steps[0], steps[1], 0.25*steps[0])
			assert.InDelta(t, steps[0], steps[2], 0.25*steps[0])
		})
	}
	bad := Cluster{Engine: qwen4090(t), Replicas: 0, Router: RoundRobin}
	assert.ErrorContains(t, bad.Validate(), "replicas: 0")
	bad = Cluster{Engine: qwen4090(t), Replicas: 2, Router: "random"}
	assert.ErrorContains(t, bad.Validate(), `router: "random"`)
	bad = Cluster{Engine: qwen4090(t), Replicas: 2, Router: PrefixAware, PrefixWeight: -1}
	assert.ErrorContains(t, bad.Validate(), "prefix_weight: -1")
}

func TestBadConfig(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		field  string // the fielderr.Error's Field
		want   string
	}{
		{"zero budget", func(c *Config) { c.MaxNumBatchedTokens = 0 }, "max_num_batched_tokens", "max_num_batched_tokens: 0 must be >= 1"},
		{"budget below seqs", func(c *Config) { c.MaxNumBatchedTokens = 100 }, "max_num_batched_tokens", "max_num_batched_tokens: 100 must be >= max_num_seqs 256"},
		{"zero seqs", func(c *Config) { c.MaxNumSeqs = 0 }, "max_num_seqs", "max_num_seqs: 0 must be >= 1"},
		{"block size 0", func(c *Config) { c.BlockSize = 0 }, "block_size", "block_size: 0"},
		{"tp 0", func(c *Config) { c.Deployment.TP = 0 }, "deployment.tp", `deployment.tp: 0 must be >= 1`},
		{"tp 0 without a cost model", func(c *Config) {
			c.Deployment.TP, c.KVBlocks, c.StepTime = 0, 1000, func(cost.Batch) float64 { return 1 }
		}, "deployment.tp", "deployment.tp: 0 must be >= 1"},
		{"tp not dividing heads", func(c *Config) { c.Deployment.TP = 8 }, "deployment.tp", `deployment.tp: 8 must divide heads 28 of model "qwen2.5-7b"`},
		{"kv memory too small", func(c *Config) { c.Deployment.KVCacheMemory = 1 << 20 }, "max_num_batched_tokens", "max_num_batched_tokens: 2048 exceeds the KV pool's 16 tokens (1 blocks of 16; kv_cache_memory 1.048576e+06 bytes, gpu_memory_utilization 0.9)"},
		{"kv memory NaN", func(c *Config) { c.Deployment.KVCacheMemory = math.NaN() }, "deployment.kv_cache_memory", "deployment.kv_cache_memory: NaN must be a finite number of bytes >= 0"},
		{"memory utilization", func(c *Config) {
			c.Deployment.KVCacheMemory = 0
			c.Deployment.GPUMemoryUtilization = 1.5
		}, "deployment.gpu_memory_utilization", "deployment.gpu_memory_utilization: 1.5 must be in (0, 1]"},
		{"weights do not fit", func(c *Config) {
			c.Deployment.KVCacheMemory = 0
			c.Deployment.GPUMemoryUtilization = 0.5
		}, "deployment", "cost: qwen2.5-7b on 1×rtx4090 does not fit: weights"},
		{"overhead", func(c *Config) { c.RequestOverhead = -1 }, "request_overhead", "request_overhead: -1"},
		{"max model len", func(c *Config) { c.MaxModelLen = 1 << 20 }, "max_model_len", "max_model_len: 1048576 exceeds the KV pool's 120016 tokens"},
		{"model invalid", func(c *Config) { c.Deployment.Model.Layers = 0 }, "deployment.model.layers", `deployment.model.layers: 0 must be >= 1`},
		{"no chunking, short budget", func(c *Config) { c.EnableChunkedPrefill = false; c.MaxModelLen = 4096 }, "max_num_batched_tokens", "max_num_batched_tokens: 2048 must be >= max_model_len 4096"},
		{"max model len is the context", func(c *Config) { c.MaxModelLen = c.Deployment.Model.MaxContext }, "max_model_len",
			"max_model_len: 131072 (qwen2.5-7b's context length, vLLM's default) exceeds the KV pool's 120016 tokens: one request that long would not fit, and vLLM refuses to start; lower it to <= 120016"},
		{"kv blocks overflow", func(c *Config) { c.KVBlocks = math.MaxInt / 4 }, "kv_blocks", "kv_blocks: 2305843009213693951 exceeds 2147483647 (MaxKVBlocks"},
		{"kv blocks 2^31", func(c *Config) { c.KVBlocks = 1 << 31 }, "kv_blocks", "kv_blocks: 2147483648 exceeds 2147483647"},
		{"kv memory far beyond the card", func(c *Config) { c.Deployment.KVCacheMemory = 1e30 }, "deployment.kv_cache_memory", "exceed the GPU's 24.0 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := qwen4090(t)
			tt.mutate(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			assert.Contains(t, err.Error(), tt.want)
			if fe := fielderr.Of(err); assert.NotNil(t, fe) {
				assert.Equal(t, tt.field, fe.Field)
			}
			_, err = sim.Run(sim.Config{Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 1, Output: 1}}, Server: cfg, Requests: 1})
			require.Error(t, err)
			assert.True(t, errors.Is(err, sim.ErrInvalidConfig))
		})
	}
}

// TestEmptyPromptRejected: a request without a prompt is rejected on
// arrival, as vLLM answers it with an error, instead of a step of no work.
func TestEmptyPromptRejected(t *testing.T) {
	res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 2, Lengths: workload.Fixed{Input: 0, Output: 4}}, Server: qwen4090(t), Requests: 6})
	require.NoError(t, err)
	assert.Equal(t, 6, res.Rejected)
	assert.Equal(t, 0, res.Completed)
}

// TestBadStepTime: a StepTime that returns an impossible value aborts the
// run with an error instead of producing numbers.
func TestBadStepTime(t *testing.T) {
	cfg := Config{Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: 4, MaxNumBatchedTokens: 100, EnableChunkedPrefill: true, BlockSize: 16, KVBlocks: 100,
		StepTime: func(cost.Batch) float64 { return math.NaN() }}
	_, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 10, Output: 10}}, Server: cfg, Requests: 5})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "step time NaN")
}

func TestDeterministic(t *testing.T) {
	sc := scenarios(t)[3]
	a, err := sim.Run(sc.cfg)
	require.NoError(t, err)
	b, err := sim.Run(sc.cfg)
	require.NoError(t, err)
	assert.Equal(t, a.Requests, b.Requests)
	assert.Equal(t, a.Server, b.Server)
}

var _ = distribution.Exponential{}

// TestTinyRunJSON: a ten-request run, whose backlog batch means can have
// no scatter at all, still marshals to JSON (the stability verdict keeps
// its numbers finite).
func TestTinyRunJSON(t *testing.T) {
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	for seed := range uint64(20) {
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 20}, Lengths: workload.Fixed{Input: 1024, Output: 128}},
			Server:   Defaults(m, g), Requests: 10, Seed: seed,
		})
		require.NoError(t, err)
		_, err = json.Marshal(res)
		require.NoError(t, err, "seed %d: %+v", seed, res.Stability)
	}
}

// TestCountersSeries: the engine's time series is bounded, in time order,
// and consistent with its run averages (KV usage never above 1).
func TestCountersSeries(t *testing.T) {
	res, err := sim.Run(scenarios(t)[3].cfg) // tiny pool, preemptions
	require.NoError(t, err)
	require.Len(t, res.Series, 1)
	s := res.Series[0]
	assert.Equal(t, []string{"running", "waiting", "kv_cache_usage", "tokens_per_step", "preemptions"}, s.Names)
	require.NotEmpty(t, s.Times)
	assert.LessOrEqual(t, len(s.Times), metrics.MaxSeriesPoints)
	maxKV, _ := res.Stat("max_kv_cache_usage")
	pre, _ := res.Stat("preemptions")
	for i, v := range s.Values {
		if i > 0 {
			require.Less(t, s.Times[i-1], s.Times[i])
			require.GreaterOrEqual(t, v[4], s.Values[i-1][4], "preemptions only grow")
		}
		require.LessOrEqual(t, v[2], maxKV)
		require.LessOrEqual(t, v[4], pre)
	}
}
