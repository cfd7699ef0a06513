package batching

import (
	"github.com/servesim/servesim/internal/mix"
	"github.com/servesim/servesim/sim/metrics"
)

// blockCache is vLLM v1's block pool with automatic prefix caching
// (vllm/v1/core/block_pool.py, kv_cache_manager.py, kv_cache_utils.py):
//
//   - A full block of a request's tokens has a hash chained over every token
//     before it, so equal hashes mean equal whole prefixes. Only full blocks
//     are hashed, cached and hit.
//   - Blocks a request holds have a reference count; a block is free when
//     no request holds it. Free blocks wait in one queue in the order they
//     were freed (a request frees its blocks last block first, so a
//     prompt's tail goes before its head). A free block that has a hash
//     stays cached: a request with that prefix takes it back out of the
//     queue (a hit). Allocation pops blocks from the head of the queue and
//     evicts the hash of a cached one: least recently freed first.
//   - Blocks are not de-duplicated: a block computed again while an equal
//     one is cached is cached too, and a lookup returns the first cached.
//
// Free blocks that were never hashed (or whose hash was evicted) carry no
// identity, so the queue keeps runs of them as one node: memory is O(cached
// blocks), not O(pool), and the hash index never holds more entries than
// the pool has blocks. Each operation is O(1) per block it touches.
type blockCache struct {
	total int // blocks in the pool
	used  int // blocks held by requests: total − blocks in the queue

	ents  []cacheEntry // nodes: hashed blocks and runs of anonymous free blocks
	spare []int32      // unused entry slots
	index hashIndex    // hash → first entry with that hash
	head  int32        // free queue, evicted first; -1 when empty
	tail  int32

	cachedFree int   // hashed blocks in the queue (evictable)
	evicted    int64 // hashes evicted by allocation
}

// cacheEntry is a hashed block (run == 0) or, only in the queue, a run of
// run anonymous free blocks.
type cacheEntry struct {
	hash       uint64
	ref        int32 // requests holding the block (at most max_num_seqs)
	run        int64 // anonymous free blocks of the run; 64-bit: kv_blocks reaches it
	prev, next int32 // queue links; -1 = none
	dup        int32 // next entry with the same hash; -1 = none
}

const none int32 = -1

func newBlockCache(total int) *blockCache {
	c := &blockCache{total: total, head: none, tail: none}
	c.pushAnon(total)
	return c
}

func (c *blockCache) newEntry(e cacheEntry) int32 {
	e.prev, e.next, e.dup = none, none, none
	if k := len(c.spare); k > 0 {
		id := c.spare[k-1]
		c.spare = c.spare[:k-1]
		c.ents[id] = e
		return id
	}
	c.ents = append(c.ents, e)
	return int32(len(c.ents) - 1)
}

func (c *blockCache) pushTail(id int32) {
	c.ents[id].prev, c.ents[id].next = c.tail, none
	if c.tail != none {
		c.ents[c.tail].next = id
	} else {
		c.head = id
	}
	c.tail = id
}

