package capacity

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Search finds λ*, the largest open-loop rate at which every independent
// replication passes the Criteria (docs/metrics.md#capacity-search). It
// reports a bracket — the largest rate seen to pass and the smallest seen
// to fail — never a point.
//
// The search doubles (or halves) from Start until it has a pass and a
// fail, then bisects geometrically inside the bracket until its relative
// width is at most Precision. Coarse probes use Replications runs; probes
// inside the bracket, and the lower end before it is reported, use
// BoundaryReplications (the min-over-runs rule is stricter with more runs,
// so a pass is confirmed where it matters). Replication i uses seed
// event.ReplicationSeed(Seed, i) at every rate: rates are compared on the same
// random numbers (paired), and more replications extend, not replace, the
// fewer.
//
// Acceptance takes the minimum over runs: a conservative envelope, not a
// confidence interval.
type Search struct {
	// Base is the run configuration; its arrival process (Poisson, Gamma or
	// Constant) gets each probed rate. Its Seed is ignored.
	Base sim.Config
	// Criteria is the per-run acceptance rule; its SLO replaces Base.SLO.
	Criteria Criteria
	// Seed derives the replication seeds.
	Seed uint64
	// Replications is the number of runs per coarse probe (≥ 1).
	Replications int
	// BoundaryReplications is the number of runs per probe near the answer
	// (≥ Replications; 0 means Replications).
	BoundaryReplications int
	// Start is the first rate probed, requests per second (> 0).
	Start float64
	// Precision is the largest relative bracket width, (hi−lo)/lo, at which
	// the search stops (> 0; e.g. 0.05).
	Precision float64
	// MinRate and MaxRate bound the search (0 means Start/1024 and
	// Start·1024). A search that passes at MaxRate or fails at MinRate
	// reports a half-open bracket.
	MinRate, MaxRate float64
	// Workers bounds the parallel runs (0 means GOMAXPROCS; negative is an
	// error). Workers beyond a probe's runs run the next probes'
	// speculatively (see Run); the result does not depend on Workers.
	Workers int
	// Progress, if set, is called after each probe.
	Progress func(Point)
}

// Point is one probed rate with its replications.
type Point struct {
	Rate float64 `json:"rate"`
	// Pass is true when every run passed.
	Pass bool `json:"pass"`
	// MinAttainment is the floor of the attainments over runs.
	MinAttainment float64 `json:"min_attainment"`
	// Runs holds each replication's verdict, in replication order.
	Runs []Verdict `json:"runs"`
}

// Result is a search's answer.
type Result struct {
	// Lower is the largest rate seen to pass with BoundaryReplications runs
	// (0 when none passed: even MinRate fails); Upper the smallest rate seen
	// to fail (+Inf when none failed: MaxRate passes).
	Lower, Upper float64
	// Points lists every probed rate in increasing order.
	Points []Point
	// Runs and Requests count the simulations the search made.
	Runs     int
	Requests int64
}

// Bracketed reports whether both ends were found.
func (r *Result) Bracketed() bool { return r.Lower > 0 && !math.IsInf(r.Upper, 1) }

// MaxReplications caps the runs of one probe (Search.Replications;
// BoundaryReplications at most twice it): each probe runs them all and
// lists every one's attainment in its row, and the acceptance rule (the
// minimum over runs) only gets stricter with more, so a thousand is
// already far past what a bracket needs.
const MaxReplications = 1000

// MaxReplicationsWhy says why a probe's runs stop at MaxReplications, in
// the words of an error.
const MaxReplicationsWhy = "the most runs a probe may have (each probe runs and lists them all)"

