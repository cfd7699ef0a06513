package batching

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// stepTime is a batch-dependent step time (seconds) the tests recompute
// by hand: 2 ms, plus 10 µs per prompt token computed, 2 ns per causal
// query-key pair, 0.1 ms per decode and 10 ns per decode context token.
func stepTime(b cost.Batch) float64 {
	return 0.002 + 1e-5*float64(b.PrefillTokens) + 2e-9*b.PrefillPairs + 1e-4*float64(b.DecodeSeqs) + 1e-8*b.DecodeContext
}

// modelFree is an engine with the step time above and a pool of blocks
// 16-token blocks.
func modelFree(blocks int, caching bool) Config {
	return Config{
		Deployment: cost.Deployment{TP: 1}, StepTime: stepTime, KVBlocks: blocks,
		MaxNumSeqs: 64, MaxNumBatchedTokens: 4096, EnableChunkedPrefill: true, BlockSize: 16,
		EnablePrefixCaching: caching,
	}
}

func stat(t *testing.T, res *sim.Result, name string) float64 {
	t.Helper()
	v, ok := res.Stat(name)
	require.True(t, ok, "stat %s", name)
	return v
}

// TestSharedPrefixStream: every prompt starts with the same 1,024 tokens
// and requests come one at a time. The first computes its whole prompt;
// every later one finds the 64 blocks of the prefix cached and computes
// only the rest, reading the prefix from the cache: its TTFT is one step
// of L − 1024 prompt tokens after 1024 prior ones, computed here from the
// step-time formula. The hit rate is (n−1)·1024 / Σ L.
func TestSharedPrefixStream(t *testing.T) {
	t.Parallel()
	const n, prefix = 40, 1024
	w := workload.Workload{
		Arrivals: workload.Constant{Rate: 1}, // 1 s apart: each runs alone
		Lengths:  workload.SharedPrefix{Tokens: prefix, Lengths: workload.Random{InputLen: 300, OutputLen: 20, RangeRatio: 0.5}},
	}
	for _, caching := range []bool{true, false} {
		res, err := sim.Run(sim.Config{Workload: w, Server: modelFree(2000, caching), Requests: n, Seed: 3})
		require.NoError(t, err)
		require.Equal(t, n, res.Completed)
		var queries, hits float64
		for i, r := range res.Requests {
			hit := 0
			if caching && i > 0 {
				hit = prefix
			}
			chunk := r.Input - hit
			want := 0.002 + 1e-5*float64(chunk) + 2e-9*(float64(chunk)*float64(hit)+float64(chunk)*float64(chunk+1)/2)
			require.InDelta(t, want, r.TTFT(), 1e-12, "request %d (caching %v)", i, caching)
			queries += float64(r.Input)
			hits += float64(hit)
		}
		if !caching {
			_, ok := res.Stat("prefix_cache_hit_rate")
			assert.False(t, ok, "no prefix counters without caching")
			continue
		}
		assert.Equal(t, queries, stat(t, res, "prefix_cache_queries"))
		assert.Equal(t, hits, stat(t, res, "prefix_cache_hits"))
		// The hit rate against theory: (n−1)·1024 hit tokens over n prompts
		// of mean 1024 + 300 (random lengths uniform on [150, 450]: σ 86.6,
		// so the mean of 40 has σ 13.7 tokens, 1.0% of 1324; the tolerance,
		// 2.5%, is about 2.4σ).
		theory := float64(n-1) * prefix / (n * (prefix + 300))
		assert.InEpsilon(t, theory, stat(t, res, "prefix_cache_hit_rate"), 0.025)
		assert.Zero(t, stat(t, res, "prefix_cache_evicted_blocks"), "the pool never fills")
	}
}

// TestLRUCache feeds a known block sequence, one request per block, to a
// pool of k blocks and checks every hit and miss, and the final eviction
// order, against a textbook least-recently-used cache of k entries
// written here: a free cached block goes to the back of the free queue,
// a hit takes it out, and a miss takes the front block, evicting its hash.
func TestLRUCache(t *testing.T) {
	t.Parallel()
	const k = 4
	seq := []uint64{1, 2, 3, 1, 4, 5, 2, 1, 6, 1, 3, 3, 7, 5, 4, 1, 2, 8, 8, 1}

	var lru []uint64 // front: least recently used
	var want []bool
	for _, b := range seq {
		hit := false
		for i, x := range lru {
			if x == b {
				lru = append(lru[:i], lru[i+1:]...)
				hit = true
				break
			}
		}
		if !hit && len(lru) == k {
			lru = lru[1:]
		}
		lru = append(lru, b)
		want = append(want, hit)
	}

	c := newBlockCache(k)
	var got []bool
	for _, b := range seq {
		id := c.lookup(b)
		got = append(got, id != none)
		if id != none {
			c.touch(id)
		} else {
			c.alloc(1)
			id = c.register(b)
		}
		c.release(id)
		c.verify(t)
	}
	assert.Equal(t, want, got, "hit or miss, access by access")
	var order []uint64
	for id := c.head; id != none; id = c.ents[id].next {
		order = append(order, c.ents[id].hash)
	}
	assert.Equal(t, lru, order, "eviction order")
	assert.Equal(t, int64(countFalse(want)-k), c.evicted, "one eviction per miss once full")
}

func countFalse(v []bool) int {
	n := 0
	for _, b := range v {
		if !b {
			n++
		}
	}
	return n
}

