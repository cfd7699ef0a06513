package batching

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// offloadModel is the deployment of the offloading tests: Qwen2.5-7B on
// an H100 (28 layers, 4 KV heads of 128 in bf16: 57,344 KV bytes a token,
// 917,504 a 16-token block) with a KV pool of blocks blocks, priced by
// stepTime.
func offloadModel(t testing.TB, blocks int, off *KVOffload) Config {
	t.Helper()
	m, err := cost.Model("qwen2.5-7b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	const perBlock = 16 * 57344
	c := Config{
		Deployment: cost.Deployment{Model: m, GPU: g, TP: 1, KVCacheMemory: (float64(blocks) + 0.5) * perBlock},
		StepTime:   stepTime, MaxNumSeqs: 64, MaxNumBatchedTokens: 128, EnableChunkedPrefill: true,
		BlockSize: 16, EnablePrefixCaching: true, KVOffload: off,
	}
	p, err := c.Pool()
	require.NoError(t, err)
	require.Equal(t, blocks, p.Blocks, "pool blocks")
	require.Equal(t, 57344.0, p.BytesPerToken, "KV bytes per token")
	return c
}

// threeRequests is the trace of the deterministic checks: A (t = 0) and B
// (t = tB) send the same 64 tokens (four 16-token blocks, hash ids 1–4)
// and one token of their own; C (t = 1) sends 113 tokens of its own, which
// take the whole 8-block pool and evict A's cached blocks from the GPU.
func threeRequests(tB float64) sim.Config {
	tr := workload.Trace{BlockSize: 16, Rows: []workload.TraceRow{
		{Time: 0, Input: 65, Output: 1, HashIDs: []int64{1, 2, 3, 4}},
		{Time: 1, Input: 113, Output: 1},
		{Time: tB, Input: 65, Output: 1, HashIDs: []int64{1, 2, 3, 4}},
	}}
	return sim.Config{Workload: tr.Workload(1), Requests: 3, Seed: 1}
}

func runOffload(t *testing.T, cfg sim.Config, server Config) *sim.Result {
	t.Helper()
	cfg.Server = server
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	require.Equal(t, cfg.Requests, res.Completed)
	return res
}

// TestOffloadSecondRequestLoads: B finds its 64-token prefix evicted from
// the GPU but stored on the host by A, so it waits for the load of 4
// blocks, Latency + 4·917,504 B / Bandwidth, then prefills its one last
// token after 64 of context. Hand-computed from stepTime (2 ms + 10 µs a
// prompt token + 2 ns a query-key pair): TTFT = load + 2 ms + 10 µs +
// 2 ns·(64 + 1). Without offloading B recomputes all 65 tokens. With the
// link half duplex, B arriving 1 ms after C's step ended waits for the
// rest of C's store (7 anonymous blocks) before its load starts.
func TestOffloadSecondRequestLoads(t *testing.T) {
	t.Parallel()
	const bw, lat, block = 1e9, 1e-4, 16 * 57344.0
	load := lat + 4*block/bw
	tail := 0.002 + 1e-5 + 2e-9*(64+1)
	full := 0.002 + 65e-5 + 2e-9*65*66/2
	stepC := 0.002 + 113e-5 + 2e-9*113*114/2
	storeC := lat + 7*block/bw
	tB := 1 + stepC + 0.001
	cases := []struct {
		name   string
		off    *KVOffload
		ttft   float64
		stored float64 // engine blocks copied to the host
	}{
		{"off", nil, full, 0},
		{"duplex", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat}, load + tail, 11},
		{"half duplex", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat, HalfDuplex: true}, (1 + stepC + storeC - tB) + load + tail, 11},
		// Host blocks of 2 and 4 engine blocks: A's 64 tokens are 2 or 1
		// of them; C stores only its whole host blocks (6 or 4 of its 7).
		{"host blocks of 32", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat, BlockSize: 32}, load + tail, 10},
		{"host blocks of 64", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat, BlockSize: 64}, load + tail, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runOffload(t, threeRequests(tB), offloadModel(t, 8, tc.off))
			require.InDelta(t, full, res.Requests[0].TTFT(), 1e-12, "A computes its prompt")
			require.InDelta(t, stepC, res.Requests[1].TTFT(), 1e-12, "C computes its prompt")
			require.InDelta(t, tc.ttft, res.Requests[2].TTFT(), 1e-12, "B's TTFT")
			if tc.off == nil {
				return
			}
			assert.Equal(t, 1.0, stat(t, res, "kv_offload_loads"))
			assert.Equal(t, 4.0, stat(t, res, "kv_offload_loaded_blocks"))
			assert.Equal(t, 4*block, stat(t, res, "kv_offload_loaded_bytes"))
			assert.Equal(t, 64.0, stat(t, res, "kv_offload_hits"))
			assert.Equal(t, 0.0, stat(t, res, "prefix_cache_hits"), "no GPU hit")
			assert.InDelta(t, 64.0/(65+113+65), stat(t, res, "prefix_cache_total_hit_rate"), 1e-15)
			// Stored: A's 4 content blocks, C's 7 full blocks of its own;
			// B's are on the host already.
			assert.Equal(t, tc.stored, stat(t, res, "kv_offload_stored_blocks"))
			assert.InDelta(t, tc.ttft-tail, stat(t, res, "mean_kv_offload_load_wait"), 1e-12)
		})
	}
}