// Validate checks the search settings and the base configuration.
func (s Search) Validate() error {
	if err := s.Criteria.Validate(); err != nil {
		return err
	}
	switch {
	case s.Replications < 1 || s.Replications > MaxReplications:
		return fmt.Errorf("%w: replications %d must be in [1, %d] (MaxReplications)", ErrInvalid, s.Replications, MaxReplications)
	case s.BoundaryReplications > 2*MaxReplications:
		return fmt.Errorf("%w: boundary_replications %d exceeds %d, twice MaxReplications", ErrInvalid, s.BoundaryReplications, 2*MaxReplications)
	case s.Workers < 0 || s.Workers > jobs.MaxWorkers:
		return fmt.Errorf("%w: workers %d must be from 0 (GOMAXPROCS) to %d", ErrInvalid, s.Workers, jobs.MaxWorkers)
	case s.BoundaryReplications != 0 && s.BoundaryReplications < s.Replications:
		return fmt.Errorf("%w: boundary_replications %d must be >= replications %d", ErrInvalid, s.BoundaryReplications, s.Replications)
	case !(s.Start >= workload.MinRate) || math.IsInf(s.Start, 1):
		return fmt.Errorf("%w: start rate %v must be a finite number >= %v requests/s (workload.MinRate)", ErrInvalid, s.Start, workload.MinRate)
	case !(s.Precision >= 1e-9) || math.IsInf(s.Precision, 1):
		return fmt.Errorf("%w: precision %v must be a finite number >= 1e-9", ErrInvalid, s.Precision)
	case s.MinRate < 0 || s.MaxRate < 0 || (s.MaxRate > 0 && s.MaxRate < s.Start) || s.MinRate > s.Start:
		return fmt.Errorf("%w: rate bounds [%v, %v] must be >= 0 and contain start %v", ErrInvalid, s.MinRate, s.MaxRate, s.Start)
	}
	if _, err := WithRate(s.Base.Workload.Arrivals, s.Start); err != nil {
		return err
	}
	cfg := s.Base
	cfg.SLO = s.Criteria.SLO
	return cfg.Validate()
}

// Run performs the search.
//
// The search is sequential — each probe's rate depends on the verdicts
// before it — but its runs are not: Run keeps up to Workers runs going,
// first those of the probe the search is waiting for, then speculative
// runs of the probe it would make next under either verdict, then the
// remaining runs of probes already decided (a failed run decides a probe;
// the rest only complete its row), then speculative runs of the probes
// further ahead under each verdict the open probes could still reach. A
// speculative run whose branch the verdicts rule out is cancelled, and its
// result never used; the search itself only ever reads the runs it asks
// for, each a function of its rate and replication alone, so the result
// and the Progress calls are the same at any Workers and GOMAXPROCS (see
// walk and book).
func (s Search) Run() (*Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	workers := s.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return s.plan().run(workers)
}

// plan resolves the defaults of a valid search. Its runs are judged and
// dropped, so the server keeps no time series (WithoutSeries) and the run
// no inter-token latencies (sim.Config.NoITL): no verdict reads them.
func (s Search) plan() *plan {
	s.Base.Server = WithoutSeries(s.Base.Server)
	s.Base.NoITL = true
	pl := &plan{s: s, rb: s.BoundaryReplications, minRate: s.MinRate, maxRate: s.MaxRate}
	if pl.rb == 0 {
		pl.rb = s.Replications
	}
	if pl.minRate == 0 {
		pl.minRate = s.Start / 1024
	}
	if pl.maxRate == 0 {
		pl.maxRate = s.Start * 1024
	}
	return pl
}

// plan is a search's settings, with the defaults resolved.
type plan struct {
	s                Search
	rb               int
	minRate, maxRate float64
}

