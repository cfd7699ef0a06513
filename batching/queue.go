package batching

import (
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// arrival is a request the engine holds before the scheduler first looks
// at it: no seq yet.
type arrival struct {
	r      *metrics.Request
	due    float64 // when its request overhead ends, seconds
	remote int     // leading prompt tokens whose KV arrived (P/D decode side)
}

// dueGroup is a run of pending arrivals whose overhead ends at t.
type dueGroup struct {
	t float64
	n int
}

// waitQueue is the engine's line: seqs at its head (preempted requests,
// and the head the scheduler has looked at), then the requests without a
// seq, in arrival order. Of those, the first due have passed their
// request overhead and wait; the rest are pending (in the overhead,
// vLLM's frontend), in groups by the time it ends. A request gets its
// seq, 216 bytes, only when the scheduler first looks at it (Peek): a
// line of a million requests costs a pointer each (8 bytes), not a seq.
type waitQueue struct {
	seqs event.Ring[*seq]
	in   event.Ring[*metrics.Request]
	due  int
	// groups, then open, hold the pending requests' due times: the
	// overhead is constant, so they never decrease, and the arrivals of
	// one instant share one group (open, the latest) and one enqueue
	// event.
	groups event.Ring[dueGroup]
	open   dueGroup
	// remotes parallels in once a request with remote > 0 has come (P/D
	// decode side); empty before.
	remotes event.Ring[int]
	mk      func(a arrival) *seq
	// limited, under asynchronous scheduling (Config.AsyncScheduling),
	// makes only the first visible requests of the line schedulable: those
	// the scheduler saw when the step now ending was formed (see).
	limited bool
	visible int
}

// see records the line as the scheduler sees it now: under a limit, the
// next step formed may take these requests and no later ones.
func (w *waitQueue) see() { w.visible = w.Len() }

// held reports whether the head of the line is past what the scheduler
// may take (limited, and the visible requests taken).
func (w *waitQueue) held() bool { return w.limited && w.visible <= 0 }

// Len returns the requests waiting (past their overhead).
func (w *waitQueue) Len() int { return w.seqs.Len() + w.due }

// pending returns the requests still in their request overhead.
func (w *waitQueue) pending() int { return w.in.Len() - w.due }

// Peek returns the head of the line, giving it its seq. It panics when
// the line is empty.
func (w *waitQueue) Peek() *seq {
	if w.seqs.Len() == 0 {
		if w.due == 0 {
			panic("batching: Peek at an empty waiting queue")
		}
		w.due--
		a := arrival{r: w.in.Pop()}
		if w.remotes.Len() > 0 {
			a.remote = w.remotes.Pop()
		}
		w.seqs.Push(w.mk(a))
	}
	return w.seqs.Peek()
}

// Pop removes the head of the line and returns it.
func (w *waitQueue) Pop() *seq {
	w.Peek()
	w.visible--
	return w.seqs.Pop()
}

// PushFront puts q back at the head (a preempted request, which the
// scheduler sees at once).
func (w *waitQueue) PushFront(q *seq) {
	w.visible++
	w.seqs.PushFront(q)
}

// arrive queues a; pending reports whether it waits for its overhead to
// end at a.due. It returns true when the caller must schedule the enqueue
// event at a.due: no earlier arrival's is due then.
func (w *waitQueue) arrive(a arrival, pending bool) (schedule bool) {
	if a.remote != 0 && w.remotes.Len() == 0 {
		for range w.in.Len() {
			w.remotes.Push(0)
		}
	}
	w.in.Push(a.r)
	if w.remotes.Len() > 0 || a.remote != 0 {
		w.remotes.Push(a.remote)
	}
	if !pending {
		w.due++
		return false
	}
	if w.open.n > 0 && w.open.t == a.due {
		w.open.n++
		return false
	}
	if w.open.n > 0 {
		w.groups.Push(w.open)
	}
	w.open = dueGroup{a.due, 1}
	return true
}

// ripen moves the pending requests whose overhead has ended by now into
// the waiting line, returning how many.
func (w *waitQueue) ripen(now float64) int {
	n := 0
	for w.groups.Len() > 0 && w.groups.Peek().t <= now {
		n += w.groups.Pop().n
	}
	if w.groups.Len() == 0 && w.open.n > 0 && w.open.t <= now {
		n += w.open.n
		w.open.n = 0
	}
	w.due += n
	return n
}
