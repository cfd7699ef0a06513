package batching

import (
	"cmp"
	"slices"
)

// finishEntry says seq q (if its epoch still matches) emits its last token
// at the end of a step index, its key in the finishQueue (stored less the
// queue's delay); order is q's admission order then, which breaks ties.
type finishEntry struct {
	q     *seq
	key   int64
	order int64
	epoch int32
}

// finishQueue holds the decoders' finish steps. Keys are step indices and
// every key is ahead of the current step, by at most the longest output,
// so it is a calendar queue: a ring of buckets indexed by key modulo the
// ring's size, which grows (a power of two) to stay above the farthest key
// ahead. Push is O(1) amortised; take returns the entries due at one step
// in admission order, sorting that bucket's few entries. Delaying every
// key by one step (prefill-first mode) is O(1) too: keys are stored less
// the total delay.
type finishQueue struct {
	ring  [][]finishEntry
	delay int64 // added to every stored key
	n     int
}

// Len returns the number of entries, stale ones included.
func (f *finishQueue) Len() int { return f.n }

// bucket returns the bucket of stored key k.
func (f *finishQueue) bucket(k int64) *[]finishEntry {
	return &f.ring[k&int64(len(f.ring)-1)]
}

// Push adds entry e due at step key; now is the current step (key > now).
func (f *finishQueue) Push(key, now int64, e finishEntry) {
	if ahead := key - now; ahead >= int64(len(f.ring)) {
		f.grow(ahead)
	}
	e.key = key - f.delay
	b := f.bucket(e.key)
	*b = append(*b, e)
	f.n++
}

// grow resizes the ring to more than ahead buckets, rehashing its entries.
func (f *finishQueue) grow(ahead int64) {
	size := max(64, len(f.ring))
	for int64(size) <= ahead {
		size *= 2
	}
	old := f.ring
	f.ring = make([][]finishEntry, size)
	for _, b := range old {
		for _, e := range b {
			nb := f.bucket(e.key)
			*nb = append(*nb, e)
		}
	}
}

// Due reports whether an entry is due at step key.
func (f *finishQueue) Due(key int64) bool {
	return f.n > 0 && len(*f.bucket(key - f.delay)) > 0
}

// Take removes the entries due at step key and returns them in admission
// order. The slice is valid until the next Push.
func (f *finishQueue) Take(key int64) []finishEntry {
	if f.n == 0 {
		return nil
	}
	b := f.bucket(key - f.delay)
	out := *b
	if len(out) > 1 {
		slices.SortFunc(out, func(x, y finishEntry) int { return cmp.Compare(x.order, y.order) })
	}
	*b = out[:0]
	f.n -= len(out)
	return out
}

// Delay moves every entry one step later.
func (f *finishQueue) Delay() { f.delay++ }
