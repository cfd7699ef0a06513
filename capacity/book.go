package capacity

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// A jobKey names one run of a search: replication rep at rate. Its
// configuration, and so its result, is a function of the key alone
// (plan.config and the replication seed).
type jobKey struct {
	rate float64
	rep  int
}

// outcome is what one finished run contributes to a search: its verdict
// and size, or why it did not finish.
type outcome struct {
	v        Verdict
	requests int64
	err      error // sim.Run's error
	panicked error // the pool's error when the run panicked
}

// errUndecided stops a replay at the first probe whose verdict its runs
// so far leave open.
var errUndecided = errors.New("capacity: probe undecided")

// A book replays the walk over the runs finished so far (known), as the
// sequential search would have made them: probe by probe, each extending
// a rate's replications in order and deciding on all of them. A probe
// whose runs are not all known is decided when a known run failed
// (failing is final); otherwise it is undecided and, beyond the verdicts
// assumed for the undecided probes met first (assume, in order), the
// replay stops there. A replay that assumes nothing and completes with no
// run missing is the sequential search, run for run.
type book struct {
	pl     *plan
	known  map[jobKey]*outcome
	assume []bool
	// record, set when the book assumes nothing, keeps each point's runs,
	// the counts and the probes, whose complete ones from snapFrom on get
	// a snapshot for Progress; a speculative replay needs only verdicts.
	record   bool
	snapFrom int

	points map[float64]*bookPoint
	// probes lists the probes that ran (or will run) replications, in the
	// order the walk made them; Progress reports the complete ones.
	probes []bookProbe
	// frontier holds the missing runs of the probe the replay stopped at;
	// pending the missing runs of the probes before it (decided by a
	// failure, or by an assumption).
	frontier, pending []jobKey
	runs              int
	requests          int64
}

type bookPoint struct {
	point Point
	have  int  // replications asked for so far
	pass  bool // the verdict so far, assumptions included
	whole bool // every one of the have runs is known (and, recording, in point.Runs)
}

type bookProbe struct {
	complete bool
	snapshot Point // the point after the probe, when complete
}

// newBook returns a book of the known runs that assumes the given
// verdicts of the undecided probes it meets, in order; one that assumes
// nothing records the search's result and snapshots the complete probes
// from snapFrom on.
func newBook(pl *plan, known map[jobKey]*outcome, assume []bool, snapFrom int) *book {
	return &book{pl: pl, known: known, assume: assume, record: assume == nil, snapFrom: snapFrom, points: map[float64]*bookPoint{}}
}

// replay runs the walk over the book; err is errUndecided when it stopped
// at an undecided probe (frontier), or the error the sequential search
// returns.
func (b *book) replay() (lo, hi float64, err error) {
	return b.pl.walk(b)
}

// eval is a probe of the sequential search: it extends rate to reps
// replications and reports whether all passed; failing is final, more
// runs can only lower the minimum.
func (b *book) eval(rate float64, reps int) (bool, error) {
	bp, ok := b.points[rate]
	if !ok {
		bp = &bookPoint{point: Point{Rate: rate, Pass: true, MinAttainment: math.Inf(1)}, pass: true, whole: true}
		b.points[rate] = bp
	}
	have := bp.have
	if have >= reps || (!bp.pass && have > 0) {
		return bp.pass, nil
	}
	// (The sequential search set the rate here, which cannot fail once
	// Validate has set the start rate: see runJob.)
	var missing []jobKey
	failed := false
	for r := have; r < reps; r++ {
		k := jobKey{rate, r}
		o := b.known[k]
		switch {
		case o == nil:
			missing = append(missing, k)
			continue
		case o.err == nil && o.panicked == nil:
			failed = failed || !o.v.Pass
			continue
		}
		// The sequential search reports the first run of the batch that
		// went wrong (jobs.RunAll): this one, once those before it are in.
		if len(missing) > 0 {
			b.frontier = missing
			return false, errUndecided
		}
		if o.panicked != nil {
			return false, fmt.Errorf("job %d: %w", r-have, o.panicked)
		}
		return false, fmt.Errorf("run %d: %w", r-have, o.err)
	}
	bp.have = reps
	if len(missing) == 0 && bp.whole {
		bp.pass = bp.pass && !failed
		if !b.record {
			return bp.pass, nil
		}
		bp.point.Runs = slices.Grow(bp.point.Runs, reps-have)
		for r := have; r < reps; r++ {
			o := b.known[jobKey{rate, r}]
			bp.point.Runs = append(bp.point.Runs, o.v)
			bp.point.Pass = bp.point.Pass && o.v.Pass
			bp.point.MinAttainment = math.Min(bp.point.MinAttainment, o.v.Attainment)
			b.runs++
			b.requests += o.requests
		}
		probe := bookProbe{complete: true}
		if len(b.probes) >= b.snapFrom {
			probe.snapshot = bp.point
			probe.snapshot.Runs = slices.Clone(bp.point.Runs)
		}
		b.probes = append(b.probes, probe)
		return bp.pass, nil
	}
	bp.whole = bp.whole && len(missing) == 0
	if b.record {
		b.probes = append(b.probes, bookProbe{})
	}
	switch {
	case failed:
		bp.pass = false
	case len(missing) == 0:
		// Decided by known runs; only the point's earlier runs are not.
	case len(b.assume) > 0:
		bp.pass = bp.pass && b.assume[0]
		b.assume = b.assume[1:]
	default:
		b.frontier = missing
		return false, errUndecided
	}
	b.pending = append(b.pending, missing...)
	return bp.pass, nil
}

// bestPassBelow returns the largest rate below hi that passed, or 0.
func (b *book) bestPassBelow(hi float64) float64 {
	best := 0.0
	for r, bp := range b.points {
		if r < hi && bp.pass && r > best {
			best = r
		}
	}
	return best
}

// result is the search's answer, once a replay assuming nothing has
// completed with every run known.
func (b *book) result(lo, hi float64) *Result {
	res := &Result{Lower: lo, Upper: hi, Runs: b.runs, Requests: b.requests}
	for _, bp := range b.points {
		res.Points = append(res.Points, bp.point)
	}
	sortPoints(res.Points)
	return res
}