// meanTTFT is the run's mean time to first token, seconds.
func meanTTFT(res *sim.Result) float64 {
	var s float64
	for _, r := range res.Requests {
		s += r.TTFT()
	}
	return s / float64(len(res.Requests))
}

// withoutOffloadStats returns the run's counters but those offloading
// adds.
func withoutOffloadStats(res *sim.Result) map[string]float64 {
	out := map[string]float64{}
	for _, s := range res.Server {
		if !strings.HasPrefix(s.Name, "kv_offload") && !strings.HasPrefix(s.Name, "mean_kv_offload") &&
			!strings.HasPrefix(s.Name, "max_kv_offload") && s.Name != "prefix_cache_total_hit_rate" {
			out[s.Name] = s.Value
		}
	}
	return out
}

// TestOffloadNeutral: a host buffer too small for one block never stores
// or loads, and a GPU pool that never evicts never loads: either way the
// run is the run without offloading, request by request and counter by
// counter.
func TestOffloadNeutral(t *testing.T) {
	t.Parallel()
	cfg := threeRequests(2)
	cases := []struct {
		name   string
		blocks int
		size   float64
		stored float64
	}{
		{"no host room", 8, 0.5 * 16 * 57344 / (1 << 30), 0},
		{"GPU never evicts", 64, 1, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := runOffload(t, cfg, offloadModel(t, tc.blocks, nil))
			res := runOffload(t, cfg, offloadModel(t, tc.blocks, DefaultKVOffload(tc.size)))
			assert.Equal(t, base.Requests, res.Requests)
			assert.Equal(t, withoutOffloadStats(base), withoutOffloadStats(res))
			assert.Equal(t, 0.0, stat(t, res, "kv_offload_loads"))
			assert.Equal(t, tc.stored, stat(t, res, "kv_offload_stored_blocks"))
		})
	}
}

// TestOffloadValidate: each bad setting is a field error naming it.
func TestOffloadValidate(t *testing.T) {
	t.Parallel()
	good := *DefaultKVOffload(4)
	cases := []struct {
		name  string
		edit  func(c *Config)
		field string
	}{
		{"negative size", func(c *Config) { c.KVOffload.Size = -1 }, "kv_offload.kv_offloading_size"},
		{"unknown backend", func(c *Config) { c.KVOffload.Backend = "lmcache-mp" }, "kv_offload.kv_offloading_backend"},
		{"zero bandwidth", func(c *Config) { c.KVOffload.Bandwidth = 0 }, "kv_offload.pcie_bandwidth"},
		{"negative latency", func(c *Config) { c.KVOffload.Latency = -1e-6 }, "kv_offload.pcie_latency"},
		{"host block not whole engine blocks", func(c *Config) { c.KVOffload.BlockSize = 24 }, "kv_offload.block_size"},
		{"negative host block", func(c *Config) { c.KVOffload.BlockSize = -16 }, "kv_offload.block_size"},
		{"no prefix caching", func(c *Config) { c.EnablePrefixCaching = false }, "kv_offload"},
		{"no model", func(c *Config) { *c = modelFree(100, true); c.KVOffload = &good }, "kv_offload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := offloadModel(t, 8, nil)
			o := good
			c.KVOffload = &o
			tc.edit(&c)
			requireFieldError(t, c, tc.field)
		})
	}
}

