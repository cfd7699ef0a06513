package batching

import (
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/internal/mix"
)

// verify walks the free queue and the index: queue blocks plus held
// blocks make the pool, queued hashed blocks are unheld and indexed, every
// index chain holds live entries of its hash, and the index is never
// larger than the pool. O(pool).
func (c *blockCache) verify(t *testing.T) {
	t.Helper()
	free, cached := 0, 0
	prev := none
	for id := c.head; id != none; id = c.ents[id].next {
		e := c.ents[id]
		if e.prev != prev {
			t.Fatalf("queue: entry %d links back to %d, not %d", id, e.prev, prev)
		}
		if e.run > 0 {
			free += int(e.run)
		} else {
			if e.ref != 0 {
				t.Fatalf("queued hashed block %d has %d holders", id, e.ref)
			}
			free++
			cached++
		}
		prev = id
	}
	switch {
	case prev != c.tail:
		t.Fatalf("queue tail %d, walk ends at %d", c.tail, prev)
	case free+c.used != c.total:
		t.Fatalf("%d queued + %d held blocks != pool %d", free, c.used, c.total)
	case cached != c.cachedFree:
		t.Fatalf("%d cached free blocks counted %d", cached, c.cachedFree)
	case c.index.n > c.total:
		t.Fatalf("index of %d hashes exceeds the pool of %d blocks", c.index.n, c.total)
	}
	n := 0
	for i, s := range c.index.slots {
		h := s.key
		if h == 0 {
			continue
		}
		n++
		if got := c.index.get(h); got != s.val {
			t.Fatalf("index slot %d: %x maps to %d, found %d", i, h, s.val, got)
		}
		for id := s.val; id != none; id = c.ents[id].dup {
			if c.ents[id].hash != h || c.ents[id].run != 0 {
				t.Fatalf("index chain of %x holds entry %d (hash %x, run %d)", h, id, c.ents[id].hash, c.ents[id].run)
			}
		}
	}
	if n != c.index.n {
		t.Fatalf("index counts %d keys, holds %d", c.index.n, n)
	}
}

// TestHashIndex checks the open-addressing index against a Go map under
// random inserts and removals of mixed keys, as block hashes are (linear
// probing forms clusters that removals must shift back).
func TestHashIndex(t *testing.T) {
	t.Parallel()
	var x hashIndex
	ref := map[uint64]int32{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		k := mix.Mix64(uint64(r.IntN(20_000))) | 1
		if v, ok := ref[k]; ok && r.IntN(2) == 0 {
			if first := x.drop(k, v, none); first != v {
				t.Fatalf("drop %x found %d, want %d", k, first, v)
			}
			delete(ref, k)
			continue
		}
		got := x.insert(k, int32(i))
		if want, ok := ref[k]; ok {
			if got != want {
				t.Fatalf("insert of present %x returned %d, want %d", k, got, want)
			}
		} else {
			ref[k] = int32(i)
		}
		if i%1000 == 0 {
			for k, v := range ref {
				if x.get(k) != v {
					t.Fatalf("get %x = %d, want %d", k, x.get(k), v)
				}
			}
			if x.n != len(ref) {
				t.Fatalf("%d keys, want %d", x.n, len(ref))
			}
		}
	}
	if x.get(2) != none {
		t.Fatal("absent key found")
	}
}
