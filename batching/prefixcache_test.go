package batching

import (
	"testing"
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
	case len(c.index) > c.total:
		t.Fatalf("index of %d hashes exceeds the pool of %d blocks", len(c.index), c.total)
	}
	for h, id := range c.index {
		for ; id != none; id = c.ents[id].dup {
			if c.ents[id].hash != h || c.ents[id].run != 0 {
				t.Fatalf("index chain of %x holds entry %d (hash %x, run %d)", h, id, c.ents[id].hash, c.ents[id].run)
			}
		}
	}
}