// TestSessionHits: one session of five turns, each turn's prompt the
// whole conversation so far plus new tokens. Turn k finds cached every
// full block of turn k−1's KV entries — its prompt and all but its last
// output token, P(k−1) + O(k−1) − 1 tokens — capped at P(k) − 1 tokens, in
// whole 16-token blocks; turn 1 finds nothing.
func TestSessionHits(t *testing.T) {
	t.Parallel()
	const system, bs = 100, 16
	turns := []workload.Pair{{Input: 50, Output: 20}, {Input: 30, Output: 45}, {Input: 200, Output: 1}, {Input: 7, Output: 33}, {Input: 64, Output: 16}}
	w := workload.Workload{
		Arrivals: workload.Constant{Rate: 0.001},
		Sessions: &workload.Sessions{Turns: distribution.Deterministic{Value: float64(len(turns))}, Think: distribution.Deterministic{Value: 0.5}, SystemPrompt: system},
		Lengths:  workload.Sequence{Pairs: turns},
	}
	res, err := sim.Run(sim.Config{Workload: w, Server: modelFree(2000, true), Requests: len(turns), Seed: 1})
	require.NoError(t, err)
	require.Equal(t, len(turns), res.Completed)

	var hits, queries, prev, prevOut int
	history := system
	for k, tn := range turns {
		p := history + tn.Input
		hit := 0
		if k > 0 {
			hit = min((prev+prevOut-1)/bs, (p-1)/bs) * bs
		}
		r := res.Requests[k]
		require.Equal(t, p, r.Input, "turn %d prompt", k+1)
		hits += hit
		queries += p
		prev, prevOut = p, tn.Output
		history = p + tn.Output
		if k > 0 {
			// The turn starts a think time after the previous one ended.
			require.InDelta(t, res.Requests[k-1].Done+0.5, r.Sent, 1e-12)
		}
	}
	assert.Equal(t, float64(hits), stat(t, res, "prefix_cache_hits"))
	assert.Equal(t, float64(queries), stat(t, res, "prefix_cache_queries"))
}

// TestCachingFindsNothing: requests that share nothing and are never
// preempted see exactly the same engine with prefix caching on as off:
// equal records, and equal result JSON but for the prefix-cache counters.
func TestCachingFindsNothing(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios(t)[:3] {
		on, err := sim.Run(sc.cfg)
		require.NoError(t, err)
		off := sc.cfg
		c := off.Server.(Config)
		c.EnablePrefixCaching = false
		off.Server = c
		res, err := sim.Run(off)
		require.NoError(t, err)
		require.Zero(t, stat(t, on, "preemptions"), sc.name)
		require.Zero(t, stat(t, on, "prefix_cache_hits"), sc.name)
		require.Equal(t, res.Requests, on.Requests, sc.name)
		// Drop the prefix counters (appended last) and compare the JSON.
		n := len(res.Server)
		require.Equal(t, res.Server, on.Server[:n], sc.name)
		on.Server = on.Server[:n]
		a, err := json.Marshal(on)
		require.NoError(t, err)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		require.Equal(t, string(b), string(a), sc.name)
	}
}

// TestPrefixAwareRouting: 30 requests one at a time, request i starting
// with prefix i mod 3 (256 tokens) then 69 tokens of its own, on two
// replicas with room for every prefix. Round-robin sends request i to
// replica i mod 2, which hits when that replica served the prefix before
// (worked out here with a set per replica): each replica misses each
// prefix once. Prefix-aware routing sends a request to the replica that
// has its prefix (the cheaper one when both are idle), so only each
// prefix's first request misses.
func TestPrefixAwareRouting(t *testing.T) {
	t.Parallel()
	const n, prefixes, size = 30, 3, 64
	trace := workload.Sequence{BlockSize: size}
	for i := range n {
		p := int64(i % prefixes)
		trace.Blocks = append(trace.Blocks, []int64{10 * p, 10*p + 1, 10*p + 2, 10*p + 3, int64(1000 + i)})
		trace.Pairs = append(trace.Pairs, workload.Pair{Input: 4*size + 69, Output: 10})
	}
	cached := make([]map[int]bool, 2)
	for i := range cached {
		cached[i] = map[int]bool{}
	}
	rrHits := 0
	for i := range n {
		rep, p := i%2, i%prefixes
		if cached[rep][p] {
			rrHits += 4 * size
		}
		cached[rep][p] = true
	}
	want := map[Router]int{RoundRobin: rrHits, PrefixAware: (n - prefixes) * 4 * size}
	for router, hits := range want {
		cl := Cluster{Engine: modelFree(2000, true), Replicas: 2, Router: router}
		res, err := sim.Run(sim.Config{Workload: workload.Workload{Arrivals: workload.Constant{Rate: 1}, Lengths: trace}, Server: cl, Requests: n, Seed: 1})
		require.NoError(t, err)
		assert.Equal(t, float64(hits), stat(t, res, "prefix_cache_hits"), router)
		assert.Equal(t, float64(n*(4*size+69)), stat(t, res, "prefix_cache_queries"), router)
		assert.Equal(t, float64(n), stat(t, res, "replica0_requests")+stat(t, res, "replica1_requests"), router)
		assert.GreaterOrEqual(t, stat(t, res, "load_imbalance"), 1.0, router)
	}
	assert.Greater(t, want[PrefixAware], want[RoundRobin])
}
