package event

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

// action is what an event does: fn(arg).
type action struct {
	fn  Handler
	arg int64
}

// Engine is a discrete-event scheduler: a binary heap of value events
// ordered by (time, priority, insertion sequence), so the run is
// deterministic and same-time ties are FIFO. The clock never goes back.
// Scheduling and firing do not allocate once the heap has grown to its
// working size. The zero Engine is ready to use at time 0.
//
// An Engine is not safe for concurrent use; one run owns one Engine.
type Engine struct {
	now    float64
	seq    uint64
	events Heap[action] // tie: priority<<seqBits | insertion sequence
	fired  uint64
}

// Now returns the simulated time in seconds.
func (e *Engine) Now() float64 { return e.now }

// Len returns the number of pending events.
func (e *Engine) Len() int { return e.events.Len() }

// Fired returns the number of events fired so far.
func (e *Engine) Fired() uint64 { return e.fired }

// NextTime returns the time of the earliest pending event, or +Inf.
func (e *Engine) NextTime() float64 {
	if e.events.Len() == 0 {
		return math.Inf(1)
	}
	t, _ := e.events.Min()
	return t
}

// Schedule arranges for fn(arg) to run at time t with priority p.
// Scheduling in the past or at a NaN time is a broken invariant of the
// caller and panics.
func (e *Engine) Schedule(t float64, p Priority, fn Handler, arg int64) {
	if !(t >= e.now) {
		panic(fmt.Sprintf("event: scheduled at %v, before now %v", t, e.now))
	}
	e.seq++
	e.events.Push(t, uint64(p)<<seqBits|e.seq, action{fn, arg})
}

// After is Schedule at Now()+d.
func (e *Engine) After(d float64, p Priority, fn Handler, arg int64) {
	e.Schedule(e.now+d, p, fn, arg)
}

// Step fires the earliest event and reports whether there was one.
func (e *Engine) Step() bool {
	if e.events.Len() == 0 {
		return false
	}
	t, a := e.events.Pop()
	e.now = t
	e.fired++
	a.fn(a.arg)
	return true
}

// RunUntil fires events while the earliest is at or before t and stop
// returns false; stop may be nil. It returns whether stop ended the loop.
func (e *Engine) RunUntil(t float64, stop func() bool) bool {
	for e.events.Len() > 0 && e.NextTime() <= t {
		e.Step()
		if stop != nil && stop() {
			return true
		}
	}
	return false
}

// SetNow moves the clock forward to t without firing anything, for a run
// that stops at a horizon between events. It panics if t is before Now.
func (e *Engine) SetNow(t float64) {
	if !(t >= e.now) {
		panic(fmt.Sprintf("event: clock set to %v, before now %v", t, e.now))
	}
	e.now = t
}
