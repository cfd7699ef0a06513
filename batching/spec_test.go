package batching

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

func alpha(a float64) *float64 { return &a }

// specFixed is an engine whose every step takes tau seconds, with
// speculative decoding of k drafts accepted at rate a.
func specFixed(t *testing.T, tau float64, k int, a float64) Config {
	t.Helper()
	c := qwen4090(t)
	c.StepTime = func(cost.Batch) float64 { return tau }
	c.KVBlocks = 4096
	c.Speculative = &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: k, AcceptanceRate: alpha(a)}
	return c
}

// TestSpecAcceptanceOne: with every draft accepted, each verification
// emits exactly k + 1 tokens and TPOT is the step time over k + 1.
func TestSpecAcceptanceOne(t *testing.T) {
	t.Parallel()
	const tau, k, m = 0.01, 3, 25
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 100, Output: 1 + (k+1)*m}},
		Server:   specFixed(t, tau, k, 1), Requests: 5, Seed: 1,
	})
	require.NoError(t, err)
	for _, r := range res.Requests {
		tpot, ok := r.TPOT()
		require.True(t, ok)
		assert.InDelta(t, tau/(k+1), tpot, 1e-12, "request %d", r.ID)
	}
	drafts, _ := res.Stat("spec_decode_num_drafts")
	acc, _ := res.Stat("spec_decode_num_accepted_tokens")
	length, _ := res.Stat("spec_decode_mean_acceptance_length")
	assert.Equal(t, float64(5*m), drafts, "one verification per k+1 tokens")
	assert.Equal(t, float64(5*m*k), acc)
	assert.Equal(t, float64(k+1), length)
	for i := range k {
		r, _ := res.Stat("spec_decode_acceptance_rate_pos_" + string(rune('0'+i)))
		assert.Equal(t, 1.0, r)
	}
	// The client sees one gap per step: m gaps of tau per request.
	assert.Equal(t, 5*m, res.ITL().Count())
	assert.InDelta(t, tau, res.ITL().Mean(), 1e-12)
}

// TestSpecAcceptanceZero: with no draft accepted, each step emits one
// token at the verify pass's cost: the batch carries 1 + k tokens per
// decoder, and the step is priced by the target at that shape plus the
// proposer's k passes.
func TestSpecAcceptanceZero(t *testing.T) {
	t.Parallel()
	const k, out = 4, 41
	m, _ := cost.Model("llama-3.1-8b")
	g, _ := cost.GPU("h100-sxm")
	c := Defaults(m, g)
	c.Speculative = &specdecode.Config{Method: specdecode.Eagle, NumSpeculativeTokens: k, AcceptanceRate: alpha(0)}
	r, err := c.resolve()
	require.NoError(t, err)
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 64, Output: out}},
		Server:   c, Requests: 1, Seed: 1,
	})
	require.NoError(t, err)
	req := res.Requests[0]
	tpot, _ := req.TPOT()
	// The independent price of every decode step: token g+1 (g = 1..out−1)
	// is emitted by a verify of context 64+g−1+1 with k drafts, d =
	// min(k, tokens left − 1).
	var want float64
	for g := 1; g < out; g++ {
		d := min(k, out-g-1)
		ctx := float64(64 + g)
		b := cost.Batch{DecodeSeqs: 1, DecodeContext: ctx, SpecTokens: d, SpecPairs: float64(d)*ctx + float64(d*(d+1))/2}
		step := r.step.Step(b).Time
		step += r.spec.draft.Step(b).Time + float64(k-1)*r.spec.draft.Step(cost.Batch{DecodeSeqs: 1, DecodeContext: ctx + 1}).Time
		want += step
	}
	assert.InDelta(t, want/float64(out-1), tpot, 1e-12)
	length, _ := res.Stat("spec_decode_mean_acceptance_length")
	assert.Equal(t, 1.0, length)
	drafts, _ := res.Stat("spec_decode_num_drafts")
	assert.Equal(t, float64(out-2), drafts, "the last step has no token left to draft for")
	frac, _ := res.Stat("spec_decode_draft_time_fraction")
	assert.Greater(t, frac, 0.0)
	assert.Less(t, frac, 0.5)
}

