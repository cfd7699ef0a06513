package batching

import (
	"fmt"

	"github.com/servesim/servesim/sim/metrics"
)

// The engine's use of its blockCache (prefix caching). Without prefix
// caching every method here reduces to plain block counting, so an engine
// with EnablePrefixCaching false behaves exactly as before it existed.

// lookup finds q's longest cached prefix in whole blocks, at most
// target−1 tokens (vLLM recomputes the last prompt token to get its
// logits, kv_cache_manager.get_computed_blocks), and how many of those
// blocks no request holds: taking them uses up free blocks. admit takes
// the hits of the last lookup. Without prefix caching it returns 0, 0.
// O(hit blocks).
func (e *engine) lookup(q *seq) (hit, evictable int) {
	if e.cache == nil {
		return 0, 0
	}
	if q.warm > 0 { // it holds its blocks already (KV offloading)
		return q.warm, 0
	}
	bs := e.cfg.BlockSize
	e.hits, e.hitSeq = e.hits[:0], q
	if !q.preempted && q.shared < bs {
		// Its first block is its own: only it could have cached it, and
		// only by being preempted.
		e.hitHash, e.hitCur = rootHash, cursor{}
		return 0, 0
	}
	cur, h := cursor{}, rootHash
	for most := e.fullBlocks(q.target - 1); len(e.hits) < most; {
		next := cur
		nh := nextHash(q.req, q.content, &next, h, bs)
		id := e.cache.lookup(nh)
		if id == none {
			break
		}
		e.hits = append(e.hits, id)
		if e.cache.ents[id].ref == 0 {
			evictable++
		}
		cur, h = next, nh
	}
	e.hitHash, e.hitCur = h, cur
	return len(e.hits), evictable
}

// takeHits makes q hold the last lookup's hit blocks and counts the
// lookup in vLLM's prefix-cache statistics (queries: the request's tokens;
// hits: the tokens found), apart for requests resumed after a preemption.
func (e *engine) takeHits(q *seq, hit int) {
	if q.warm > 0 { // held and counted when its KV load began
		e.off.admitted(e, q)
		q.warm = 0
		return
	}
	if e.hitSeq != q || hit != len(e.hits) {
		panic(fmt.Sprintf("batching: admitting request %d with %d hit blocks, not its lookup's %d", q.req.ID, hit, len(e.hits)))
	}
	for _, id := range e.hits {
		e.cache.touch(id)
	}
	q.ents = append(q.ents[:0], e.hits...)
	q.lastHash, q.cur = e.hitHash, e.hitCur
	e.hitSeq = nil
	e.usedBlocks = e.cache.used
	tokens := int64(hit * e.cfg.BlockSize)
	if q.preempted {
		e.stats.preemptedQueries += int64(q.target)
		e.stats.preemptedHits += tokens
	} else {
		e.stats.queries += int64(q.target)
		e.stats.hits += tokens
	}
}

// allocBlocks takes n free blocks (evicting cached ones, least recently
// freed first).
func (e *engine) allocBlocks(n int) {
	if e.cache != nil {
		e.cache.alloc(n)
	}
	e.usedBlocks += n
}

// cacheFull hashes and caches q's blocks that are full once its first
// upto tokens are computed, as vLLM caches a chunk's full blocks when it
// schedules the chunk, up to the last block within its content (q.shared
// tokens), or all of them when own is set. Blocks filled by decoding are
// cached when the request leaves (freeBlocks): decoders are tracked in
// aggregate, and no other request can ask for a prefix that includes a
// running request's output before that request has ended.
//
// A block holding any of the request's own tokens (past its content) can
// only ever be hit by the request itself, after a preemption; such blocks
// are cached only when it is preempted. Elsewhere they stay anonymous,
// which no lookup can tell apart from cached: they sit in the same place
// in the free queue. So a workload without content costs O(1) per request.
func (e *engine) cacheFull(q *seq, upto int, own bool) {
	if e.cache == nil {
		return
	}
	bs := e.cfg.BlockSize
	if !own {
		upto = min(upto, q.shared)
	}
	for n := e.fullBlocks(upto); len(q.ents) < n; {
		q.lastHash = nextHash(q.req, q.content, &q.cur, q.lastHash, bs)
		q.ents = append(q.ents, e.cache.register(q.lastHash))
	}
}