// prefillTime is a step time without the attention term, so that a long
// conversation trace stays within one engine's capacity: 2 ms, plus
// 10 µs a prompt token, 0.1 ms a decode and 10 ns a decode context token.
func prefillTime(b cost.Batch) float64 {
	return 0.002 + 1e-5*float64(b.PrefillTokens) + 1e-4*float64(b.DecodeSeqs) + 1e-8*b.DecodeContext
}

// infiniteCacheHits is the oracle of the trace check, from the trace's
// hash ids alone: with a cache that never evicts, request i hits the
// longest run of leading 16-token pieces whose prefix (the hash ids before
// and the piece's place in its 512-token block) some earlier request
// covered, capped at its input − 1 in whole 16-token blocks.
func infiniteCacheHits(tr workload.Trace) (hits, queries int) {
	type piece struct {
		prefix uint64 // the ids up to and including this block, chained
		tokens int    // tokens of the block covered
	}
	seen := map[piece]bool{}
	for _, r := range tr.Rows {
		most := (r.Input - 1) / 16 * 16
		hit, open := 0, true
		var prefix uint64 = 14695981039346656037
		for b, id := range r.HashIDs {
			prefix = (prefix ^ uint64(id)) * 1099511628211 // FNV-1a over the ids
			n := min(tr.BlockSize, r.Input-b*tr.BlockSize)
			for k := 16; k <= n; k += 16 {
				p := piece{prefix, k}
				if open && seen[p] && b*tr.BlockSize+k <= most {
					hit = b*tr.BlockSize + k
				} else {
					open = false
				}
				seen[p] = true
			}
		}
		hits += hit
		queries += r.Input
	}
	return hits, queries
}

// TestOffloadConversationTrace: the first 400 requests of the Mooncake
// conversation trace (../shared/data; 13.7k-token prompts sharing
// 512-token blocks by hash id) on one engine. With a KV pool that never
// evicts, the prefix-cache hits are the oracle's exactly. With a pool of
// 8,000 blocks (128k tokens, under 10 mean prompts) the GPU cache loses
// most of them; a host buffer that holds the whole trace gets back all
// but those whose blocks were still being copied to the host (within
// 1 percentage point of the oracle's rate: a store of a prompt's blocks
// ends milliseconds after its step, a turn follows its predecessor by
// seconds), and the mean TTFT falls.
func TestOffloadConversationTrace(t *testing.T) {
	t.Parallel()
	tr, err := workload.LoadTraceHead(shareddata.Path(t, "mooncake_conversation_trace.jsonl"), 400)
	require.NoError(t, err)
	oracleHits, queries := infiniteCacheHits(tr)
	oracle := float64(oracleHits) / float64(queries)
	cfg := sim.Config{Workload: tr.Workload(1), Requests: len(tr.Rows), Seed: 1}
	engine := func(blocks int, off *KVOffload) Config {
		c := offloadModel(t, blocks, off)
		c.StepTime, c.MaxNumBatchedTokens, c.MaxNumSeqs = prefillTime, 8192, 256
		return c
	}

	never := engine(8000, nil)
	never.KVBlocks = 1_000_000 // 16M tokens: more than the 400 requests hold
	inf := runOffload(t, cfg, never)
	require.Equal(t, float64(queries), stat(t, inf, "prefix_cache_queries"))
	require.Equal(t, float64(oracleHits), stat(t, inf, "prefix_cache_hits"), "a pool that never evicts hits what the oracle hits")

	gpu := runOffload(t, cfg, engine(8000, nil))
	off := runOffload(t, cfg, engine(8000, DefaultKVOffload(1000)))
	gpuRate, total := stat(t, gpu, "prefix_cache_hit_rate"), stat(t, off, "prefix_cache_total_hit_rate")
	t.Logf("hit rate: oracle %.4f, GPU only %.4f, GPU+CPU %.4f (GPU %.4f, CPU %.4f); mean TTFT %.4f s → %.4f s",
		oracle, gpuRate, total, stat(t, off, "prefix_cache_hit_rate"), stat(t, off, "kv_offload_hit_rate"), meanTTFT(gpu), meanTTFT(off))
	assert.Less(t, gpuRate, oracle-0.1, "the small pool loses hits")
	assert.LessOrEqual(t, total, oracle+1e-12, "no cache beats the infinite one")
	assert.InDelta(t, oracle, total, 0.01, "the host gets the lost hits back")
	assert.Less(t, meanTTFT(off), meanTTFT(gpu))
	assert.Zero(t, stat(t, off, "kv_offload_store_skips"), "the host never fills")
}

