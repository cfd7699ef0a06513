package capacity

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// speculationDepth is how many undecided probes ahead of the search Run
// starts runs on idle workers: a probe's undecided verdict has two
// outcomes, so there are at most 2+4+8 speculative probes. Each is
// explored in that order, the pass branch first: failing runs mostly stop
// early, so the runs a probe still waits for are mostly passing ones.
const speculationDepth = 3

// A job is one run handed to a worker. stop, set for a speculative run,
// cancels it: its arrivals end, it drains, and its result is dropped.
type job struct {
	key  jobKey
	stop *atomic.Bool
}

type finished struct {
	job
	out outcome
}

// A pool runs jobs: start hands it one (at most as many at once as the
// search has workers) and next waits for one to finish.
type pool interface {
	start(job)
	next() finished
}

// goroutines runs jobs on the project's one runner (jobs.Pool).
type goroutines struct{ *jobs.Pool[job, outcome] }

func (g goroutines) start(j job) { g.Start(j) }

func (g goroutines) next() finished {
	j, out, panicked := g.Next()
	if panicked != nil {
		out = outcome{panicked: panicked}
	}
	return finished{j, out}
}

// run drives the search on up to workers goroutines.
func (pl *plan) run(workers int) (*Result, error) {
	g := goroutines{jobs.NewPool(workers, pl.runJob)}
	defer g.Close()
	return pl.drive(g, workers)
}

// drive runs the search's jobs in p, up to workers at once. After each
// finished run it replays the walk over the runs known so far (book); the
// replay that assumes nothing reports the complete probes to Progress, in
// order, and ends the search once it completes with every run it read
// known. Until then the workers take, in this order, the runs of the probe
// the search waits for, speculatively those of the next probe under
// either verdict, the missing runs of probes already decided, and
// speculatively those of the probes further ahead, up to
// speculationDepth undecided verdicts; speculative runs no branch wants
// any more are cancelled. It returns with no job left in p.
func (pl *plan) drive(p pool, workers int) (*Result, error) {
	known := map[jobKey]*outcome{}
	running := map[jobKey]*atomic.Bool{} // a running job's stop, nil when needed
	defer func() {
		// Cancel the speculative runs still going and wait for every run,
		// so that none outlives the search.
		for _, stop := range running {
			if stop != nil {
				stop.Store(true)
			}
		}
		for range running {
			p.next()
		}
	}()

	reported := 0
	dispatch := func(k jobKey, speculative bool) {
		if _, busy := running[k]; busy || known[k] != nil || len(running) >= workers {
			return
		}
		var stop *atomic.Bool
		if speculative {
			stop = new(atomic.Bool)
		}
		running[k] = stop
		p.start(job{k, stop})
	}
	for {
		root := newBook(pl, known, nil, reported)
		lo, hi, err := root.replay()
		for ; reported < len(root.probes) && root.probes[reported].complete; reported++ {
			if pl.s.Progress != nil {
				pl.s.Progress(root.probes[reported].snapshot)
			}
		}
		undecided := errors.Is(err, errUndecided)
		if !undecided && len(root.pending) == 0 {
			if err != nil {
				return nil, err
			}
			return root.result(lo, hi), nil
		}
		needed := map[jobKey]bool{}
		for _, k := range slices.Concat(root.frontier, root.pending) {
			needed[k] = true
		}
		for _, k := range root.frontier {
			dispatch(k, false)
		}
		speculating := false
		for _, stop := range running {
			speculating = speculating || stop != nil
		}
		var spec speculation
		if undecided && (speculating || len(running) < workers) {
			spec = pl.speculate(known, running, needed, workers-len(running))
		}
		for k, stop := range running {
			if stop != nil && !spec.set[k] && !needed[k] {
				stop.Store(true)
			}
		}
		// The next probe's runs may shorten the search; the pending runs
		// only complete the table, so they wait for idle workers: at the
		// latest the last probe's, which have nothing left to speculate on.
		for _, k := range spec.order[:spec.next] {
			dispatch(k, true)
		}
		for _, k := range root.pending {
			dispatch(k, false)
		}
		for _, k := range spec.order[spec.next:] {
			dispatch(k, true)
		}
		f := p.next()
		delete(running, f.key)
		if f.stop == nil || !f.stop.Load() {
			known[f.key] = &f.out
		}
	}
}

// speculation is the set of runs the branches ahead want, with their
// order, most wanted first.
type speculation struct {
	set   map[jobKey]bool
	order []jobKey
	next  int // order[:next] are the runs of the next probe, either verdict
}

// speculate lists the runs the branches of verdicts ahead of the undecided
// probe want beyond those needed anyway: breadth first, the pass branch
// first, to speculationDepth probes ahead or until the list has idle runs
// to start and covers every speculative run going.
func (pl *plan) speculate(known map[jobKey]*outcome, running map[jobKey]*atomic.Bool, needed map[jobKey]bool, idle int) speculation {
	sp := speculation{set: map[jobKey]bool{}}
	fresh := 0 // listed runs neither known nor going
	add := func(ks []jobKey) {
		for _, k := range ks {
			if needed[k] || sp.set[k] {
				continue
			}
			sp.set[k] = true
			sp.order = append(sp.order, k)
			if _, busy := running[k]; !busy && known[k] == nil {
				fresh++
			}
		}
	}
	covered := func() bool {
		for k, stop := range running {
			if stop != nil && !sp.set[k] {
				return false
			}
		}
		return true
	}
	level := [][]bool{nil}
	for range speculationDepth {
		var next [][]bool
		for _, h := range level {
			for _, v := range []bool{true, false} {
				branch := append(slices.Clip(h), v)
				b := newBook(pl, known, branch, 0)
				_, _, err := b.replay()
				add(b.pending)
				add(b.frontier)
				if errors.Is(err, errUndecided) {
					next = append(next, branch)
				}
			}
		}
		level = next
		if sp.next == 0 {
			sp.next = len(sp.order)
		}
		if fresh >= idle && covered() {
			break
		}
	}
	return sp
}

// runJob runs one job and judges it. The pool makes a panic (a broken
// internal invariant, never bad input) the run's outcome, as jobs.Each
// makes it a job's error.
func (pl *plan) runJob(j job) outcome {
	cfg, err := pl.config(j.key.rate)
	if err != nil {
		return outcome{err: err} // never: Validate set the start rate
	}
	cfg.Seed = event.ReplicationSeed(pl.s.Seed, j.key.rep)
	if j.stop != nil {
		cfg.Workload.Arrivals = cancelable{cfg.Workload.Arrivals, j.stop}
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return outcome{err: err}
	}
	res.Replication = j.key.rep
	return outcome{v: pl.s.Criteria.Judge(res, j.key.rate), requests: int64(res.Injected)}
}

// cancelable is an arrival process whose streams end once stop is set:
// a cancelled run takes no more arrivals and drains what it has. Until
// then it is the process it wraps, draw for draw.
type cancelable struct {
	workload.Process
	stop *atomic.Bool
}

func (c cancelable) Stream(r *rand.Rand, n int) (workload.Stream, error) {
	s, err := c.Process.Stream(r, n)
	if err != nil {
		return nil, err
	}
	return cancelStream{s, c.stop}, nil
}

type cancelStream struct {
	workload.Stream
	stop *atomic.Bool
}

func (c cancelStream) Next() float64 {
	if c.stop.Load() {
		return math.Inf(1)
	}
	return c.Stream.Next()
}
