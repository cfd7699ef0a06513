package sim

import (
	"fmt"
	"math"
)

// A Handler is an event callback. arg is the value given to Schedule,
// typically a request or server index; a Handler bound once (a method value
// made at setup) costs no allocation per event.
type Handler func(arg int64)

// Priority orders events that fall at the same time: lower first. Events
// with equal time and priority fire in the order they were scheduled.
type Priority uint8

// Priorities used by servesim. Arrivals and completions are Normal; a
// server that wants to see every same-time arrival before it forms a batch
// schedules its decision at Late.
const (
	Early  Priority = 0
	Normal Priority = 1
	Late   Priority = 2
)

const seqBits = 56

type event struct {
	time float64
	key  uint64 // priority<<seqBits | insertion sequence
	fn   Handler
	arg  int64
}

func (a *event) before(b *event) bool {
	return a.time < b.time || (a.time == b.time && a.key < b.key)
}

// Engine is a discrete-event scheduler: a binary heap of value events
// ordered by (time, priority, insertion sequence), so the run is
// deterministic and same-time ties are FIFO. The clock never goes back.
// Scheduling and firing do not allocate once the heap has grown to its
// working size. The zero Engine is ready to use at time 0.
//
// An Engine is not safe for concurrent use; one run owns one Engine.
type Engine struct {
	now   float64
	seq   uint64
	heap  []event
	fired uint64
}

// Now returns the simulated time in seconds.
func (e *Engine) Now() float64 { return e.now }

// Len returns the number of pending events.
func (e *Engine) Len() int { return len(e.heap) }

// Fired returns the number of events fired so far.
func (e *Engine) Fired() uint64 { return e.fired }

// NextTime returns the time of the earliest pending event, or +Inf.
func (e *Engine) NextTime() float64 {
	if len(e.heap) == 0 {
		return math.Inf(1)
	}
	return e.heap[0].time
}

// Schedule arranges for fn(arg) to run at time t with priority p.
// Scheduling in the past or at a NaN time is a broken invariant of the
// caller and panics.
func (e *Engine) Schedule(t float64, p Priority, fn Handler, arg int64) {
	if !(t >= e.now) {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now %v", t, e.now))
	}
	e.seq++
	e.heap = append(e.heap, event{time: t, key: uint64(p)<<seqBits | e.seq, fn: fn, arg: arg})
	e.up(len(e.heap) - 1)
}

// After is Schedule at Now()+d.
func (e *Engine) After(d float64, p Priority, fn Handler, arg int64) {
	e.Schedule(e.now+d, p, fn, arg)
}

// Step fires the earliest event and reports whether there was one.
func (e *Engine) Step() bool {
	n := len(e.heap) - 1
	if n < 0 {
		return false
	}
	ev := e.heap[0]
	e.heap[0] = e.heap[n]
	e.heap[n] = event{}
	e.heap = e.heap[:n]
	if n > 0 {
		e.down(0)
	}
	e.now = ev.time
	e.fired++
	ev.fn(ev.arg)
	return true
}

// RunUntil fires events while the earliest is at or before t and stop
// returns false; stop may be nil. It returns whether stop ended the loop.
func (e *Engine) RunUntil(t float64, stop func() bool) bool {
	for len(e.heap) > 0 && e.heap[0].time <= t {
		e.Step()
		if stop != nil && stop() {
			return true
		}
	}
	return false
}

func (e *Engine) up(i int) {
	h := e.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *Engine) down(i int) {
	h := e.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
