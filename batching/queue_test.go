package batching

import (
	"math"
	"testing"

	"github.com/servesim/servesim/sim"
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
