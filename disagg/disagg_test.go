package disagg

import (
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// linear is a model-free engine whose step takes a + b·tokens seconds.
func linear(a, b float64, maxSeqs, budget int) batching.Config {
	return batching.Config{
		Deployment: cost.Deployment{TP: 1},
		MaxNumSeqs: maxSeqs, MaxNumBatchedTokens: budget, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 1 << 14, StepTime: func(x cost.Batch) float64 { return a + b*float64(x.Tokens()) },
	}
}

var instant = topology.Link{Name: "instant", Bandwidth: 1, Latency: 0}

// arrivals and lengths of a deterministic case: bursts and gaps, prompts
// that chunk, outputs that overlap.
func tandemCase() ([]float64, []workload.Pair) {
	var times []float64
	var pairs []workload.Pair
	t := 0.0
	for i := range 60 {
		if i%7 != 0 {
			t += 0.013 * float64(i%5)
		}
		times = append(times, t)
		pairs = append(pairs, workload.Pair{Input: 50 + 97*(i%11), Output: 1 + 13*(i%6)})
	}
	return times, pairs
}

func run(t *testing.T, srv sim.ServerConfig, times []float64, pairs []workload.Pair) *sim.Result {
	t.Helper()
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: times}, Lengths: workload.Sequence{Pairs: pairs}},
		Server:   srv, Requests: len(times), Seed: 3,
	})
	require.NoError(t, err)
	require.Equal(t, len(times), res.Completed)
	return res
}

// TestTandem: with zero transfer time, 1P1D is a tandem of two servers.
// Server 1, a plain engine given each request's prompt and one output
// token, ends each prefill at its Done; server 2, a plain engine given
// requests of one prompt token (the recomputed last token) and the full
// output, arriving at those times, emits every token. Step times depend
// only on the tokens in the step, so the decode instance's last-token
// recompute costs what server 2's one-token prompt does. Checked request
// by request: start, first token, end.
func TestTandem(t *testing.T) {
	times, pairs := tandemCase()
	p := linear(0.004, 20e-6, 8, 512)
	d := linear(0.006, 40e-6, 16, 512)
	pd := run(t, Config{Prefill: Pool{p, 1}, Decode: Pool{d, 1}, Router: batching.RoundRobin, Link: instant}, times, pairs)

	one := make([]workload.Pair, len(pairs))
	for i, q := range pairs {
		one[i] = workload.Pair{Input: q.Input, Output: 1}
	}
	s1 := run(t, p, times, one)
	// Server 2's arrivals are server 1's departures, in time order.
	order := make([]int, len(times))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s1.Requests[order[a]].Done < s1.Requests[order[b]].Done })
	t2 := make([]float64, len(times))
	p2 := make([]workload.Pair, len(times))
	for k, i := range order {
		t2[k] = s1.Requests[i].Done
		p2[k] = workload.Pair{Input: 1, Output: pairs[i].Output}
	}
	s2 := run(t, d, t2, p2)
	for k, i := range order {
		got, r1, r2 := pd.Requests[i], s1.Requests[i], s2.Requests[k]
		assert.InDelta(t, r1.Start, got.Start, 1e-12, "request %d start", i)
		assert.InDelta(t, r2.FirstToken, got.FirstToken, 1e-12, "request %d first token", i)
		assert.InDelta(t, r2.Done, got.Done, 1e-12, "request %d done", i)
	}
	st, ok := pd.Stat("mean_ttft_transfer_ms")
	require.True(t, ok)
	assert.Equal(t, 0.0, st)
}

func llama8b(t *testing.T, gpu string, tp int) batching.Config {
	t.Helper()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU(gpu)
	require.NoError(t, err)
	c := batching.Defaults(m, g)
	c.Deployment.TP = tp
	c.MaxModelLen = 8192
	c.RequestOverhead = 0
	return c
}

// TestIsolatedTransfer: one request's transfer takes exactly α +
// prompt × KV bytes per token per rank / β, the KV bytes counted here from
// the model's shape (2 · layers · kv heads/TP · head dim · bytes).
func TestIsolatedTransfer(t *testing.T) {
	link := topology.Link{Name: "ib", Bandwidth: 23.75e9, Latency: 0.4e-3}
	for _, tp := range []int{1, 2} {
		c := Config{Prefill: Pool{llama8b(t, "h100-sxm", tp), 1}, Decode: Pool{llama8b(t, "h100-sxm", 1), 1},
			Router: batching.RoundRobin, Link: link}
		res := run(t, c, []float64{0}, []workload.Pair{{Input: 3000, Output: 10}})
		m := c.Decode.Engine.Deployment.Model
		perToken := 2 * float64(m.Layers*m.KVHeads*m.HeadDim) * m.KVBytes // decode TP 1 receives it all
		want := 0.4e-3 + 3000*perToken/23.75e9
		got, _ := res.Stat("mean_ttft_transfer_ms")
		assert.InDelta(t, 1000*want, got, 1e-9, "tp %d", tp)
		assert.InDelta(t, want, c.TransferTime(3000), 1e-15)
		// TTFT is the sum of its parts.
		var sum float64
		for _, n := range []string{"queue", "prefill", "transfer", "decode_first"} {
			v, _ := res.Stat("mean_ttft_" + n + "_ms")
			sum += v
		}
		assert.InDelta(t, 1000*res.TTFT().Mean(), sum, 1e-9)
	}
}

