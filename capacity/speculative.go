package capacity

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// SpecCrossover compares a deployment with and without speculative
// decoding over request rates: speculative decoding shortens TPOT at light
// load, and at heavy load its verify work (1 + k tokens per decoding
// sequence) and proposer passes crowd out other sequences until it costs
// more than it saves. Run finds the rate where it stops paying.
type SpecCrossover struct {
	// Rates are the request rates compared, ascending, req/s.
	Rates []float64
	// Off and On return the run at a rate without and with speculative
	// decoding (their Seed is set by Run).
	Off, On func(rate float64) (sim.Config, error)
	// Seed seeds every run: both arms at every rate see the same arrivals
	// and lengths (common random numbers).
	Seed uint64
	// Workers bounds parallel runs (0: GOMAXPROCS); results do not depend
	// on it.
	Workers int
}

// CrossoverRow is one rate of a SpecCrossover.
type CrossoverRow struct {
	Rate float64 `json:"rate"`
	// Mean TPOT (s) and output throughput (tok/s) of each arm.
	OffTPOT, OnTPOT             float64 `json:"-"`
	OffThroughput, OnThroughput float64 `json:"-"`
	// Unstable reports each arm's stability verdict (sim.Result.Stability).
	OffUnstable, OnUnstable bool `json:"-"`
}

// Pays reports whether speculative decoding helps at this rate: a shorter
// mean TPOT and stable wherever the plain engine is; past the plain
// engine's capacity (both unstable, where TPOT only measures the backlog)
// a higher output throughput.
func (r CrossoverRow) Pays() bool {
	switch {
	case r.OffUnstable && r.OnUnstable:
		return r.OnThroughput > r.OffThroughput
	case r.OnUnstable:
		return false
	}
	return r.OnTPOT < r.OffTPOT
}

// CrossoverResult is what SpecCrossover.Run returns.
type CrossoverResult struct {
	Rows []CrossoverRow
	// Crossover is the rate at which speculative decoding stops paying:
	// between Lo, the last rate where it pays, and Hi, the next, where the
	// mean TPOT difference changes sign (linear interpolation; when both
	// arms are unstable at Hi, Hi). It is +Inf (Lo the last rate, Hi +Inf)
	// when it pays at every rate, and Rates[0] (= Lo = Hi) when it never
	// does.
	Crossover, Lo, Hi float64
}

// Run runs both arms at every rate (jobs.RunAll) and finds the crossover.
func (s SpecCrossover) Run() (CrossoverResult, error) {
	switch {
	case len(s.Rates) == 0:
		return CrossoverResult{}, fmt.Errorf("%w: spec crossover has no rates", ErrInvalid)
	case s.Off == nil || s.On == nil:
		return CrossoverResult{}, fmt.Errorf("%w: spec crossover needs both Off and On", ErrInvalid)
	case s.Workers < 0:
		return CrossoverResult{}, fmt.Errorf("%w: spec crossover workers %d must be >= 0 (0: GOMAXPROCS)", ErrInvalid, s.Workers)
	}
	cfgs := make([]sim.Config, 0, 2*len(s.Rates))
	for i, r := range s.Rates {
		if !(r > 0) || (i > 0 && r <= s.Rates[i-1]) {
			return CrossoverResult{}, fmt.Errorf("%w: spec crossover rates[%d] %v must be > 0 and above the one before", ErrInvalid, i, r)
		}
		for _, f := range []func(float64) (sim.Config, error){s.Off, s.On} {
			c, err := f(r)
			if err != nil {
				return CrossoverResult{}, fmt.Errorf("spec crossover at rate %v: %w", r, err)
			}
			c.Seed = s.Seed
			cfgs = append(cfgs, c)
		}
	}
	res, err := jobs.RunAll(cfgs, s.Workers)
	if err != nil {
		return CrossoverResult{}, err
	}
	out := CrossoverResult{Crossover: math.Inf(1), Lo: s.Rates[len(s.Rates)-1], Hi: math.Inf(1)}
	for i, r := range s.Rates {
		off, on := res[2*i], res[2*i+1]
		out.Rows = append(out.Rows, CrossoverRow{Rate: r,
			OffTPOT: off.TPOT().Mean(), OnTPOT: on.TPOT().Mean(),
			OffThroughput: off.OutputThroughput, OnThroughput: on.OutputThroughput,
			OffUnstable: off.Stability.Unstable || off.StoppedBy == sim.StopMaxInSystem,
			OnUnstable:  on.Stability.Unstable || on.StoppedBy == sim.StopMaxInSystem,
		})
	}
	for i, row := range out.Rows {
		if row.Pays() {
			continue
		}
		out.Crossover, out.Lo, out.Hi = row.Rate, row.Rate, row.Rate
		if i == 0 {
			break
		}
		prev := out.Rows[i-1]
		out.Lo = prev.Rate
		if d0, d1 := prev.OffTPOT-prev.OnTPOT, row.OffTPOT-row.OnTPOT; !(row.OffUnstable && row.OnUnstable) && d0 > 0 && d1 <= 0 {
			out.Crossover = prev.Rate + (row.Rate-prev.Rate)*d0/(d0-d1)
		}
		break
	}
	return out, nil
}
