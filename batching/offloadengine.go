package batching

import (
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// The engine's KV offloading (KVOffload): stores at the end of steps,
// loads before admission, the PCIe link's queues. An engine without
// KVOffload has e.off nil and none of this runs.

// offloader is one engine's offloading state.
type offloader struct {
	cfg   *offloadResolved
	store *offloadStore

	// The link: when each direction's queue is next free (seconds); with
	// HalfDuplex loads and stores share down.
	down, up float64
	stores   event.Ring[storeXfer]
	loads    event.Ring[loadXfer]
	onStored event.Handler
	onLoaded event.Handler

	inLoad  map[uint64]int // hashes being loaded → loads reading them
	skipped []*seq         // deferred this step (a block of theirs is being loaded)
	loading int            // requests waiting for their loads
	// reserved is the GPU blocks the requests holding loaded blocks
	// (loading, or loaded and not yet admitted) still need for their
	// prefills: a load starts only when its request's need fits beside
	// them, so those requests can always be admitted once the running
	// ones drain.
	reserved int

	// stall is the seconds of synchronous transfers (sync policies) of
	// the step being formed, which its duration adds (takeStall).
	stall float64

	hashes []uint64 // scratch
	ids    []int32  // scratch

	st offloadStats
}

// storeXfer is a device-to-host copy in flight: the host entries it fills.
type storeXfer struct{ ids []int32 }

// loadXfer is a host-to-device copy in flight for request q.
type loadXfer struct {
	q      *seq
	ids    []int32
	hashes []uint64
	since  float64 // when q started waiting for it
}

// offloadStats are the offloading counters.
type offloadStats struct {
	hits                  int64 // prompt tokens loaded from the host (vLLM's external prefix-cache hits)
	preemptedHits         int64 // the same for requests resumed after a preemption
	storedBlocks, skips   int64 // blocks copied to the host; stores skipped for want of room
	loadedBlocks, loads   int64
	loadWait, maxLoadWait float64 // Σ and max of the time requests waited for their loads
	syncTime              float64 // Σ seconds steps waited for synchronous transfers (sync policies)
}

func newOffloader(e *engine) *offloader {
	o := &offloader{cfg: e.cfg.off, store: newOffloadStore(e.cfg.off.blocks), inLoad: map[uint64]int{}}
	o.onStored = func(int64) { o.stored() }
	o.onLoaded = func(int64) { o.loaded(e) }
	return o
}

// transfer queues a copy of n blocks in one direction and returns when
// it ends.
func (o *offloader) transfer(now float64, n int, load bool) float64 {
	free := &o.down
	if load && !o.cfg.HalfDuplex {
		free = &o.up
	}
	end := max(*free, now) + o.cfg.Duration(n, o.cfg.blockBytes)
	*free = end
	return end
}

// nextWaiting returns the head of the waiting queue and its prefix-cache
// lookup (hit and evictable blocks), as every admission loop begins. With
// offloading, a head whose next blocks the host holds starts their load
// and leaves the line (the next head is returned), one whose host hit is
// being loaded by another request waits for the next step, and ok is false
// when the queue runs out or a load cannot get its GPU blocks (admission
// stops, as vLLM's does when it cannot allocate).
func (e *engine) nextWaiting() (q *seq, hit, evictable int, ok bool) {
	for e.waiting.Len() > 0 && !e.waiting.held() {
		q = e.waiting.Peek()
		hit, evictable = e.lookup(q)
		if e.off == nil || q.warm > 0 {
			return q, hit, evictable, true
		}
		switch e.off.plan(e, q, hit, evictable) {
		case planAdmit:
			return q, hit, evictable, true
		case planLoaded:
			return q, q.warm, 0, true
		case planFull:
			return nil, 0, 0, false
		}
	}
	return nil, 0, 0, false
}

type planOutcome uint8

const (
	planAdmit   planOutcome = iota // no host hit: admit as usual
	planLoading                    // load started; q left the line
	planDefer                      // q set aside until the next step
	planFull                       // no GPU room for the load
	planLoaded                     // loaded synchronously (sync policies): admit q with its warm blocks
)

// plan looks for q's host blocks from the one its GPU hit ends in (in a
// row, up to target−1 tokens in whole host blocks) and starts the load of
// the engine blocks they hold past the hit, when that is a host block's
// worth at least (vLLM's get_num_new_matched_tokens). With a fromStart
// policy the host must hold the blocks the GPU hit covers too; with a
// sync one the load is done at once, in the step being formed (loadNow).
func (o *offloader) plan(e *engine, q *seq, hit, evictable int) planOutcome {
	bs, f := e.cfg.BlockSize, o.cfg.factor
	o.hashes = o.hashes[:0]
	for j := f - 1; j < hit; j += f { // host blocks the GPU hit covers
		o.hashes = append(o.hashes, e.cache.ents[e.hits[j]].hash)
	}
	touched := len(o.hashes)
	o.ids = o.ids[:0]
	deferred := false
	start := hit / f * f // the host block the hit ends in, in engine blocks
	// A host hit lies within the content (and, fromStart, extends the
	// host's blocks under the GPU hit).
	if q.shared >= (start+f)*bs && (!o.cfg.pol.fromStart || o.holds(o.hashes)) {
		cur, h, b := e.hitCur, e.hitHash, hit
		for most := e.fullBlocks(q.target - 1); start+(len(o.ids)+1)*f <= most; {
			for end := start + (len(o.ids)+1)*f; b < end; b++ {
				h = nextHash(q.req, q.content, &cur, h, bs)
			}
			id := o.store.ready(h)
			if id == none {
				break
			}
			deferred = deferred || o.inLoad[h] > 0
			o.hashes = append(o.hashes, h)
			o.ids = append(o.ids, id)
		}
	}
	o.store.touch(o.hashes)         // vLLM touches the request's blocks at each lookup
	n := start + len(o.ids)*f - hit // engine blocks to load
	switch {
	case n < f:
		return planAdmit
	case deferred:
		e.waiting.Pop()
		o.skipped = append(o.skipped, q)
		return planDefer
	case e.usedBlocks+o.reserved+e.blocks(q.target)-hit+evictable > e.cfg.pool.Blocks:
		// Load only for a request whose whole prefill fits now beside the
		// other loaded requests' (reserved).
		if o.stuck(e) {
			o.stepAside(e, q)
			return planDefer
		}
		return planFull
	}
	if o.cfg.pol.sync {
		o.loadNow(e, q, hit, n)
		return planLoaded
	}
	e.waiting.Pop()
	o.warm(e, q, hit, n)
	x := loadXfer{q: q, ids: append([]int32(nil), o.ids...), hashes: append([]uint64(nil), o.hashes[touched:]...), since: e.env.Now()}
	for i, id := range x.ids {
		o.store.ents[id].ref++
		o.inLoad[x.hashes[i]]++
	}
	o.loads.Push(x)
	o.loading++
	e.env.Schedule(o.transfer(e.env.Now(), n, true), event.Normal, o.onLoaded, 0)
	return planLoading
}

// holds reports whether the host holds every one of hashes, ready.
func (o *offloader) holds(hashes []uint64) bool {
	for _, h := range hashes {
		if o.store.ready(h) == none {
			return false
		}
	}
	return true
}

// warm makes q, still waiting, hold its hit blocks and n newly allocated
// ones for the blocks loaded from the host, and counts the load.
func (o *offloader) warm(e *engine, q *seq, hit, n int) {
	e.takeHits(q, hit)
	e.allocBlocks(n)
	q.warm = hit + n
	o.reserved += e.blocks(q.target) - q.warm
	q.stored = max(q.stored, q.warm)                       // stores start after the loaded blocks
	if tokens := int64(n * e.cfg.BlockSize); q.preempted { // counted apart, as the GPU cache's lookups are
		o.st.preemptedHits += tokens
	} else {
		o.st.hits += tokens
	}
	o.st.loads++
	o.st.loadedBlocks += int64(n)
}

// loadNow loads q's n host blocks past its hit synchronously (sync
// policies): the blocks join the GPU prefix cache at once, q stays at the
// head of the line to be admitted with them, and the step being formed
// lasts the load longer.
func (o *offloader) loadNow(e *engine, q *seq, hit, n int) {
	o.warm(e, q, hit, n)
	e.cacheFull(q, q.warm*e.cfg.BlockSize, false)
	d := o.cfg.Duration(n, o.cfg.blockBytes)
	o.stall += d
	o.st.loadWait += d
	o.st.maxLoadWait = max(o.st.maxLoadWait, d)
}

// takeStall returns the seconds the step just formed waits for its
// synchronous transfers, and starts the next step's count.
func (o *offloader) takeStall() float64 {
	d := o.stall
	o.stall = 0
	o.st.syncTime += d
	return d
}

// offloadStall is the seconds the step just formed lasts longer for KV
// offloading's synchronous transfers (takeStall); 0 without offloading.
func (e *engine) offloadStall() float64 {
	if e.off == nil {
		return 0
	}
	return e.off.takeStall()
}

// formed is told that a step was formed. A promptOnly policy stores the
// whole prompt blocks each of its prefill chunks completes (write-through;
// with sync, after the forward pass, within the step).
func (o *offloader) formed(e *engine) {
	if !o.cfg.pol.promptOnly {
		return
	}
	for _, ch := range e.chunks {
		o.storeUpto(e, ch.q, min(ch.q.computed+ch.tokens, ch.q.req.Input))
	}
}

// computed is told that a step computed q's tokens up to q.computed: the
// native connector stores what it computed (store on compute).
func (o *offloader) computed(e *engine, q *seq) {
	if !o.cfg.pol.promptOnly {
		o.storeUpto(e, q, q.computed)
	}
}

// freeing is told that q frees its blocks, computed tokens' worth: the
// native connector stores the blocks decoding filled since its last
// store (decoders are tracked in aggregate).
func (o *offloader) freeing(e *engine, q *seq, computed int) {
	if !o.cfg.pol.promptOnly {
		o.storeUpto(e, q, computed)
	}
}

// stuck reports whether the line can move only past its head: nothing
// runs or loads, so no block will free, and requests further down hold
// loaded blocks (reserved) while they wait behind a head that needs them.
func (o *offloader) stuck(e *engine) bool {
	return o.reserved > 0 && o.loading == 0 && e.running == 0
}

// stepAside sets the head of the line, q, aside for the step being
// formed (restore puts it back at the head after).
func (o *offloader) stepAside(e *engine, q *seq) {
	e.waiting.Pop()
	o.skipped = append(o.skipped, q)
}

// passHead sets aside head q, whose blocks do not fit, when the line is
// stuck behind it (KV offloading, stuck), and reports whether it did.
func (e *engine) passHead(q *seq) bool {
	if e.off == nil || !e.off.stuck(e) {
		return false
	}
	e.off.stepAside(e, q)
	return true
}

// loaded ends the oldest load: its blocks join the GPU prefix cache, held
// by the request, which returns to the head of the line.
func (o *offloader) loaded(e *engine) {
	x := o.loads.Pop()
	for i, id := range x.ids {
		o.store.ents[id].ref--
		if o.inLoad[x.hashes[i]]--; o.inLoad[x.hashes[i]] == 0 {
			delete(o.inLoad, x.hashes[i])
		}
	}
	q := x.q
	e.cacheFull(q, q.warm*e.cfg.BlockSize, false)
	w := e.env.Now() - x.since
	o.st.loadWait += w
	o.st.maxLoadWait = max(o.st.maxLoadWait, w)
	o.loading--
	e.waiting.PushFront(q)
	e.wait()
}

// admitted is told that loaded request q is admitted: its need is no
// longer reserved.
func (o *offloader) admitted(e *engine, q *seq) {
	o.reserved -= e.blocks(q.target) - q.warm
}

// waitingCount is the requests waiting, those in their request overhead
// and those waiting for their KV loads included (vLLM's
// num_requests_waiting counts WAITING_FOR_REMOTE_KVS requests).
func (e *engine) waitingCount() int {
	n := e.waiting.Len() + e.waiting.pending()
	if e.off != nil {
		n += e.off.loading
	}
	return n
}

// restore puts the requests deferred while forming a step back at the
// head of the line, in their order.
func (o *offloader) restore(e *engine) {
	for i := len(o.skipped) - 1; i >= 0; i-- {
		e.waiting.PushFront(o.skipped[i])
	}
	o.skipped = o.skipped[:0]
}

// storeUpto copies q's whole host blocks among its first upto tokens that
// are not yet stored to the host (store on compute): blocks within its
// content by their hash, the rest as an anonymous run. When the host has
// no room the store is skipped and tried again at q's next call; with a
// truncate policy it keeps the leading blocks there is room for and never
// tries the rest. A sync policy's store is part of the step being formed
// (stall); the others' queue on the link.
func (o *offloader) storeUpto(e *engine, q *seq, upto int) {
	f := o.cfg.factor
	full := e.fullBlocks(upto) / f * f // engine blocks of whole host blocks
	if full <= q.stored {
		return
	}
	bs := e.cfg.BlockSize
	o.hashes = o.hashes[:0]
	anon := 0
	for i := q.stored + f - 1; i < full; i += f { // each host block's last engine block
		if (i+1)*bs > q.shared || i >= len(q.ents) {
			anon++
			continue
		}
		if h := e.cache.ents[q.ents[i]].hash; !o.store.has(h) {
			o.hashes = append(o.hashes, h)
		}
	}
	ids, k := o.prepare(o.hashes, anon)
	if k < 0 {
		o.st.skips++
		return
	}
	q.stored = full
	if k == 0 {
		return
	}
	n := k * f
	o.st.storedBlocks += int64(n)
	if o.cfg.pol.sync {
		for _, id := range ids {
			o.store.ents[id].ready = true
		}
		o.stall += o.cfg.Duration(n, o.cfg.blockBytes)
		return
	}
	o.stores.Push(storeXfer{ids: ids})
	e.env.Schedule(o.transfer(e.env.Now(), n, false), event.Normal, o.onStored, 0)
}

// prepare makes the host entries of a store of hashes and anon anonymous
// blocks and returns them with the host blocks they hold: all, or −1 (a
// skip) when there is no room for all; with a truncate policy the leading
// ones there is room for, a store cut short counting as a skip.
func (o *offloader) prepare(hashes []uint64, anon int) ([]int32, int) {
	if !o.cfg.pol.truncate {
		ids, ok := o.store.prepare(hashes, anon, nil)
		if !ok {
			return nil, -1
		}
		return ids, len(hashes) + anon
	}
	ids, k := o.store.prepareLeading(hashes, anon, nil)
	if k < len(hashes)+anon {
		o.st.skips++
	}
	return ids, k
}

// stored ends the oldest store: its blocks become findable.
func (o *offloader) stored() {
	for _, id := range o.stores.Pop().ids {
		o.store.ents[id].ready = true
	}
}

// stats returns the offloading counters, in engine blocks: the host's size,
// blocks and bytes (over all TP ranks) copied each way, the loads and the
// prompt tokens they brought (kv_offload_hits, with hit rate over the
// prefix-cache queries, and the total hit rate of both tiers; resumed
// preempted requests apart, kv_offload_preempted_hits), the time
// requests waited for their loads, and with a sync policy
// kv_offload_sync_time, the seconds steps waited for their transfers.
func (o *offloader) stats(e *engine) []metrics.Stat {
	s := &o.st
	q := float64(e.stats.queries)
	rankBytes := o.cfg.blockBytes * float64(max(e.cfg.Deployment.TP, 1))
	out := []metrics.Stat{
		{Name: "kv_offload_blocks", Value: float64(o.store.capacity * o.cfg.factor)},
		{Name: "kv_offload_stored_blocks", Value: float64(s.storedBlocks)},
		{Name: "kv_offload_stored_bytes", Value: float64(s.storedBlocks) * rankBytes},
		{Name: "kv_offload_store_skips", Value: float64(s.skips)},
		{Name: "kv_offload_evicted_blocks", Value: float64(o.store.evicted * int64(o.cfg.factor))},
		{Name: "kv_offload_loads", Value: float64(s.loads)},
		{Name: "kv_offload_loaded_blocks", Value: float64(s.loadedBlocks)},
		{Name: "kv_offload_loaded_bytes", Value: float64(s.loadedBlocks) * rankBytes},
		{Name: "kv_offload_hits", Value: float64(s.hits)},
		{Name: "kv_offload_preempted_hits", Value: float64(s.preemptedHits)},
		metrics.RatioStat("kv_offload_hit_rate", float64(s.hits), q),
		metrics.RatioStat("prefix_cache_total_hit_rate", float64(e.stats.hits+s.hits), q),
		metrics.RatioStat("mean_kv_offload_load_wait", s.loadWait, float64(s.loads)),
		{Name: "max_kv_offload_load_wait", Merge: metrics.Max, Value: s.maxLoadWait},
	}
	if o.cfg.pol.sync {
		out = append(out, metrics.Stat{Name: "kv_offload_sync_time", Value: s.syncTime})
	}
	return out
}
