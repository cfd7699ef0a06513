package event

// Heap is a binary min-heap of values of T, each pushed with an ordering
// key (a time and a tie-breaking integer): Pop returns the value with the
// smallest time, and among equal times the smallest tie-breaker. Push and
// Pop are O(log n) and allocate only when the backing array grows, so a
// heap that has reached its working size no longer allocates.
//
// The ordering key is stored beside the value rather than computed by a
// comparison function: comparing two concrete fields inlines, where a
// function value or a method constraint would cost an indirect call per
// comparison (about 1.5x slower on the engine's hot path, measured).
//
// The Engine keeps its events in one; a server uses one for its own
// orderings (a batching engine's finish steps, say). The zero Heap is
// empty and ready to use.
type Heap[T any] struct {
	items []heapItem[T]
}

type heapItem[T any] struct {
	time float64
	tie  uint64
	v    T
}

func (a *heapItem[T]) before(b *heapItem[T]) bool {
	return earlier(a.time, a.tie, b.time, b.tie)
}

// Len returns the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Min returns the smallest item's time and a pointer to its value, valid
// until the next Push or Pop. It panics when the heap is empty.
func (h *Heap[T]) Min() (time float64, v *T) { return h.items[0].time, &h.items[0].v }

// Push adds v under the key (time, tie). It sifts a hole up from the
// end and writes the item once where it lands, rather than swapping at
// every level.
func (h *Heap[T]) Push(time float64, tie uint64, v T) {
	h.items = append(h.items, heapItem[T]{})
	s := h.items
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !earlier(time, tie, s[p].time, s[p].tie) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = heapItem[T]{time, tie, v}
}

// Pop removes the smallest item and returns its time and value. It panics
// when the heap is empty. The root's hole moves down to the bottom along
// the smaller child (one comparison a level), then the last item, which
// belongs near the bottom, sifts up from there and is written once where
// it stops (Floyd's bottom-up deletion: about half the comparisons of
// sifting the last item down from the root). Keys are compared as a
// strict order, so for distinct keys (the Engine's are: their tie holds
// the insertion sequence) the pops come out in the same order as with any
// other correct heap.
func (h *Heap[T]) Pop() (time float64, v T) {
	n := len(h.items) - 1
	s := h.items
	top := s[0]
	last := s[n]
	s[n] = heapItem[T]{} // drop references held by the removed slot
	s = s[:n]
	h.items = s
	if n > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && s[r].before(&s[l]) {
				m = r
			}
			s[i] = s[m]
			i = m
		}
		for i > 0 {
			p := (i - 1) / 2
			if !last.before(&s[p]) {
				break
			}
			s[i] = s[p]
			i = p
		}
		s[i] = last
	}
	return top.time, top.v
}

// Shift adds d to every item's time. The order is unchanged, so it costs
// one pass and no sifting.
func (h *Heap[T]) Shift(d float64) {
	for i := range h.items {
		h.items[i].time += d
	}
}