// TestSpecIIDMeanLength: with an i.i.d. rate α the mean acceptance
// length over 10⁵ verifications is (1 − α^(k+1)) / (1 − α) within 1%.
func TestSpecIIDMeanLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k int
		a float64
	}{{3, 0.7}, {5, 0.5}, {2, 0.9}} {
		const tau = 0.001
		c := specFixed(t, tau, tc.k, tc.a)
		c.MaxNumSeqs, c.MaxNumBatchedTokens = 64, 2048
		res, err := sim.Run(sim.Config{
			// Long outputs: the draft count is rarely capped by the tokens left.
			Workload: workload.Workload{Clients: 64, Lengths: workload.Fixed{Input: 16, Output: 8000}},
			Server:   c, Requests: 64, Seed: 7,
		})
		require.NoError(t, err)
		drafts, _ := res.Stat("spec_decode_num_drafts")
		draftTokens, _ := res.Stat("spec_decode_num_draft_tokens")
		require.Greater(t, drafts, 1e5)
		require.InEpsilon(t, drafts*float64(tc.k), draftTokens, 1e-3, "k drafts each but a request's last few")
		length, _ := res.Stat("spec_decode_mean_acceptance_length")
		want := (1 - math.Pow(tc.a, float64(tc.k+1))) / (1 - tc.a)
		assert.InEpsilon(t, want, length, 0.01, "k %d α %v", tc.k, tc.a)
		p0, _ := res.Stat("spec_decode_acceptance_rate_pos_0")
		assert.InEpsilon(t, tc.a, p0, 0.01)
	}
}

// TestSpecInvariants: the engine's invariants hold at every step with
// speculative decoding, under preemption and prefix caching; every
// request completes with all its tokens.
func TestSpecInvariants(t *testing.T) {
	t.Parallel()
	base := qwen4090(t)
	base.Speculative = &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: 4, AcceptanceRates: []float64{0.8, 0.6, 0.4, 0.2}}
	tiny := base
	tiny.Deployment.KVCacheMemory = 0
	tiny.KVBlocks = 300
	tiny.MaxNumBatchedTokens = 512
	lengths := workload.LogNormal{InputMedian: 600, InputSigma: 0.8, OutputMedian: 150, OutputSigma: 0.7, InputMax: 3000, OutputMax: 800}
	for _, sc := range []scenario{
		{"open", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 4}, Lengths: lengths}, Server: base, Requests: 300, Seed: 2}},
		{"tiny pool preempts", sim.Config{Workload: workload.Workload{Clients: 16, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}, Server: tiny, Requests: 200, Seed: 4}},
		{"prefill-first tiny pool", sim.Config{Workload: workload.Workload{Clients: 16, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}, Server: prefillFirst(tiny), Requests: 200, Seed: 5}},
		{"shared prefix tiny pool", sim.Config{Workload: workload.Workload{Clients: 16, Lengths: workload.SharedPrefix{Tokens: 700, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}}, Server: tiny, Requests: 120, Seed: 9}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			var engines []*engine
			cfg := sc.cfg
			cfg.Server = checked{ServerConfig: cfg.Server, t: t, engines: &engines, every: 1}
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			e := engines[0]
			assert.Zero(t, e.usedBlocks, "blocks returned to the pool")
			assert.Zero(t, e.running)
			var out int64
			for _, r := range res.Requests {
				require.Equal(t, metrics.Completed, r.Status, "request %d", r.ID)
				if tpot, ok := r.TPOT(); ok {
					require.InDelta(t, r.E2E(), r.TTFT()+float64(r.Output-1)*tpot, 1e-9)
				}
				out += int64(r.Output)
			}
			gen, _ := res.Stat("spec_decode_num_accepted_tokens")
			assert.Positive(t, gen)
			if sc.name != "open" {
				pre, _ := res.Stat("preemptions")
				assert.Greater(t, pre, 5.0, "a tiny pool must preempt")
			}
		})
	}
}

