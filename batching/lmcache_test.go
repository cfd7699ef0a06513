package batching

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// The LMCache backend (lmcachePolicy) against hand-computed runs: every
// step lasts stepT, plus its synchronous transfers, so each timestamp is
// exact. A transfer of n 16-token engine blocks of 917,504 B (Qwen2.5-7B,
// offloadModel) lasts lat + n·block/bw; an LMCache chunk is 256 tokens,
// 16 engine blocks.
const (
	stepT      = 0.01
	lmBW       = 1e9
	lmLat      = 1e-4
	lmBlock    = 16 * 57344.0
	chunkBytes = 16 * lmBlock
)

// lmXfer is the time of one synchronous transfer of n engine blocks.
func lmXfer(n int) float64 { return lmLat + float64(n)*lmBlock/lmBW }

// lmcacheOff is the LMCache backend on the test link with a host of
// chunks 256-token chunks.
func lmcacheOff(chunks int) *KVOffload {
	return &KVOffload{Size: float64(chunks) * chunkBytes / (1 << 30), Backend: OffloadBackendLMCache, Bandwidth: lmBW, Latency: lmLat}
}

// lmcacheEngine is offloadModel with a pool of blocks blocks, a constant
// step time and a token budget of the whole pool.
func lmcacheEngine(t *testing.T, blocks int, off *KVOffload) Config {
	c := offloadModel(t, blocks, off)
	c.StepTime = func(cost.Batch) float64 { return stepT }
	c.MaxNumBatchedTokens = blocks * 16
	return c
}

// TestLMCacheLoadStallsTheBatch: A (t = 0) sends a 256-token prefix (one
// chunk) and a token of its own; its step stores the chunk and waits for
// it. C (t = 1) sends 640 tokens of its own, takes the whole 40-block
// pool (evicting A's blocks from the GPU) and stores its two whole chunks
// (its last 128 tokens are a partial chunk: not stored). D (t = 2) sends
// 200 tokens and decodes 99 more: no whole prompt chunk, and its output
// is never stored although its KV passes 256 tokens. B, A's prefix again,
// arrives half way through D's 11th step: the next step loads the chunk
// before its forward pass, so D's decode step waits for B's load too.
func TestLMCacheLoadStallsTheBatch(t *testing.T) {
	t.Parallel()
	tB := 2 + 10.5*stepT
	tr := workload.Trace{BlockSize: 256, Rows: []workload.TraceRow{
		{Time: 0, Input: 257, Output: 1, HashIDs: []int64{1}},
		{Time: 1, Input: 640, Output: 1},
		{Time: 2, Input: 200, Output: 100},
		{Time: tB, Input: 257, Output: 1, HashIDs: []int64{1}},
	}}
	cfg := sim.Config{Workload: tr.Workload(1), Requests: 4, Seed: 1}
	res := runOffload(t, cfg, lmcacheEngine(t, 40, lmcacheOff(3)))
	a, c, d, b := res.Requests[0], res.Requests[1], res.Requests[2], res.Requests[3]
	load := lmXfer(16)
	assert.InDelta(t, stepT+lmXfer(16), a.TTFT(), 1e-12, "A's step waits for its chunk's store")
	assert.InDelta(t, stepT+lmXfer(32), c.TTFT(), 1e-12, "C's step stores two chunks in one transfer")
	assert.InDelta(t, stepT, d.TTFT(), 1e-12, "D stores nothing: 200 tokens are a partial chunk")
	assert.InDelta(t, 1.5*stepT+load, b.TTFT(), 1e-12, "B waits half a step, then its step loads the chunk")
	assert.InDelta(t, 100*stepT+load, d.Done-d.Arrival, 1e-12, "D's 100 steps, one of them stalled by B's load")
	assert.Equal(t, 48.0, stat(t, res, "kv_offload_stored_blocks"), "A's chunk and C's two; no partial chunk, no output")
	assert.Equal(t, 48*lmBlock, stat(t, res, "kv_offload_stored_bytes"))
	assert.Equal(t, 0.0, stat(t, res, "kv_offload_store_skips"))
	assert.Equal(t, 1.0, stat(t, res, "kv_offload_loads"))
	assert.Equal(t, 256.0, stat(t, res, "kv_offload_hits"))
	assert.Equal(t, 16.0, stat(t, res, "kv_offload_loaded_blocks"))
	assert.InDelta(t, load, stat(t, res, "mean_kv_offload_load_wait"), 1e-15)
	assert.InDelta(t, lmXfer(16)+lmXfer(32)+load, stat(t, res, "kv_offload_sync_time"), 1e-15)
	assert.Equal(t, 0.0, stat(t, res, "prefix_cache_hits"), "C evicted A's blocks from the GPU")

	// The native connector on the same trace and host blocks: B waits out
	// of the line for its load while D decodes on, unstalled.
	native := *lmcacheOff(3)
	native.Backend, native.BlockSize = OffloadBackendNative, 256
	nat := runOffload(t, cfg, lmcacheEngine(t, 40, &native))
	nd := nat.Requests[2]
	assert.InDelta(t, 100*stepT, nd.Done-nd.Arrival, 1e-12, "native loads do not stall D")
	assert.Equal(t, 256.0, stat(t, nat, "kv_offload_hits"))
}

