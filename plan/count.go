package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// counter is one candidate on its way through a plan: its screen, its λ*,
// and the search for its fewest passing replicas, a bracket (lo, hi] where
// lo replicas fail (or lie below the roofline's kmin) and hi pass.
type counter struct {
	c       Candidate
	maxRate float64 // the roofline rate of a replica, 0 when unknown
	kmin    int     // the fewest replicas the roofline allows
	costLB  float64 // kmin replicas' cost
	lambda  *Bracket
	k0      int // the first count: max(kmin, ⌈Rate/λ*⌉)

	lo, hi int  // lo fails, hi passes (0: none has yet)
	closed bool // hi − lo = 1: hi is the count
	down   bool // galloping down from a first count that passed
	step   int  // the gallop's next step
	checks []Check
	passed *check // the check at hi

	runs     int
	requests int64
	ranked   *Ranked
	rejected Rejection
}

// done reports whether the candidate's count is found or it is rejected.
func (ct *counter) done() bool { return ct.closed || ct.rejected.Reason != NoReason }

// reject settles the candidate as rejected.
func (ct *counter) reject(r Reason, why string, costLB float64) *counter {
	ct.rejected = Rejection{Candidate: ct.c, Reason: r, Why: why, CostLowerBound: costLB, Lambda: ct.lambda}
	return ct
}

// tooExpensive rejects the candidate on its lower bound, kmin or lo+1
// replicas, against the solver's cutoff.
func (ct *counter) tooExpensive(st *solver) *counter {
	need := max(ct.lo+1, ct.kmin)
	bound := ct.c.CostPerHour(need)
	var why string
	if ct.lo >= ct.kmin {
		why = fmt.Sprintf("the SLO fails with %s at %.4g req/s, so it costs at least $%s/h (%s), %s",
			replicas(ct.lo), st.obj.Rate, formatMoney(bound), replicas(need), st.above())
	} else if ct.maxRate > 0 {
		why = fmt.Sprintf("costs at least $%s/h (%s by the throughput roofline, %.3g req/s a replica), %s",
			formatMoney(bound), replicas(need), ct.maxRate, st.above())
	} else { // no roofline (a P/D unit, a Replica that is not a Screener)
		why = fmt.Sprintf("costs at least $%s/h (%s), %s", formatMoney(bound), replicas(need), st.above())
	}
	return ct.reject(TooExpensive, why, bound)
}

// propose returns the next count to run under cut, or settles the
// candidate: it is done when the bracket is closed, too expensive when its
// fewest possible replicas cost more than cut, and has too many replicas
// when it would need more than MaxReplicas.
func (ct *counter) propose(st *solver, cut float64) int {
	if ct.hi > 0 && ct.hi-ct.lo == 1 {
		ct.closed = true
		return 0
	}
	maxReps := st.s.MaxReplicas
	if ct.lo+1 > maxReps {
		ct.reject(TooManyReplicas, fmt.Sprintf("the SLO fails with %s at %.4g req/s; max_replicas is %d",
			replicas(ct.lo), st.obj.Rate, maxReps), ct.c.CostPerHour(ct.lo+1))
		return 0
	}
	if ct.c.CostPerHour(ct.lo+1) > cut {
		ct.tooExpensive(st)
		return 0
	}
	// The most replicas that cost at most cut (≥ lo+1 by the test above).
	affordable := maxReps
	if price := ct.c.CostPerHour(1); price > 0 && !math.IsInf(cut, 1) {
		affordable = min(affordable, int(math.Floor(cut/price*(1+1e-12))))
	}
	var k int
	switch {
	case len(ct.checks) == 0:
		k = ct.k0
	case ct.hi == 0: // gallop up
		k = ct.lo + ct.step
	case ct.down:
		k = max(ct.hi-ct.step, ct.lo+1)
	default:
		k = (ct.lo + ct.hi) / 2
	}
	return max(min(k, affordable), ct.lo+1)
}

// record takes the outcome of a count.
func (ct *counter) record(ch check) {
	ct.checks = append(ct.checks, ch.Check)
	for _, r := range ch.results {
		ct.runs++
		ct.requests += int64(r.Injected)
	}
	first := len(ct.checks) == 1
	if ch.Pass {
		if ct.hi == 0 || ch.Replicas < ct.hi {
			ct.hi, ct.passed = ch.Replicas, &ch
		}
		switch {
		case first:
			ct.down, ct.step = true, 1
		case ct.down:
			ct.step *= 2
		}
		return
	}
	ct.lo = max(ct.lo, ch.Replicas)
	switch {
	case first:
		ct.step = 1
	case ct.hi == 0:
		ct.step *= 2
	}
	ct.down = false
}

// finish fills in the ranked row of a settled, passing candidate.
func (ct *counter) finish(rate float64) {
	r := ct.passed.ranked(ct.c, rate)
	slices.SortFunc(ct.checks, func(a, b Check) int { return cmp.Compare(a.Replicas, b.Replicas) })
	r.Lambda, r.MaxRate, r.Checks = *ct.lambda, ct.maxRate, ct.checks
	ct.ranked = &r
}