// verify checks the host store (its blocks within capacity and its LRU
// list whole) and returns the GPU blocks held by requests that are not
// running: loading, or loaded and waiting at the head of the line (held
// counts a request's blocks as the running list's are counted).
func (o *offloader) verify(t *testing.T, held func(c int, q *seq) int) int {
	s := o.store
	n, hashed := 0, 0
	for id := s.head; id != none; id = s.ents[id].next {
		n += s.size(id)
		if s.ents[id].run == 0 {
			hashed++
		}
	}
	if n != s.used || s.used > s.capacity || hashed != len(s.index) {
		t.Fatalf("host store: %d blocks listed, %d counted, capacity %d; %d hashed listed, %d indexed", n, s.used, s.capacity, hashed, len(s.index))
	}
	used, warm := 0, 0
	for i := range o.loads.Len() {
		q := o.loads.At(i).q
		used += held(q.warm*16, q) // the tests' engines have 16-token blocks
		warm++
	}
	if warm != o.loading {
		t.Fatalf("%d loads in flight, %d requests loading", warm, o.loading)
	}
	return used
}

// verifyWaiting returns the GPU blocks held by loaded requests in the
// waiting line, and checks the blocks reserved for the loaded requests'
// prefills.
func (e *engine) verifyWaiting(t *testing.T, held func(c int, q *seq) int) int {
	used, need := 0, 0
	for i := range e.waiting.seqs.Len() {
		if q := e.waiting.seqs.At(i); q.warm > 0 {
			used += held(q.warm*e.cfg.BlockSize, q)
			need += e.blocks(q.target) - q.warm
		}
	}
	for i := range e.off.loads.Len() {
		q := e.off.loads.At(i).q
		need += e.blocks(q.target) - q.warm
	}
	if need != e.off.reserved {
		t.Fatalf("blocks reserved for loaded requests: %d counted, %d recomputed", e.off.reserved, need)
	}
	return used
}

