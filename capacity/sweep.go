package capacity

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// Sweep runs one configuration per value of a scalar parameter (a rate, a
// concurrency, a TP degree, any number Config maps to a run), Replications
// runs each. Replication i uses seed event.ReplicationSeed(Seed, i) at every
// value (jobs.At), so values are compared on common random numbers. Jobs (value ×
// replication) run in parallel (jobs.Each); results do not depend on the parallelism
// or on the sharding.
type Sweep struct {
	// Param names the swept parameter, for reports.
	Param string
	// Values are the parameter values, in report order.
	Values []float64
	// Config returns the run configuration for a value (its Seed is set
	// by the sweep).
	Config func(value float64) (sim.Config, error)
	// Replications per value (≥ 1).
	Replications int
	// Seed derives the replication seeds.
	Seed uint64
	// Workers bounds parallel runs (0 means GOMAXPROCS).
	Workers int
}

// Job is one run of a sweep: value Values[Point], replication
// Replication, numbered and seeded by jobs.At.
type Job struct {
	jobs.Job
	Value float64 `json:"value"`
}

// JobResult pairs a job with its run.
type JobResult struct {
	Job
	Result *sim.Result `json:"result"`
}

// Size returns the number of jobs, len(Values)·Replications.
func (s Sweep) Size() int { return len(s.Values) * s.Replications }

// Job returns job i (0 ≤ i < Size()).
func (s Sweep) Job(i int) Job {
	j := jobs.At(i, s.Replications, s.Seed)
	return Job{Job: j, Value: s.Values[j.Point]}
}

// Validate checks the sweep's settings.
func (s Sweep) Validate() error {
	switch {
	case len(s.Values) == 0:
		return fmt.Errorf("%w: sweep %q has no values", ErrInvalid, s.Param)
	case s.Config == nil:
		return fmt.Errorf("%w: sweep %q has no Config function", ErrInvalid, s.Param)
	case s.Replications < 1:
		return fmt.Errorf("%w: sweep %q replications %d must be >= 1", ErrInvalid, s.Param, s.Replications)
	case s.Workers < 0 || s.Workers > jobs.MaxWorkers:
		return fmt.Errorf("%w: sweep %q workers %d must be from 0 (GOMAXPROCS) to %d", ErrInvalid, s.Param, s.Workers, jobs.MaxWorkers)
	}
	for i, v := range s.Values {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: sweep %q values[%d] is NaN", ErrInvalid, s.Param, i)
		}
	}
	return nil
}

// Run runs the jobs the shard owns (jobs.Each) and returns them in index
// order. On failure it returns the error of the lowest failed job beside
// the jobs that completed (their Result set).
func (s Sweep) Run(shard jobs.Shard) ([]JobResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := shard.Validate(); err != nil {
		return nil, err
	}
	out := make([]JobResult, shard.Size(s.Size()))
	err := jobs.Each(s.Size(), shard, s.Workers, func(k, i int) error {
		j := s.Job(i)
		out[k].Job = j
		cfg, err := s.Config(j.Value)
		if err != nil {
			return fmt.Errorf("sweep %s=%v: %w", s.Param, j.Value, err)
		}
		cfg.Seed = j.Seed
		res, err := sim.Run(cfg)
		if err != nil {
			return fmt.Errorf("sweep %s=%v, replication %d: %w", s.Param, j.Value, j.Replication, err)
		}
		res.Replication = j.Replication
		out[k].Result = res
		return nil
	})
	return out, err
}

// Judge groups sweep results over rates into Points with the criteria's
// verdicts, in value order: the table a grid capacity search reports. The
// swept value must be the target rate. Results from several shards may be
// concatenated in any order.
func Judge(c Criteria, results []JobResult) []Point {
	byPoint := map[int]*Point{}
	var order []int
	for _, jr := range results {
		if jr.Result == nil {
			continue // a run that failed to start
		}
		p, ok := byPoint[jr.Point]
		if !ok {
			p = &Point{Rate: jr.Value, Pass: true, MinAttainment: math.Inf(1)}
			byPoint[jr.Point] = p
			order = append(order, jr.Point)
		}
		v := c.Judge(jr.Result, jr.Value)
		p.Runs = append(p.Runs, v)
		p.Pass = p.Pass && v.Pass
		p.MinAttainment = math.Min(p.MinAttainment, v.Attainment)
	}
	points := make([]Point, 0, len(order))
	for _, i := range order {
		points = append(points, *byPoint[i])
	}
	sortPoints(points)
	for i := range points {
		sortRuns(points[i].Runs)
	}
	return points
}

// Bracket returns the capacity bracket of judged points: Lower is the
// largest passing rate below the smallest failing one (0 if none), Upper
// that smallest failing rate (+Inf if none failed).
func Bracket(points []Point) (lower, upper float64) {
	upper = math.Inf(1)
	for _, p := range points {
		if !p.Pass && p.Rate < upper {
			upper = p.Rate
		}
	}
	for _, p := range points {
		if p.Pass && p.Rate < upper && p.Rate > lower {
			lower = p.Rate
		}
	}
	return lower, upper
}
