package batching

// offloadStore is the host side of KV offloading: vLLM's
// LRUOffloadingManager (vllm/v1/kv_offload/lru_manager.py at
// vllm-project/vllm@3a04cf8f) over a CPU buffer of a fixed number of
// blocks.
//
//   - Blocks are keyed by their prefix hash (the GPU cache's chain hash).
//     A stored block is not ready, and a lookup stops at it, until its
//     copy ends (complete_store).
//   - Blocks are kept in least-recently-used order; a lookup touches the
//     blocks it finds (the first one last, so a prefix's head is evicted
//     after its tail) and a store appends its blocks as the most recent.
//   - A store evicts, from the least recent, ready blocks that no load is
//     reading (ref 0), as many as it lacks room for; when not enough can
//     be evicted it stores nothing (prepare_store returns None);
//     prepareLeading instead stores the leading blocks there is room for
//     (LMCache's store, lmcachePolicy).
//
// Blocks of a request's own tokens carry no hash: a store keeps them as
// one anonymous run, which takes room, is evicted like any block (a run
// in part) and is never found. Each operation costs O(1) per block it
// touches; memory is O(hashed blocks held + runs).
type offloadStore struct {
	capacity, used int // blocks

	ents  []hostEntry
	spare []int32
	index map[uint64]int32 // hash → entry
	head  int32            // least recent; none when empty
	tail  int32

	evicted int64 // blocks evicted
}

// hostEntry is a hashed block (run 0) or a run of run anonymous blocks.
type hostEntry struct {
	hash       uint64
	run        int
	ready      bool
	ref        int32 // loads reading it
	prev, next int32
}

func newOffloadStore(capacity int) *offloadStore {
	return &offloadStore{capacity: capacity, index: map[uint64]int32{}, head: none, tail: none}
}

// size returns the blocks entry id holds.
func (s *offloadStore) size(id int32) int { return max(s.ents[id].run, 1) }

func (s *offloadStore) newEntry(e hostEntry) int32 {
	e.prev, e.next = none, none
	if k := len(s.spare); k > 0 {
		id := s.spare[k-1]
		s.spare = s.spare[:k-1]
		s.ents[id] = e
		return id
	}
	s.ents = append(s.ents, e)
	return int32(len(s.ents) - 1)
}

func (s *offloadStore) pushTail(id int32) {
	s.ents[id].prev, s.ents[id].next = s.tail, none
	if s.tail != none {
		s.ents[s.tail].next = id
	} else {
		s.head = id
	}
	s.tail = id
}

func (s *offloadStore) unlink(id int32) {
	e := &s.ents[id]
	if e.prev != none {
		s.ents[e.prev].next = e.next
	} else {
		s.head = e.next
	}
	if e.next != none {
		s.ents[e.next].prev = e.prev
	} else {
		s.tail = e.prev
	}
	e.prev, e.next = none, none
}

// ready returns the entry of hash h when it is stored and its copy has
// ended, else none.
func (s *offloadStore) ready(h uint64) int32 {
	if id, ok := s.index[h]; ok && s.ents[id].ready {
		return id
	}
	return none
}

// has reports whether h is stored or being stored.
func (s *offloadStore) has(h uint64) bool {
	_, ok := s.index[h]
	return ok
}

// touch makes the stored ones of hashes the most recent, the first last
// (lru_manager's touch walks them in reverse).
func (s *offloadStore) touch(hashes []uint64) {
	for i := len(hashes) - 1; i >= 0; i-- {
		if id, ok := s.index[hashes[i]]; ok {
			s.unlink(id)
			s.pushTail(id)
		}
	}
}

// evictable reports whether entry id may be evicted.
func (s *offloadStore) evictable(id int32) bool {
	return s.ents[id].ready && s.ents[id].ref == 0
}

// prepare makes room for the blocks of hashes (none of them stored) and
// anon anonymous blocks, evicting the least recent, and adds them, not
// ready, as the most recent. It returns their entries, appended to ids,
// and false, changing nothing, when there is not room enough.
func (s *offloadStore) prepare(hashes []uint64, anon int, ids []int32) ([]int32, bool) {
	need := len(hashes) + anon
	if need == 0 {
		return ids, true
	}
	short := s.used + need - s.capacity
	if short > 0 {
		found := 0
		for id := s.head; id != none && found < short; id = s.ents[id].next {
			if s.evictable(id) {
				found += s.size(id)
			}
		}
		if found < short {
			return ids, false
		}
		for id := s.head; short > 0; {
			next := s.ents[id].next
			if s.evictable(id) {
				short -= s.evict(id, short)
			}
			id = next
		}
	}
	for _, h := range hashes {
		id := s.newEntry(hostEntry{hash: h})
		s.index[h] = id
		s.pushTail(id)
		ids = append(ids, id)
	}
	if anon > 0 {
		id := s.newEntry(hostEntry{run: anon})
		s.pushTail(id)
		ids = append(ids, id)
	}
	s.used += need
	return ids, true
}

// evict frees up to n blocks of entry id (a run in part), returning how
// many it freed.
func (s *offloadStore) evict(id int32, n int) int {
	e := &s.ents[id]
	if e.run > n {
		e.run -= n
		s.used -= n
		s.evicted += int64(n)
		return n
	}
	freed := s.size(id)
	s.unlink(id)
	if e.run == 0 {
		delete(s.index, e.hash)
	}
	s.spare = append(s.spare, id)
	s.used -= freed
	s.evicted += int64(freed)
	return freed
}

// room returns how many of want blocks a prepare could add now: the free
// blocks and those of evictable entries, at most want.
func (s *offloadStore) room(want int) int {
	n := s.capacity - s.used
	for id := s.head; id != none && n < want; id = s.ents[id].next {
		if s.evictable(id) {
			n += s.size(id)
		}
	}
	return max(min(n, want), 0)
}

// prepareLeading is prepare for as many of the blocks as there is room
// for, hashes first, then the anonymous ones: the leading blocks of a
// store that cannot take them all. It returns their entries, appended to
// ids, and how many blocks it added.
func (s *offloadStore) prepareLeading(hashes []uint64, anon int, ids []int32) ([]int32, int) {
	k := s.room(len(hashes) + anon)
	h := min(k, len(hashes))
	ids, _ = s.prepare(hashes[:h], k-h, ids) // room for k: it cannot fail
	return ids, k
}
