package batching

// finishQueue holds the decoders' finish steps: the step index at whose
// end each emits its last token. Keys are step indices, every one ahead of
// the current step by at most the longest output, so it is a calendar
// queue: a ring of buckets indexed by key modulo the ring's size, which
// grows (a power of two) to stay above the farthest key ahead. A bucket is
// a list threaded through the seqs themselves (seq.finKey, seq.finNext), so
// Push and Remove touch only the seq and one ring slot. Take returns a
// step's seqs in admission order. Delaying every key by one step
// (prefill-first mode) is O(1): keys are stored less the total delay.
type finishQueue struct {
	ring  []*seq
	delay int64 // added to every stored key
	n     int
	due   []*seq // Take's result
}

// Len returns the number of seqs queued.
func (f *finishQueue) Len() int { return f.n }

// slot returns the ring slot of stored key k.
func (f *finishQueue) slot(k int64) **seq { return &f.ring[k&int64(len(f.ring)-1)] }

// Push queues q to finish at step key; now is the current step (key > now).
func (f *finishQueue) Push(q *seq, key, now int64) {
	if ahead := key - now; ahead >= int64(len(f.ring)) {
		f.grow(ahead)
	}
	q.finKey = key - f.delay
	s := f.slot(q.finKey)
	q.finNext, *s = *s, q
	f.n++
}

// grow resizes the ring to more than ahead slots, requeueing its seqs.
func (f *finishQueue) grow(ahead int64) {
	size := max(64, len(f.ring))
	for int64(size) <= ahead {
		size *= 2
	}
	old := f.ring
	f.ring = make([]*seq, size)
	for _, q := range old {
		for q != nil {
			next := q.finNext
			s := f.slot(q.finKey)
			q.finNext, *s = *s, q
			q = next
		}
	}
}

// Remove takes queued q out of the queue (a preempted decoder). O(seqs
// finishing at its step).
func (f *finishQueue) Remove(q *seq) {
	p := f.slot(q.finKey)
	for *p != q {
		p = &(*p).finNext
	}
	*p, q.finNext = q.finNext, nil
	f.n--
}

// Due reports whether a seq finishes at step key.
func (f *finishQueue) Due(key int64) bool {
	return f.n > 0 && *f.slot(key - f.delay) != nil
}

// Take removes the seqs that finish at step key and returns them in
// admission order. The slice is valid until the next Take.
func (f *finishQueue) Take(key int64) []*seq {
	if f.n == 0 || *f.slot(key - f.delay) == nil {
		return nil // most steps: write nothing (no GC write barriers)
	}
	s := f.slot(key - f.delay)
	f.due = f.due[:0]
	for q := *s; q != nil; {
		next := q.finNext
		q.finNext = nil
		f.due = append(f.due, q)
		q = next
	}
	*s = nil
	f.n -= len(f.due)
	// Insertion sort by admission order: a step's finishers are few, and
	// pushed mostly in reverse order.
	d := f.due
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j].order < d[j-1].order; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	return d
}

// Delay moves every queued seq one step later.
func (f *finishQueue) Delay() { f.delay++ }