// TestLMCacheFullStoreKeepsLeadingChunks: X sends a prompt of four
// chunks to a host of two: its store keeps chunks 0 and 1 and drops 2
// and 3 for good. Four requests of 255 tokens of their own (partial
// chunks: no store) then take the whole 64-block pool, evicting X from
// the GPU, and X2, X's prompt again, finds the two leading chunks: its
// step loads 512 tokens and stores the two it lacks, evicting the two it
// loaded (the only ones there).
func TestLMCacheFullStoreKeepsLeadingChunks(t *testing.T) {
	t.Parallel()
	rows := []workload.TraceRow{{Time: 0, Input: 1024, Output: 1, HashIDs: []int64{11, 12, 13, 14}}}
	for range 4 {
		rows = append(rows, workload.TraceRow{Time: 1, Input: 255, Output: 1})
	}
	rows = append(rows, workload.TraceRow{Time: 2, Input: 1024, Output: 1, HashIDs: []int64{11, 12, 13, 14}})
	tr := workload.Trace{BlockSize: 256, Rows: rows}
	cfg := sim.Config{Workload: tr.Workload(1), Requests: len(rows), Seed: 1}
	res := runOffload(t, cfg, lmcacheEngine(t, 64, lmcacheOff(2)))
	x, x2 := res.Requests[0], res.Requests[5]
	assert.InDelta(t, stepT+lmXfer(32), x.TTFT(), 1e-12, "X stores two of its four chunks")
	assert.InDelta(t, stepT+lmXfer(32)+lmXfer(32), x2.TTFT(), 1e-12, "X2 loads chunks 0-1 and stores 2-3")
	assert.Equal(t, 512.0, stat(t, res, "kv_offload_hits"), "the leading chunks were kept")
	assert.Equal(t, 1.0, stat(t, res, "kv_offload_store_skips"), "X's store cut short")
	assert.Equal(t, 64.0, stat(t, res, "kv_offload_stored_blocks"))
	assert.Equal(t, 32.0, stat(t, res, "kv_offload_evicted_blocks"))
}

// TestLMCacheMatchesNativeHits: on prefix repetition with arrivals far
// apart, a GPU pool that evicts and hosts that hold everything, both
// backends find every prefix seen before (the same total hit rate, to
// the token), while LMCache's synchronous stores and loads lengthen the
// steps: its TTFT is longer.
func TestLMCacheMatchesNativeHits(t *testing.T) {
	t.Parallel()
	w := workload.Workload{Arrivals: workload.Constant{Rate: 5},
		Lengths: workload.PrefixRepetition{PrefixLen: 1024, SuffixLen: 200, NumPrefixes: 30, OutputLen: 60}}
	run := func(off *KVOffload) *sim.Result {
		c := offloadModel(t, 300, off)
		c.StepTime, c.MaxNumBatchedTokens = prefillTime, 2048
		return runOffload(t, sim.Config{Workload: w, Requests: 400, Seed: 3}, c)
	}
	nativeOff := DefaultKVOffload(64)
	nativeOff.BlockSize = LMCacheChunkSize
	lmOff := DefaultKVOffload(64)
	lmOff.Backend = OffloadBackendLMCache
	nat, lm := run(nativeOff), run(lmOff)
	hits := stat(t, nat, "prefix_cache_total_hit_rate")
	assert.Greater(t, hits, 0.5, "most prefixes come back")
	assert.Equal(t, hits, stat(t, lm, "prefix_cache_total_hit_rate"))
	assert.Equal(t, stat(t, nat, "prefix_cache_queries"), stat(t, lm, "prefix_cache_queries"))
	assert.Positive(t, stat(t, lm, "kv_offload_loads"))
	assert.Greater(t, meanTTFT(lm), meanTTFT(nat), "synchronous transfers lengthen the steps")
	assert.Less(t, stat(t, lm, "kv_offload_stored_blocks"), stat(t, nat, "kv_offload_stored_blocks"), "LMCache stores no output and no partial chunk")
}

// TestLMCacheValidate: the combinations the LMCache backend cannot take
// are field errors naming the field.
func TestLMCacheValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		edit  func(c *Config)
		field string
	}{
		{"half duplex", func(c *Config) { c.KVOffload.HalfDuplex = true }, "kv_offload.pcie_half_duplex"},
		{"chunk not whole engine blocks", func(c *Config) { c.KVOffload.BlockSize = 200 }, "kv_offload.block_size"},
		{"engine block not dividing the default chunk", func(c *Config) { c.BlockSize = 48 }, "kv_offload.kv_offloading_backend"},
		{"unknown backend", func(c *Config) { c.KVOffload.Backend = "mooncake" }, "kv_offload.kv_offloading_backend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := offloadModel(t, 8, lmcacheOff(4))
			tc.edit(&c)
			requireFieldError(t, c, tc.field)
		})
	}
	o, err := NewKVOffload(8, OffloadBackendLMCache, 0)
	require.NoError(t, err)
	assert.Equal(t, OffloadBackendLMCache, o.Backend)
}
