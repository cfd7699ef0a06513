package batching

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// warmSpans returns the content of request i of lengths (a
// workload.PromptSampler) as spans.
func warmSpans(t *testing.T, lengths workload.Lengths, i int) []metrics.Span {
	t.Helper()
	ps, ok := lengths.(workload.PromptSampler)
	require.True(t, ok)
	_, _, segs := ps.SamplePrompt(rand.New(rand.NewPCG(1, 2)), i, nil)
	out := make([]metrics.Span, len(segs))
	for k, s := range segs {
		out[k] = metrics.Span{ID: s.ID, Tokens: s.Tokens}
	}
	return out
}

// TestWarmPromptsHitFromTheStart: TestSharedPrefixStream's stream of
// prompts behind one shared 1,024-token prefix, with that prefix among
// the engine's warm prompts: the first request finds the prefix cached
// too, and every TTFT is the step-time formula's for L − 1024 tokens
// after 1024 prior ones; with a warm prompt of other content nothing
// changes from the cold run.
func TestWarmPromptsHitFromTheStart(t *testing.T) {
	t.Parallel()
	const n, prefix = 10, 1024
	lengths := workload.SharedPrefix{Tokens: prefix, Lengths: workload.Random{InputLen: 300, OutputLen: 20, RangeRatio: 0.5}}
	w := workload.Workload{Arrivals: workload.Constant{Rate: 1}, Lengths: lengths}
	shared := warmSpans(t, lengths, 0)
	require.Equal(t, []metrics.Span{{ID: shared[0].ID, Tokens: prefix}}, shared)
	for _, c := range []struct {
		name  string
		warm  [][]metrics.Span
		first int // the first request's hit tokens
	}{
		{"the prefix warm", [][]metrics.Span{{{ID: 7, Tokens: 64}}, shared}, prefix},
		{"other content warm", [][]metrics.Span{{{ID: 7, Tokens: 2048}}}, 0},
	} {
		cfg := modelFree(2000, true)
		cfg.WarmPrompts = c.warm
		res, err := sim.Run(sim.Config{Workload: w, Server: cfg, Requests: n, Seed: 3})
		require.NoError(t, err, c.name)
		var hits float64
		for i, r := range res.Requests {
			hit := prefix
			if i == 0 {
				hit = c.first
			}
			chunk := r.Input - hit
			want := 0.002 + 1e-5*float64(chunk) + 2e-9*(float64(chunk)*float64(hit)+float64(chunk)*float64(chunk+1)/2)
			require.InDelta(t, want, r.TTFT(), 1e-12, "%s: request %d", c.name, i)
			hits += float64(hit)
		}
		assert.Equal(t, hits, stat(t, res, "prefix_cache_hits"), c.name)
	}
}

// TestWarmPromptsEvictOldestFirst: warm prompts of more blocks than the
// pool holds leave it as a run that served them in order would. A pool
// of 8 blocks warmed with A (6 blocks) then B (6 blocks): A's blocks were
// freed last block first, so B's allocation takes the 2 never-used
// blocks and then A's 4 tail blocks, and A's first 2 blocks stay cached.
// A request with A's content then hits 32 tokens; warmed B then A, it
// hits all of A's 96.
func TestWarmPromptsEvictOldestFirst(t *testing.T) {
	t.Parallel()
	lengths := workload.SharedPrefix{Tokens: 96, Lengths: workload.Fixed{Input: 16, Output: 2}}
	a := warmSpans(t, lengths, 0)
	b := []metrics.Span{{ID: 99, Tokens: 96}}
	for _, c := range []struct {
		warm [][]metrics.Span
		hit  float64
	}{{[][]metrics.Span{a, b}, 32}, {[][]metrics.Span{b, a}, 96}} {
		cfg := modelFree(8, true)
		cfg.MaxNumSeqs, cfg.MaxNumBatchedTokens = 8, 128
		cfg.WarmPrompts = c.warm
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Clients: 1, Lengths: lengths}, Server: cfg, Requests: 1, Seed: 1})
		require.NoError(t, err)
		assert.Equal(t, c.hit, stat(t, res, "prefix_cache_hits"))
	}
}

// TestWarmPromptsRefused: warm prompts need prefix caching and spans of
// at least one token.
func TestWarmPromptsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		caching bool
		warm    [][]metrics.Span
		field   string
	}{
		{false, [][]metrics.Span{{{ID: 1, Tokens: 16}}}, "warm_prompts"},
		{true, [][]metrics.Span{{{ID: 1, Tokens: 16}}, {{ID: 2, Tokens: 0}}}, "warm_prompts[1].tokens"},
	} {
		cfg := modelFree(100, c.caching)
		cfg.WarmPrompts = c.warm
		err := cfg.Validate()
		require.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), c.field)
	}
}