// TestOffloadInvariants: engines with offloading under pressure (a small
// pool that preempts, a host smaller than the working set, a half-duplex
// link, prefill-first scheduling, host blocks of 5 engine blocks, the
// LMCache backend, also under attention data parallelism with a host per
// group, three replicas behind the prefix-aware router) keep their block accounting at every step, serve every request,
// never beat a pool that never evicts, and give the same run twice.
func TestOffloadInvariants(t *testing.T) {
	t.Parallel()
	w := workload.Workload{Arrivals: workload.Poisson{Rate: 40},
		Lengths: workload.PrefixRepetition{PrefixLen: 1024, SuffixLen: 200, NumPrefixes: 30, OutputLen: 60}}
	cases := []struct {
		name string
		edit func(c *Config)
	}{
		{"chunked", func(c *Config) {}},
		{"small host", func(c *Config) { c.KVOffload.Size = 0.05 }},
		{"half duplex", func(c *Config) { c.KVOffload.HalfDuplex = true; c.KVOffload.Bandwidth = 2e9 }},
		{"prefill first", func(c *Config) { c.EnableChunkedPrefill = false; c.MaxNumBatchedTokens = 4096 }},
		{"host blocks of 80", func(c *Config) { c.KVOffload.BlockSize = 80 }},
		{"lmcache", func(c *Config) { c.KVOffload.Backend = OffloadBackendLMCache }},
		{"lmcache small host", func(c *Config) { c.KVOffload.Backend, c.KVOffload.Size = OffloadBackendLMCache, 0.25 }},
		{"lmcache prefill first", func(c *Config) {
			c.KVOffload.Backend, c.EnableChunkedPrefill, c.MaxNumBatchedTokens = OffloadBackendLMCache, false, 4096
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := offloadModel(t, 300, DefaultKVOffload(4))
			c.StepTime, c.MaxNumBatchedTokens = prefillTime, 2048
			tc.edit(&c)
			var engines []*engine
			cfg := sim.Config{Workload: w, Requests: 600, Seed: 5,
				Server: checked{ServerConfig: c, t: t, engines: &engines, every: 1}}
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			require.Equal(t, 600, res.Completed)
			e := engines[0]
			assert.Zero(t, e.usedBlocks, "blocks returned to the pool")
			assert.Zero(t, e.off.loading)
			assert.Positive(t, stat(t, res, "kv_offload_loads"))
			again, err := sim.Run(sim.Config{Workload: w, Requests: 600, Seed: 5, Server: c})
			require.NoError(t, err)
			assert.Equal(t, res.Requests, again.Requests, "same seed, same run")
			never := c
			never.KVOffload, never.KVBlocks = nil, 1_000_000
			bound, err := sim.Run(sim.Config{Workload: w, Requests: 600, Seed: 5, Server: never})
			require.NoError(t, err)
			assert.LessOrEqual(t, stat(t, res, "prefix_cache_total_hit_rate"), stat(t, bound, "prefix_cache_hit_rate")+1e-12)
		})
	}
	t.Run("lmcache data parallel", func(t *testing.T) {
		m, err := cost.Model("gpt-oss-20b")
		require.NoError(t, err)
		g, err := cost.GPU("h100-sxm")
		require.NoError(t, err)
		c := Defaults(m, g)
		c.Deployment.DP, c.Deployment.KVCacheMemory = 2, 256<<20
		c.StepTime, c.MaxNumBatchedTokens = prefillTime, 2048
		c.KVOffload = DefaultKVOffload(4)
		c.KVOffload.Backend = OffloadBackendLMCache
		var engines []*engine
		res, err := sim.Run(sim.Config{Workload: w, Requests: 600, Seed: 5,
			Server: checked{ServerConfig: c, t: t, engines: &engines, every: 1}})
		require.NoError(t, err)
		require.Equal(t, 600, res.Completed)
		require.Len(t, engines, 2)
		for _, e := range engines {
			assert.Zero(t, e.usedBlocks)
			assert.Positive(t, e.off.st.loads, "each group loads from its own host")
		}
		assert.Positive(t, stat(t, res, "kv_offload_sync_time"))
	})
	t.Run("cluster", func(t *testing.T) {
		c := offloadModel(t, 300, DefaultKVOffload(4))
		c.StepTime, c.MaxNumBatchedTokens = prefillTime, 2048
		var engines []*engine
		res, err := sim.Run(sim.Config{Workload: w, Requests: 600, Seed: 5,
			Server: checked{ServerConfig: Cluster{Engine: c, Replicas: 3, Router: PrefixAware}, t: t, engines: &engines, every: 1}})
		require.NoError(t, err)
		require.Equal(t, 600, res.Completed)
		for _, e := range engines {
			assert.Zero(t, e.usedBlocks)
		}
		assert.Positive(t, stat(t, res, "kv_offload_loads"))
	})
}

// TestOffloadPipelineRejected: offloading under pipeline parallelism is a
// field error, not a silently wrong host size.
func TestOffloadPipelineRejected(t *testing.T) {
	t.Parallel()
	c := offloadModel(t, 64, DefaultKVOffload(4))
	c.StepTime = nil
	err := Pipeline{Engine: c, Stages: 2}.Validate()
	require.Error(t, err)
	fe := fielderr.Of(err)
	require.NotNil(t, fe, "%v", err)
	assert.Equal(t, "kv_offload", fe.Field)
}

// requireFieldError checks that c does not validate, with an ErrInvalid
// field error at field.
func requireFieldError(t *testing.T, c Config, field string) {
	t.Helper()
	err := c.Validate()
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInvalid))
	fe := fielderr.Of(err)
	require.NotNil(t, fe, "%v", err)
	assert.Equal(t, field, fe.Field, "%v", err)
}