// TestLinkContention: two prompts prefilled in one step leave at once and
// share the prefill instance's egress: the second arrives one transfer
// time after the first.
func TestLinkContention(t *testing.T) {
	link := topology.Link{Name: "slow", Bandwidth: 1e9, Latency: 1e-3}
	c := Config{Prefill: Pool{llama8b(t, "h100-sxm", 1), 1}, Decode: Pool{llama8b(t, "h100-sxm", 1), 2},
		Router: batching.RoundRobin, Link: link}
	res := run(t, c, []float64{0, 0}, []workload.Pair{{Input: 1000, Output: 5}, {Input: 1000, Output: 5}})
	one := c.TransferTime(1000)
	got, _ := res.Stat("mean_ttft_transfer_ms")
	assert.InDelta(t, 1000*(one+2*one)/2, got, 1e-9) // 1 and 2 transfer times
	wait, _ := res.Stat("mean_ttft_link_wait_ms")
	assert.InDelta(t, 1000*one/2, wait, 1e-9)
}

// TestHeldBlocks: a prefill instance whose pool holds one prompt's KV
// cannot start the next prompt until the first one's transfer ends.
func TestHeldBlocks(t *testing.T) {
	p := linear(0.01, 0, 4, 64)
	p.KVBlocks = 4 // 64 tokens
	d := linear(0.01, 0, 4, 64)
	slow := topology.Link{Name: "slow", Bandwidth: 1, Latency: 0.5}
	res := run(t, Config{Prefill: Pool{p, 1}, Decode: Pool{d, 1}, Router: batching.RoundRobin, Link: slow},
		[]float64{0, 0}, []workload.Pair{{Input: 60, Output: 2}, {Input: 60, Output: 2}})
	assert.InDelta(t, 0.0, res.Requests[0].Start, 1e-12)
	assert.InDelta(t, 0.51, res.Requests[1].Start, 1e-12) // after the first's prefill (0.01) and transfer (0.5)
}

// TestOpenLoop runs 2P3D under Poisson load with every router and checks
// conservation: every request completes, each pool's steps and prompt
// tokens add up, and the same seed gives the same result.
func TestOpenLoop(t *testing.T) {
	lengths := workload.Random{InputLen: 1500, OutputLen: 150, RangeRatio: 0.5}
	for _, router := range []batching.Router{batching.RoundRobin, batching.LeastOutstanding, batching.PrefixAware} {
		c := Config{Prefill: Pool{llama8b(t, "h100-sxm", 1), 2}, Decode: Pool{llama8b(t, "a100-80gb", 1), 3},
			Router: router, ProxyOverhead: 2e-3}
		cfg := sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 12}, Lengths: lengths},
			Server: c, Requests: 400, Seed: 11}
		a, err := sim.Run(cfg)
		require.NoError(t, err)
		b, err := sim.Run(cfg)
		require.NoError(t, err)
		assert.Equal(t, 400, a.Completed, router)
		ja, _ := a.MarshalJSON()
		jb, _ := b.MarshalJSON()
		assert.Equal(t, string(ja), string(jb))
		pre, _ := a.Stat("prefill_prefill_tokens")
		assert.Equal(t, float64(a.TotalInput), pre, "every prompt token prefilled once (no prefix reuse in Random)")
		dec, _ := a.Stat("decode_prefill_tokens")
		assert.Equal(t, 400.0, dec, "one recomputed prompt token per request on the decode side")
		q, _ := a.Stat("mean_ttft_queue_ms")
		assert.GreaterOrEqual(t, q, 2.0, "the proxy's 2 ms")
		assert.Equal(t, 5, c.GPUs())
	}
}