// freeBlocks returns the blocks of q's computed KV entries to the pool:
// full blocks stay cached (vLLM frees a request's blocks last block first,
// so its prompt's head is evicted last).
func (e *engine) freeBlocks(q *seq, computed int, preempted bool) {
	if e.off != nil { // KV offloading: what it computed since its last store
		e.off.freeing(e, q, computed)
	}
	if e.cache == nil {
		e.usedBlocks -= e.blocks(computed)
		return
	}
	e.cacheFull(q, computed, preempted)
	e.cache.releaseAnon(e.blocks(computed) - len(q.ents))
	for i := len(q.ents) - 1; i >= 0; i-- {
		e.cache.release(q.ents[i])
	}
	q.ents, q.lastHash, q.cur = q.ents[:0], rootHash, cursor{}
	e.usedBlocks = e.cache.used
}

// cachedPrefix returns the number of whole blocks of r's prompt this
// engine has cached (at most (input−1)/block size, as a lookup would
// find), for the router. O(hit blocks); it changes nothing.
func (e *engine) cachedPrefix(r *metrics.Request) int {
	if e.cache == nil {
		return 0
	}
	content := e.env.Content(r)
	if len(content) == 0 {
		return 0
	}
	bs := e.cfg.BlockSize
	cur, h, n := cursor{}, rootHash, 0
	for most := e.fullBlocks(r.Input - 1); n < most; n++ {
		h = nextHash(r, content, &cur, h, bs)
		if e.cache.lookup(h) == none {
			break
		}
	}
	return n
}

// prefixStats are the prefix-cache counters: vLLM's prefix_cache_queries
// and prefix_cache_hits (tokens, requests not preempted before) and their
// ratio, the hit rate; the same for resumed requests; hashes evicted; and
// the fraction of the pool holding cached blocks no request uses.
func (e *engine) prefixStats() []metrics.Stat {
	s := &e.stats
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	return []metrics.Stat{
		{Name: "prefix_cache_queries", Value: float64(s.queries)},
		{Name: "prefix_cache_hits", Value: float64(s.hits)},
		metrics.RatioStat("prefix_cache_hit_rate", float64(s.hits), float64(s.queries)),
		{Name: "prefix_cache_preempted_queries", Value: float64(s.preemptedQueries)},
		{Name: "prefix_cache_preempted_hits", Value: float64(s.preemptedHits)},
		{Name: "prefix_cache_evicted_blocks", Value: float64(e.cache.evicted)},
		{Name: "mean_kv_cache_cached", Merge: metrics.Mean, Value: div(s.cachedArea, s.busy)},
		{Name: "max_kv_cache_cached", Merge: metrics.Max, Value: s.maxCached},
	}
}

// warmCache caches the full blocks of prompts (Config.WarmPrompts) as if
// each had been served and had finished, in order: its blocks taken from
// the free queue (evicting the oldest cached ones when the pool is full),
// hashed as a request with that content would hash them, and freed last
// block first. Blocks past the pool's size are not cached.
func (e *engine) warmCache(prompts [][]metrics.Span) {
	bs := e.cfg.BlockSize
	var ids []int32
	for _, spans := range prompts {
		tokens := 0
		for _, sp := range spans {
			tokens += sp.Tokens
		}
		n := min(tokens/bs, e.cache.total)
		e.cache.alloc(n)
		ids = ids[:0]
		cur, h := cursor{}, rootHash
		for range n {
			h = nextHash(nil, spans, &cur, h, bs)
			ids = append(ids, e.cache.register(h))
		}
		for i := len(ids) - 1; i >= 0; i-- {
			e.cache.release(ids[i])
		}
	}
	e.usedBlocks = e.cache.used
}
