package batching

import (
	"math"
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// TestWaitQueueMemory: a burst of 20,000 requests with a request overhead
// gives the engine seqs only for the requests the scheduler looks at (the
// pool of seqs never exceeds max_num_seqs plus the head it looked at),
// costs one enqueue event for the burst instead of one a request, and
// still serves every request in arrival order, none before its overhead
// ends.
func TestWaitQueueMemory(t *testing.T) {
	c := qwen4090(t)
	c.RequestOverhead = 0.005
	c.MaxNumSeqs = 64
	const n = 20_000
	var es []*engine
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: math.Inf(1)}, Lengths: workload.Fixed{Input: 64, Output: 8}},
		Server:   checked{ServerConfig: c, t: t, engines: &es}, Requests: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != n {
		t.Fatalf("completed %d of %d", res.Completed, n)
	}
	e := es[0]
	if got, most := len(e.free), c.MaxNumSeqs+1; got > most {
		t.Errorf("the engine made %d seqs for %d queued requests, want at most %d", got, n, most)
	}
	// The events are the arrivals, the steps and a few kicks: without the
	// grouping each arrival's overhead would add one of its own.
	if most := uint64(n + e.stats.steps + 10); res.Events > most {
		t.Errorf("%d events for %d requests at one instant and %d steps, want at most %d: the burst's overheads should share one event", res.Events, n, e.stats.steps, most)
	}
	prev := -1.0
	for i := range res.Requests {
		r := &res.Requests[i]
		if r.Start < r.Sent+c.RequestOverhead {
			t.Fatalf("request %d started at %v, before its overhead ended at %v", r.ID, r.Start, r.Sent+c.RequestOverhead)
		}
		if r.Start < prev {
			t.Fatalf("request %d started at %v, before request %d at %v: not FCFS", r.ID, r.Start, r.ID-1, prev)
		}
		prev = r.Start
	}
}

// TestWaitQueueOrder drives the line by hand: arrivals at three instants,
// some with remote KV and some without, ripen by their due times; the
// seqs come out in arrival order with their own remote counts, a
// preempted seq goes back to the head, and one enqueue event is asked for
// an instant.
func TestWaitQueueOrder(t *testing.T) {
	var w waitQueue
	w.mk = func(a arrival) *seq { return &seq{req: a.r, remote: a.remote} }
	reqs := make([]metrics.Request, 6)
	remote := []int{0, 0, 5, 0, 7, 0}
	due := []float64{1, 1, 1, 2, 2, 3}
	var schedules []float64
	for i := range reqs {
		reqs[i].ID = i
		if w.arrive(arrival{&reqs[i], due[i], remote[i]}, true) {
			schedules = append(schedules, due[i])
		}
	}
	if len(schedules) != 3 || schedules[0] != 1 || schedules[1] != 2 || schedules[2] != 3 {
		t.Fatalf("enqueue events at %v, want one at each of 1, 2, 3", schedules)
	}
	if w.Len() != 0 || w.pending() != 6 {
		t.Fatalf("before any overhead ends: %d waiting, %d pending; want 0 and 6", w.Len(), w.pending())
	}
	if n := w.ripen(2); n != 5 || w.Len() != 5 || w.pending() != 1 {
		t.Fatalf("at 2: ripened %d, %d waiting, %d pending; want 5, 5, 1", n, w.Len(), w.pending())
	}
	first := w.Pop()
	w.PushFront(first) // preempted: back at the head
	for i := range 5 {
		q := w.Pop()
		if q.req.ID != i || q.remote != remote[i] {
			t.Fatalf("pop %d: request %d remote %d, want request %d remote %d", i, q.req.ID, q.remote, i, remote[i])
		}
	}
	if w.ripen(3) != 1 || w.Pop().req.ID != 5 || w.Len() != 0 || w.pending() != 0 {
		t.Fatal("the last arrival did not ripen at 3 or the line is not empty after it")
	}
}
