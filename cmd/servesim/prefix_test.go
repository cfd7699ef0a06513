package main

import (
	"strings"
	"testing"
)

// TestPrefixCachingFlags: prefix caching is on by default, as in vLLM;
// prompts sharing a prefix then hit the cache, and
// --no-enable-prefix-caching turns it off. With prefix_repetition's
// defaults (10 prefixes of 256 tokens, 256-token suffixes) served one
// request at a time, every request after the first of its prefix hits the
// prefix's 256 tokens out of 512: (200 − 10)·256 / (200·512) = 47.5%.
func TestPrefixCachingFlags(t *testing.T) {
	t.Parallel()
	base := []string{"bench", "--dataset-name", "prefix_repetition", "--num-prompts", "200", "--request-rate", "2", "--quiet"}
	on := mustRun(t, base...)
	if !strings.Contains(on.stdout, "Prefix cache hit rate (%):               47.50") {
		t.Errorf("prefix_repetition with caching: want a 47.50%% hit rate:\n%s", on.stdout)
	}
	off := mustRun(t, append(base, "--no-enable-prefix-caching")...)
	if strings.Contains(off.stdout, "Prefix cache hit rate") {
		t.Errorf("--no-enable-prefix-caching: want no prefix cache (no hit-rate line):\n%s", off.stdout)
	}
	// --random-prefix-len: 1024 shared tokens before 1024 random ones; all
	// but the first request hit the prefix: (100 − 1)·1024 / (100·2048).
	pre := mustRun(t, "bench", "--random-prefix-len", "1024", "--num-prompts", "100", "--request-rate", "2", "--quiet")
	if !strings.Contains(pre.stdout, "Prefix cache hit rate (%):               49.50") {
		t.Errorf("--random-prefix-len 1024: want a 49.50%% hit rate:\n%s", pre.stdout)
	}
	if r := servesim(t, "bench", "--router", "nearest", "--data-parallel-size", "2"); r.code != 2 || !strings.Contains(r.stderr, "prefix-aware") {
		t.Errorf("--router nearest: exit %d, stderr %q; want the routers listed", r.code, r.stderr)
	}
}