// TestSpecDeterministic: the same seed gives identical results; a
// request's acceptances do not depend on the batch around it, so its
// emitted-token count per step is the same at any concurrency.
func TestSpecDeterministic(t *testing.T) {
	t.Parallel()
	c := specFixed(t, 0.01, 3, 0.6)
	run := func(clients int) *sim.Result {
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: clients, Lengths: workload.Fixed{Input: 50, Output: 200}}, Server: c, Requests: 8, Seed: 3})
		require.NoError(t, err)
		return res
	}
	a, b := run(4), run(4)
	ja, err := a.MarshalJSON()
	require.NoError(t, err)
	jb, _ := b.MarshalJSON()
	assert.Equal(t, string(ja), string(jb))
	// With a fixed step time, a request's decode steps are its acceptance
	// draws alone: the same at concurrency 1 and 8.
	one, all := run(1), run(8)
	for i := range one.Requests {
		d1 := one.Requests[i].Done - one.Requests[i].FirstToken
		d8 := all.Requests[i].Done - all.Requests[i].FirstToken
		assert.InDelta(t, d1, d8, 1e-9, "request %d", i)
	}
}

// TestSpecConfigErrors: bad speculative configs name the field.
func TestSpecConfigErrors(t *testing.T) {
	t.Parallel()
	base := qwen4090(t)
	for _, tc := range []struct {
		name string
		spec specdecode.Config
		mod  func(*Config)
		want string
	}{
		{"no k", specdecode.Config{Method: specdecode.Eagle, AcceptanceRate: alpha(0.5)}, nil, "num_speculative_tokens 0"},
		{"unknown method", specdecode.Config{Method: "lookahead", NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5)}, nil, `method "lookahead" is unknown`},
		{"unknown draft", specdecode.Config{Model: "tiny-llama", NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5)}, nil, `model "tiny-llama"`},
		{"draft vocab", specdecode.Config{Model: "llama-3.2-1b", NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5)}, nil, "vocab"},
		{"draft too big", specdecode.Config{Model: "qwen2.5-72b", NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5)}, func(c *Config) { c.Deployment.KVCacheMemory = 0 }, "leave no KV cache"},
		{"draft tp", specdecode.Config{Method: specdecode.Eagle, NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5), DraftTensorParallelSize: 3}, nil, "draft_tensor_parallel_size 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			s := tc.spec
			c.Speculative = &s
			if tc.mod != nil {
				tc.mod(&c)
			}
			err := c.Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// A draft model whose weights leave no KV cache.
	m, _ := cost.Model("llama-3.1-70b")
	g, _ := cost.GPU("h100-sxm")
	c := Defaults(m, g)
	c.Deployment.TP = 2
	c.Speculative = &specdecode.Config{Model: "llama-3.1-70b", NumSpeculativeTokens: 2, AcceptanceRate: alpha(0.5)}
	err := c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `speculative_config: model "llama-3.1-70b"`)
}

// BenchmarkSpecDecode is BenchmarkDecode with EAGLE-3 (k = 4): decoders
// are tracked one by one, so ns/step grows with the batch (O(running) per
// step), unlike the plain engine's aggregate decode.
func BenchmarkSpecDecode(b *testing.B) {
	for _, c := range []int{1, 64, 512} {
		b.Run("C="+itoa(c), func(b *testing.B) {
			eng := benchEngine(b)
			eng.Speculative = &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: 4, AcceptanceDataset: "mt-bench"}
			cfg := sim.Config{
				Workload: workload.Workload{Clients: c, Lengths: workload.Fixed{Input: 128, Output: 512}},
				Server:   eng, Requests: 4 * c, Seed: 1, SummaryOnly: true,
			}
			b.ReportAllocs()
			var tokens, steps float64
			for b.Loop() {
				res, err := sim.Run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				tokens += float64(res.TotalOutput)
				s, _ := res.Stat("steps")
				steps += s
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(tokens/sec, "tokens/s")
			b.ReportMetric(sec*1e9/steps, "ns/step")
		})
	}
}

