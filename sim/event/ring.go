package event

// Ring is a growable FIFO queue over a circular buffer: Push and Pop are
// O(1) and allocate only when the buffer doubles, so a queue that has
// reached its working size no longer allocates. The zero Ring is empty
// and ready to use. Servers use it for their waiting lines.
type Ring[T any] struct {
	buf        []T // its length is 0 or a power of two, so an index wraps by a mask
	head, size int
}

// wrap returns index i modulo the buffer's length (a power of two).
func (q *Ring[T]) wrap(i int) int { return i & (len(q.buf) - 1) }

// Len returns the number of queued items.
func (q *Ring[T]) Len() int { return q.size }

// Push appends v at the back.
func (q *Ring[T]) Push(v T) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.buf[q.wrap(q.head+q.size)] = v
	q.size++
}

func (q *Ring[T]) grow() {
	nb := make([]T, max(16, 2*len(q.buf))) // a power of two
	n := copy(nb, q.buf[q.head:])
	copy(nb[n:], q.buf[:q.head])
	q.buf, q.head = nb, 0
}

// PushFront inserts v at the front (a preempted request going back to the
// head of the line).
func (q *Ring[T]) PushFront(v T) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.head = q.wrap(q.head + len(q.buf) - 1)
	q.buf[q.head] = v
	q.size++
}

// Pop removes and returns the front item. It panics when empty.
func (q *Ring[T]) Pop() T {
	if q.size == 0 {
		panic("event: Pop from empty Ring")
	}
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head = q.wrap(q.head + 1)
	q.size--
	return v
}

// Peek returns the front item without removing it. It panics when empty.
func (q *Ring[T]) Peek() T {
	if q.size == 0 {
		panic("event: Peek at empty Ring")
	}
	return q.buf[q.head]
}

// At returns the i-th item from the front (0 ≤ i < Len).
func (q *Ring[T]) At(i int) T { return q.buf[q.wrap(q.head+i)] }
