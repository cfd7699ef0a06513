package calibrate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/workload"
)

// TestWarmupRepeats: a genai-perf point's first 2c requests repeat warm-up
// prompts the engine starts with cached, so their prefills are one block
// each and the point's mean TTFT falls; an engine without prefix caching,
// a point of its own lengths or with data parallelism gets none; and a
// count beyond the limit is refused before anything is allocated.
func TestWarmupRepeats(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	prof := mustProfile(t, "h100-sxm")
	pt := Point{ID: "a", Model: "Qwen/Qwen3-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Concurrency: 4,
		Input: 4096, Output: 32, NumPrompts: 40, WarmupRepeats: 8}
	cfg, err := s.Config(pt, prof)
	require.NoError(t, err)
	eng := cfg.Server.(batching.Config)
	require.Len(t, eng.WarmPrompts, 8)
	ps, ok := cfg.Workload.Lengths.(workload.PromptSampler)
	require.True(t, ok)
	for i := range 10 {
		_, _, content := ps.SamplePrompt(nil, i, nil)
		if i < 8 {
			require.Len(t, content, 1, "request %d", i)
			assert.Equal(t, eng.WarmPrompts[i][0].ID, content[0].ID, "request %d repeats warm-up prompt %d", i, i)
			assert.Equal(t, 4096, content[0].Tokens)
		} else {
			assert.Empty(t, content, "request %d is its own", i)
		}
	}
	cold := pt
	cold.WarmupRepeats = 0
	m, err := s.Predict([]Point{pt, cold}, prof)
	require.NoError(t, err)
	// 8 of 40 prefills of 4096 tokens skipped: well below the cold run's.
	assert.Less(t, m[0].TTFT, 0.9*m[1].TTFT, "warm %v, cold %v", m[0].TTFT, m[1].TTFT)

	off := s
	off.Adjust = func(_ Point, c *batching.Config) error { c.EnablePrefixCaching = false; return nil }
	for name, c := range map[string]struct {
		s  Simulator
		pt Point
	}{
		"no prefix caching": {off, pt},
		"own lengths":       {s, func() Point { p := pt; p.Lengths = []workload.Pair{{Input: 4096, Output: 32}}; return p }()},
		"data parallel":     {s, func() Point { p := pt; p.Model, p.DP, p.EP = "Qwen/Qwen3-30B-A3B", 2, 2; return p }()},
	} {
		cfg, err := c.s.Config(c.pt, prof)
		require.NoError(t, err, name)
		assert.Empty(t, cfg.Server.(batching.Config).WarmPrompts, name)
	}
	huge := pt
	huge.Concurrency, huge.NumPrompts, huge.WarmupRepeats = 1, 3_000_000, 3_000_000
	_, err = s.Config(huge, prof)
	assert.ErrorIs(t, err, ErrInvalid)
}
