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
	timers []timer
	armed  int // timers with an event pending
	first  int // the earliest armed timer, when armed > 0
}

// A timer is an event slot outside the heap (see NewTimer).
type timer struct {
	time  float64
	tie   uint64
	arg   int64
	fn    Handler
	armed bool
}

// A Timer names an event slot made by NewTimer.
type Timer int

// Now returns the simulated time in seconds.
func (e *Engine) Now() float64 { return e.now }

// Len returns the number of pending events, timers included.
func (e *Engine) Len() int { return e.events.Len() + e.armed }

// Fired returns the number of events fired so far.
func (e *Engine) Fired() uint64 { return e.fired }

// NextTime returns the time of the earliest pending event, or +Inf.
func (e *Engine) NextTime() float64 {
	t, _ := e.next()
	return t
}

// next returns the earliest pending event's time, and which timer holds
// it (-1: the heap; -2: nothing is pending, and t is +Inf).
func (e *Engine) next() (t float64, which int) {
	t, which = math.Inf(1), -2
	var tie uint64
	if e.events.Len() > 0 {
		t, tie, which = e.events.items[0].time, e.events.items[0].tie, -1
	}
	if e.armed > 0 {
		tm := &e.timers[e.first]
		if which == -2 || earlier(tm.time, tm.tie, t, tie) {
			t, which = tm.time, e.first
		}
	}
	return t, which
}

// earlier reports whether key (t, tie) comes before (u, utie): the
// Heap's order.
func earlier(t float64, tie uint64, u float64, utie uint64) bool {
	return t < u || (t == u && tie < utie)
}

// findFirst points first at the earliest armed timer.
func (e *Engine) findFirst() {
	best := -1
	for i := range e.timers {
		tm := &e.timers[i]
		if tm.armed && (best < 0 || earlier(tm.time, tm.tie, e.timers[best].time, e.timers[best].tie)) {
			best = i
		}
	}
	e.first = max(best, 0)
}

// NewTimer makes an event slot outside the heap that fires fn: a source
// with at most one pending event at a time (an arrival process, say) sets
// it with SetTimer instead of Schedule, which saves a heap push and pop per
// event. A timer's event fires in exactly the order a Schedule at the same
// time and priority would give it. Call it at setup: Step scans the armed
// timers, so an Engine should have only a few.
func (e *Engine) NewTimer(fn Handler) Timer {
	e.timers = append(e.timers, timer{fn: fn})
	return Timer(len(e.timers) - 1)
}

// SetTimer arranges for timer k's handler to run with arg at time t with
// priority p, replacing its pending event if it has one. It panics, as
// Schedule does, on a time before Now or NaN. It costs O(1) unless it
// moves the earliest timer later (then O(timers)).
func (e *Engine) SetTimer(k Timer, t float64, p Priority, arg int64) {
	if !(t >= e.now) {
		panicPast("timer set", t, e.now)
	}
	e.seq++
	tie := uint64(p)<<seqBits | e.seq
	tm := &e.timers[k]
	tm.time, tm.tie, tm.arg = t, tie, arg
	switch {
	case !tm.armed:
		tm.armed = true
		if e.armed++; e.armed == 1 {
			e.first = int(k)
			return
		}
	case int(k) == e.first:
		e.findFirst() // k may have moved behind another timer
		return
	}
	// The other timers' order is unchanged: k is first exactly when it
	// is earlier than the first of them.
	if f := &e.timers[e.first]; earlier(t, tie, f.time, f.tie) {
		e.first = int(k)
	}
}

// panicPast reports an event set before the clock: a broken invariant of
// the caller. Kept out of line so the callers stay small.
//
//go:noinline
func panicPast(what string, t, now float64) {
	panic(fmt.Sprintf("event: %s at %v, before now %v", what, t, now))
}

// StopTimer cancels timer k's pending event, if any.
func (e *Engine) StopTimer(k Timer) {
	if tm := &e.timers[k]; tm.armed {
		tm.armed = false
		e.armed--
		e.findFirst()
	}
}

// Schedule arranges for fn(arg) to run at time t with priority p.
// Scheduling in the past or at a NaN time is a broken invariant of the
// caller and panics.
func (e *Engine) Schedule(t float64, p Priority, fn Handler, arg int64) {
	if !(t >= e.now) {
		panicPast("scheduled", t, e.now)
	}
	e.seq++
	e.events.Push(t, uint64(p)<<seqBits|e.seq, action{fn, arg})
}

// After is Schedule at Now()+d.
func (e *Engine) After(d float64, p Priority, fn Handler, arg int64) {
	e.Schedule(e.now+d, p, fn, arg)
}

// Step fires the earliest event and reports whether there was one.
func (e *Engine) Step() bool { return e.StepUntil(math.Inf(1)) }

// StepUntil fires the earliest event if it is at or before t, and reports
// whether it fired one.
func (e *Engine) StepUntil(t float64) bool {
	if e.armed > 0 {
		tm := &e.timers[e.first]
		if e.events.Len() == 0 || earlier(tm.time, tm.tie, e.events.items[0].time, e.events.items[0].tie) {
			if tm.time > t {
				return false
			}
			e.now = tm.time
			e.fired++
			tm.armed = false
			if e.armed--; e.armed > 0 {
				e.findFirst()
			}
			tm.fn(tm.arg)
			return true
		}
	}
	if e.events.Len() == 0 || e.events.items[0].time > t {
		return false
	}
	at, a := e.events.Pop()
	e.now = at
	e.fired++
	a.fn(a.arg)
	return true
}

// RunUntil fires events while the earliest is at or before t and stop
// returns false; stop may be nil. It returns whether stop ended the loop.
func (e *Engine) RunUntil(t float64, stop func() bool) bool {
	for e.StepUntil(t) {
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
