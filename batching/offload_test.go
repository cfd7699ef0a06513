package batching

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// offloadModel is the deployment of the offloading tests: Qwen2.5-7B on
// an H100 (28 layers, 4 KV heads of 128 in bf16: 57,344 KV bytes a token,
// 917,504 a 16-token block) with a KV pool of blocks blocks, priced by
// stepTime.
func offloadModel(t *testing.T, blocks int, off *KVOffload) Config {
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
		name string
		off  *KVOffload
		ttft float64
	}{
		{"off", nil, full},
		{"duplex", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat}, load + tail},
		{"half duplex", &KVOffload{Size: 1, Bandwidth: bw, Latency: lat, HalfDuplex: true}, (1 + stepC + storeC - tB) + load + tail},
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
			assert.Equal(t, 11.0, stat(t, res, "kv_offload_stored_blocks"))
			assert.InDelta(t, tc.ttft-tail, stat(t, res, "mean_kv_offload_load_wait"), 1e-12)
		})
	}
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
		{"lmcache", func(c *Config) { c.KVOffload.Backend = "lmcache" }, "kv_offload.kv_offloading_backend"},
		{"zero bandwidth", func(c *Config) { c.KVOffload.Bandwidth = 0 }, "kv_offload.pcie_bandwidth"},
		{"negative latency", func(c *Config) { c.KVOffload.Latency = -1e-6 }, "kv_offload.pcie_latency"},
		{"no prefix caching", func(c *Config) { c.EnablePrefixCaching = false }, "kv_offload"},
		{"no model", func(c *Config) { *c = modelFree(100, true); c.KVOffload = &good }, "kv_offload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := offloadModel(t, 8, nil)
			o := good
			c.KVOffload = &o
			tc.edit(&c)
			err := c.Validate()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "%v", err)
			assert.Equal(t, tc.field, fe.Field, "%v", err)
		})
	}
}