// TestSpecDataParallel: attention data-parallel groups each run their
// decoders speculatively and still step together; every request
// completes, the MTP head keeps the target's expert layout, and the
// acceptance counters add up over the groups.
func TestSpecDataParallel(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("gpt-oss-120b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	c := Defaults(m, g)
	c.Deployment.DP, c.Deployment.EP = 4, 4
	c.Speculative = &specdecode.Config{Method: "deepseek_mtp", NumSpeculativeTokens: 2, AcceptanceRates: []float64{0.8, 0.5}}
	r, err := c.resolve()
	require.NoError(t, err)
	plain := c
	plain.Speculative = nil
	rp, err := plain.resolve()
	require.NoError(t, err)
	assert.Less(t, r.pool.Blocks, rp.pool.Blocks, "the MTP block's weights and KV come out of the pool")
	run := func(c Config) *sim.Result {
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 32, Lengths: workload.Fixed{Input: 256, Output: 128}},
			Server: c, Requests: 128, Seed: 1})
		require.NoError(t, err)
		for _, q := range res.Requests {
			require.Equal(t, metrics.Completed, q.Status)
		}
		return res
	}
	on, off := run(c), run(plain)
	length, _ := on.Stat("spec_decode_mean_acceptance_length")
	assert.InDelta(t, 2.3, length, 0.1)
	assert.Less(t, on.TPOT().Mean(), off.TPOT().Mean())
}

// TestSpecMethods: every proposer runs; at one acceptance the proposer's
// share of the step orders as its cost does: n-gram on the CPU least, a
// one-layer head (EAGLE-3's with the small vocabulary below EAGLE's),
// then a 16-layer draft model.
func TestSpecMethods(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	share := map[specdecode.Method]float64{}
	for _, sc := range []specdecode.Config{
		{Method: specdecode.Ngram}, {Method: specdecode.Suffix}, {Method: specdecode.Eagle}, {Method: specdecode.Eagle3},
		{Method: specdecode.MTP}, {Method: specdecode.Medusa}, {Model: "llama-3.2-1b"},
	} {
		sc.NumSpeculativeTokens, sc.AcceptanceRate = 3, alpha(0.6)
		c := Defaults(m, g)
		c.Speculative = &sc
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 4, Lengths: workload.Fixed{Input: 200, Output: 100}},
			Server: c, Requests: 16, Seed: 1})
		require.NoError(t, err, "%+v", sc)
		require.Equal(t, 16, res.Completed)
		f, _ := res.Stat("spec_decode_draft_time_fraction")
		share[specdecode.Canonical(sc.Method, sc.Model)] = f
	}
	assert.Less(t, share[specdecode.Ngram], 0.01)
	assert.Less(t, share[specdecode.Ngram], share[specdecode.Eagle3])
	assert.Less(t, share[specdecode.Eagle3], share[specdecode.Eagle])
	assert.Less(t, share[specdecode.Eagle], share[specdecode.DraftModel])
	assert.Less(t, share[specdecode.Medusa], share[specdecode.Eagle], "one pass against k")
}

// prefillFirst is c without chunked prefill, its budget a whole
// max-model-len request (as vLLM requires then).
func prefillFirst(c Config) Config {
	c.EnableChunkedPrefill = false
	c.MaxNumBatchedTokens = max(c.MaxNumBatchedTokens, c.MaxModelLen, 4096)
	return c
}

// TestSpecPrefillFirst: without chunked prefill (vLLM v0's scheduler, as
// it ran speculative decoding) a step either prefills whole prompts or
// verifies every decoder's drafts, never both; with every draft accepted
// and one client, TPOT is exactly the step time over k + 1.
func TestSpecPrefillFirst(t *testing.T) {
	t.Parallel()
	const tau, k = 0.01, 3
	for _, clients := range []int{1, 8} {
		c := prefillFirst(specFixed(t, tau, k, 1))
		var mixed, verify, prefill int
		c.StepTime = func(b cost.Batch) float64 {
			switch {
			case b.PrefillTokens > 0 && b.DecodeSeqs > 0:
				mixed++
			case b.PrefillTokens > 0:
				prefill++
			case b.SpecTokens > 0:
				verify++
			}
			return tau
		}
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Clients: clients, Lengths: workload.Fixed{Input: 300, Output: 1 + (k+1)*20}},
			Server:   c, Requests: 40, Seed: 1,
		})
		require.NoError(t, err)
		assert.Zero(t, mixed, "%d clients: steps mixing prefill and verification", clients)
		assert.Positive(t, verify)
		assert.Positive(t, prefill)
		for _, r := range res.Requests {
			require.Equal(t, metrics.Completed, r.Status)
			if clients == 1 {
				tpot, _ := r.TPOT()
				assert.InDelta(t, tau/(k+1), tpot, 1e-12, "request %d", r.ID)
			}
		}
	}
}