func (c *blockCache) unlink(id int32) {
	e := &c.ents[id]
	if e.prev != none {
		c.ents[e.prev].next = e.next
	} else {
		c.head = e.next
	}
	if e.next != none {
		c.ents[e.next].prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = none, none
}

// pushAnon appends n anonymous free blocks to the queue.
func (c *blockCache) pushAnon(n int) {
	if n <= 0 {
		return
	}
	if c.tail != none && c.ents[c.tail].run > 0 {
		c.ents[c.tail].run += int64(n)
		return
	}
	c.pushTail(c.newEntry(cacheEntry{run: int64(n)}))
}

// lookup returns the first cached block with hash h, or none.
func (c *blockCache) lookup(h uint64) int32 { return c.index.get(h) }

// touch takes a hit: the request holds block id; a free one leaves the
// queue.
func (c *blockCache) touch(id int32) {
	e := &c.ents[id]
	if e.ref == 0 {
		c.unlink(id)
		c.used++
		c.cachedFree--
	}
	e.ref++
}

// alloc takes n blocks (n ≤ total − used) from the head of the queue,
// evicting the hashes of cached ones; the caller holds them anonymously.
func (c *blockCache) alloc(n int) {
	c.used += n
	for n > 0 {
		id := c.head
		e := &c.ents[id]
		if e.run > 0 {
			take := min(int(e.run), n)
			e.run -= int64(take)
			n -= take
			if e.run == 0 {
				c.unlink(id)
				c.spare = append(c.spare, id)
			}
			continue
		}
		c.unlink(id)
		c.unindex(id)
		c.spare = append(c.spare, id)
		c.cachedFree--
		c.evicted++
		n--
	}
}

// register gives a block its caller holds anonymously the hash h, so that
// later requests can hit it; the caller holds the returned entry.
func (c *blockCache) register(h uint64) int32 {
	id := c.newEntry(cacheEntry{hash: h, ref: 1})
	first := c.index.insert(h, id)
	if first == id {
		return id
	}
	for c.ents[first].dup != none {
		first = c.ents[first].dup
	}
	c.ents[first].dup = id
	return id
}

func (c *blockCache) unindex(id int32) {
	first := c.index.drop(c.ents[id].hash, id, c.ents[id].dup)
	if first == id {
		return
	}
	for c.ents[first].dup != id {
		first = c.ents[first].dup
	}
	c.ents[first].dup = c.ents[id].dup
}

// release drops a hold on entry id; at no holder it joins the queue's tail,
// still cached.
func (c *blockCache) release(id int32) {
	e := &c.ents[id]
	e.ref--
	if e.ref == 0 {
		c.pushTail(id)
		c.used--
		c.cachedFree++
	}
}

// releaseAnon frees n anonymous blocks to the queue's tail.
func (c *blockCache) releaseAnon(n int) {
	c.pushAnon(n)
	c.used -= n
}

// Block hashes. A request's token k is identified by the span of its
// content (sim.Env.Content) covering k and k's offset in it
// (metrics.Span); tokens past the content are the request's own, as if in
// a span whose ID is the request's.
// Block j's hash mixes block j−1's hash with the (ID, offset, length) of
// each span piece in the block, so it identifies the whole prefix up to
// the block's end whatever the block size, and whatever block size the
// workload described its content in: a 512-token trace block is 32 engine
// blocks of 16, each hashed from its own 16 tokens and everything before.

// rootHash is the chain's start (vLLM's NONE_HASH).
const rootHash uint64 = 0x6a09e667f3bcc909

// cursor is a position in a request's content: span index and offset;
// span == len(content) is the request's own tail, off tokens into it.
type cursor struct {
	span int
	off  int
}

// ownID is the identity of the tokens of request r past its content.
func ownID(r *metrics.Request) uint64 {
	return mix.Mix64(uint64(r.ID)*0x9e3779b97f4a7c15 ^ 0x5851f42d4c957f2d)
}

// nextHash returns the hash of the block of bs tokens starting at cur in
// request r's content spans, chained on prev, and moves cur past it.
func nextHash(r *metrics.Request, spans []metrics.Span, cur *cursor, prev uint64, bs int) uint64 {
	h := prev
	for need := bs; need > 0; {
		var id uint64
		var n int
		if cur.span < len(spans) {
			s := spans[cur.span]
			n = min(s.Tokens-cur.off, need)
			if n <= 0 {
				cur.span, cur.off = cur.span+1, 0
				continue
			}
			id = s.ID
		} else {
			id, n = ownID(r), need
		}
		h = mix.Mix64(h*0x9e3779b97f4a7c15 + id)
		h = mix.Mix64(h ^ (uint64(cur.off)<<32 | uint64(n)))
		cur.off += n
		need -= n
	}
	if h == 0 {
		h = 1 // 0 marks an empty slot of the index
	}
	return h
}

// hashIndex maps block hashes (well mixed, never 0) to entries: open
// addressing with linear probing on the hash's low bits and deletion by
// backward shift, so it keeps no tombstones. It doubles when half full,
// so it holds at most twice as many slots as the cache has hashed blocks
// (the pool bounds those); Go's map costs several times more per
// operation on this hot path.
type hashIndex struct {
	slots []hashSlot
	n     int
}

type hashSlot struct {
	key uint64 // 0: empty
	val int32
}

func (x *hashIndex) home(h uint64) int { return int(h & uint64(len(x.slots)-1)) }

// find returns h's slot, or the empty slot where it would go.
func (x *hashIndex) find(h uint64) int {
	mask := len(x.slots) - 1
	i := x.home(h)
	for x.slots[i].key != h && x.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	return i
}

// get returns h's entry, or none.
func (x *hashIndex) get(h uint64) int32 {
	if x.n == 0 {
		return none
	}
	if s := x.slots[x.find(h)]; s.key == h {
		return s.val
	}
	return none
}

// insert maps h to id unless h is present; it returns h's entry.
func (x *hashIndex) insert(h uint64, id int32) int32 {
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	}
	i := x.find(h)
	if x.slots[i].key == h {
		return x.slots[i].val
	}
	x.slots[i] = hashSlot{h, id}
	x.n++
	return id
}

// drop removes entry id of hash h: h then maps to next (another entry of
// the same hash), or to nothing when next is none. It returns h's entry
// before, which is not id when id is a later duplicate (then nothing
// changes).
func (x *hashIndex) drop(h uint64, id, next int32) int32 {
	i := x.find(h)
	first := x.slots[i].val
	switch {
	case first != id:
		return first
	case next != none:
		x.slots[i].val = next
		return first
	}
	// Delete, shifting back the entries after i that probed past it.
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j].key != 0; j = (j + 1) & mask {
		// Move j into the hole unless its home lies cyclically in (i, j].
		if (j-x.home(x.slots[j].key))&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = hashSlot{}
	x.n--
	return first
}

func (x *hashIndex) grow() {
	old := x.slots
	x.slots, x.n = make([]hashSlot, max(2*len(old), 1024)), 0
	for _, s := range old {
		if s.key != 0 {
			x.insert(s.key, s.val)
		}
	}
}