// walk is the search: the coarse doubling or halving to a bracket, then
// the bisection and the confirmation of the lower end. It asks b for each
// probe's verdict; given the same runs it makes the same probes, in the
// same order, so replaying it over a book of finished runs tells which
// runs it needs next.
func (pl *plan) walk(b *book) (lo, hi float64, err error) {
	s, minRate, maxRate := pl.s, pl.minRate, pl.maxRate

	// Coarse: double or halve until the pass/fail bracket appears.
	lo, hi = 0.0, math.Inf(1)
	r := s.Start
	for {
		pass, err := b.eval(r, s.Replications)
		if err != nil {
			return 0, 0, err
		}
		if pass {
			lo = r
			if !math.IsInf(hi, 1) || r >= maxRate {
				break
			}
			r = math.Min(2*r, maxRate)
		} else {
			hi = r
			if lo > 0 || r <= minRate {
				break
			}
			r = math.Max(r/2, minRate)
		}
	}

	// Refine, and confirm the lower end with the boundary replications.
	for lo > 0 {
		for !math.IsInf(hi, 1) && (hi-lo)/lo > s.Precision {
			mid := math.Sqrt(lo * hi)
			if mid <= lo || mid >= hi {
				break // adjacent floating-point numbers
			}
			pass, err := b.eval(mid, pl.rb)
			if err != nil {
				return 0, 0, err
			}
			if pass {
				lo = mid
			} else {
				hi = mid
			}
		}
		pass, err := b.eval(lo, pl.rb)
		if err != nil {
			return 0, 0, err
		}
		if pass {
			break
		}
		// The lower end failed once more runs were added: it is the new
		// upper end; fall back to the best confirmed (or tentative) pass
		// below it, or halve.
		hi = lo
		lo = b.bestPassBelow(hi)
		if lo == 0 {
			if hi <= minRate {
				break
			}
			r := math.Max(hi/2, minRate)
			for {
				pass, err := b.eval(r, pl.rb)
				if err != nil {
					return 0, 0, err
				}
				if pass {
					lo = r
					break
				}
				hi = r
				if r <= minRate {
					break
				}
				r = math.Max(r/2, minRate)
			}
		}
	}
	return lo, hi, nil
}

// config returns the run configuration at rate: the base with the rate,
// the criteria's SLO, and early stops that cannot change a verdict.
func (pl *plan) config(rate float64) (sim.Config, error) {
	cfg := pl.s.Base
	arr, err := WithRate(cfg.Workload.Arrivals, rate)
	if err != nil {
		return cfg, err
	}
	cfg.Workload.Arrivals = arr
	cfg.SLO = pl.s.Criteria.SLO
	if n := cfg.Requests - cfg.Warmup; cfg.Requests > 0 && cfg.StopAfterMisses == 0 {
		// Once more than the largest passing number of misses have
		// missed, attainment < q whatever the rest do.
		cfg.StopAfterMisses = MaxMisses(n, pl.s.Criteria.Target) + 1
	}
	return cfg, nil
}

// WithoutSeries returns server without its time series when it can
// drop them (a WithoutSeries method, as batching.Config and
// batching.Cluster have), else server itself: for runs whose results are
// judged and dropped, which nothing reads a series of. Every other result
// is the same.
func WithoutSeries(server sim.ServerConfig) sim.ServerConfig {
	if s, ok := server.(seriesDropper); ok {
		return s.WithoutSeries()
	}
	return server
}

// seriesDropper is a server configuration that can turn its time series
// off.
type seriesDropper interface {
	WithoutSeries() sim.ServerConfig
}

// MaxMisses returns the largest number of misses m among n measured
// requests that still meets attainment q, (n−m)/n ≥ q, computed with the
// same floating-point comparison Judge uses.
func MaxMisses(n int, q float64) int {
	m := int(math.Floor((1 - q) * float64(n)))
	for m+1 <= n && float64(n-m-1)/float64(n) >= q {
		m++
	}
	for m >= 0 && float64(n-m)/float64(n) < q {
		m--
	}
	return m
}

func sortPoints(ps []Point) {
	slices.SortFunc(ps, func(a, b Point) int { return cmp.Compare(a.Rate, b.Rate) })
}

func sortRuns(vs []Verdict) {
	slices.SortFunc(vs, func(a, b Verdict) int { return cmp.Compare(a.Replication, b.Replication) })
}