func TestValidate(t *testing.T) {
	p := linear(0.01, 0, 4, 64)
	good := Config{Prefill: Pool{p, 1}, Decode: Pool{p, 1}, Router: batching.RoundRobin}
	require.NoError(t, good.Validate())
	m70, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	g, _ := cost.GPU("h100-sxm")
	other := batching.Defaults(m70, g)
	other.Deployment.TP = 4
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no prefill", func(c *Config) { c.Prefill.Instances = 0 }, "prefill.instances: 0 must be in [1, 1024]"},
		{"many decode", func(c *Config) { c.Decode.Instances = 2000 }, "decode.instances: 2000 must be in [1, 1024]"},
		{"router", func(c *Config) { c.Router = "random" }, `router: "random" must be`},
		{"link", func(c *Config) { c.Link = topology.Link{Name: "x", Bandwidth: -1} }, "link.bandwidth_bytes_per_s: -1 must be a finite number > 0"},
		{"proxy", func(c *Config) { c.ProxyOverhead = math.Inf(1) }, "proxy_overhead_s: +Inf"},
		{"weight", func(c *Config) { c.PrefixWeight = math.NaN() }, "prefix_weight: NaN"},
		{"engine", func(c *Config) { c.Decode.Engine.MaxNumSeqs = 0 }, "decode.engine.max_num_seqs: 0"},
		{"dp", func(c *Config) { c.Prefill.Engine.Deployment.DP = 2 }, "prefill.engine.deployment.dp: 2 must be 1"},
		{"model", func(c *Config) { c.Decode.Engine = other }, "both pools must serve the same model"},
	} {
		c := good
		tc.mod(&c)
		err := c.Validate()
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrInvalid, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

// TestPrefillPoolHoldsPromptOnly: a prefill pool smaller than a request's
// whole footprint (prompt + output) but larger than its prompt serves it;
// the same engine colocated rejects it.
func TestPrefillPoolHoldsPromptOnly(t *testing.T) {
	small := linear(0.01, 0, 4, 64)
	small.KVBlocks = 8 // 128 tokens
	big := linear(0.01, 0, 4, 64)
	pairs := []workload.Pair{{Input: 100, Output: 60}}
	pd := run(t, Config{Prefill: Pool{small, 1}, Decode: Pool{big, 1}, Router: batching.RoundRobin, Link: instant}, []float64{0}, pairs)
	assert.Equal(t, 1, pd.Completed)
	res, err := sim.Run(sim.Config{Workload: workload.Workload{Arrivals: workload.Replay{Times: []float64{0}}, Lengths: workload.Sequence{Pairs: pairs}},
		Server: small, Requests: 1, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Rejected)
}

// TestStress drives small pools hard — prefill pools that fill with held
// blocks, decode pools that preempt, shared prefixes, chunked and
// prefill-first scheduling, every router — and checks that every request
// ends (completed or rejected), that each completed one received its
// first token after its transfer, and that each pool's counters add up.
func TestStress(t *testing.T) {
	lengths := workload.SharedPrefix{Tokens: 256, Lengths: workload.Random{InputLen: 300, OutputLen: 120, RangeRatio: 0.9}}
	for _, chunked := range []bool{true, false} {
		for _, router := range []batching.Router{batching.RoundRobin, batching.LeastOutstanding, batching.PrefixAware} {
			p := linear(0.003, 10e-6, 16, 1024)
			p.KVBlocks, p.EnableChunkedPrefill, p.EnablePrefixCaching = 80, chunked, true
			d := linear(0.004, 15e-6, 32, 1024)
			d.KVBlocks, d.EnableChunkedPrefill = 120, chunked
			slow := topology.Link{Name: "slow", Bandwidth: 1, Latency: 0.02}
			c := Config{Prefill: Pool{p, 2}, Decode: Pool{d, 3}, Router: router, Link: slow, ProxyOverhead: 1e-3}
			res, err := sim.Run(sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 60}, Lengths: lengths},
				Server: c, Requests: 1500, Seed: 5})
			require.NoError(t, err, "chunked %v router %s", chunked, router)
			assert.Equal(t, 1500, res.Completed+res.Rejected, "chunked %v router %s", chunked, router)
			assert.Greater(t, res.Completed, 1000)
			for _, r := range res.Requests {
				if r.Status == metrics.Completed {
					require.GreaterOrEqual(t, r.FirstToken-r.Start, 0.02, "request %d: first token before its KV could arrive", r.ID)
				}
			}
			pre, _ := res.Stat("decode_preemptions")
			held, _ := res.Stat("prefill_max_kv_cache_usage")
			t.Logf("chunked %v %s: completed %d rejected %d, decode preemptions %v, prefill max KV %.2f", chunked, router, res.Completed, res.Rejected, pre, held)
			// Every prompt fits a prefill pool, so every request was
			// transferred; without chunked prefill a decode instance rejects
			// those longer than its token budget (prompt + output − 1 >
			// 1024), after their prefill, as vLLM's decode instance answers
			// the proxy's second request with an error.
			n, _ := res.Stat("kv_transfers")
			assert.Equal(t, 1500.0, n)
			if chunked {
				assert.Equal(t, 0, res.Rejected)
			}
		}
	}
}

// BenchmarkDisagg times a 2P2D run of llama-3.1-8b and reports the
// simulated requests per wall second.
func BenchmarkDisagg(b *testing.B) {
	m, _ := cost.Model("llama-3.1-8b")
	g, _ := cost.GPU("h100-sxm")
	e := batching.Defaults(m, g)
	e.MaxModelLen = 8192
	c := Config{Prefill: Pool{e, 2}, Decode: Pool{e, 2}, Router: batching.LeastOutstanding}
	cfg := sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 20}, Lengths: workload.Random{InputLen: 1500, OutputLen: 150, RangeRatio: 0.5}},
		Server: c, Requests: 2000, Seed: 1, SummaryOnly: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cfg.Requests)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}
