package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
)

// Shard selects part of a job list, so one sweep can be spread over
// machines: job j belongs to shard Index of Count when j mod Count == Index.
// Each shard is a deterministic function of (sweep, index), so it runs
// unchanged as a Kubernetes Indexed Job (--shard $JOB_COMPLETION_INDEX/n)
// or a Slurm job array (--shard $SLURM_ARRAY_TASK_ID/n), and the shards'
// outputs together are exactly the unsharded run's.
type Shard struct {
	Index, Count int
}

// All is the shard that owns every job.
var All = Shard{Index: 0, Count: 1}

// ParseShard parses "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%w: shard %q must look like i/n, e.g. 0/4", ErrInvalid, s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate requires Count ≥ 1 and 0 ≤ Index < Count.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("%w: shard %d/%d must have 0 <= index < count", ErrInvalid, s.Index, s.Count)
	}
	return nil
}

// Owns reports whether job j belongs to the shard.
func (s Shard) Owns(j int) bool { return j%s.Count == s.Index }

// String returns "i/n".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Sweep runs one configuration per value of a scalar parameter (a rate, a
// concurrency, a TP degree, any number Config maps to a run), Replications
// runs each. Replication i uses seed event.ReplicationSeed(Seed, i) at every
// value, so values are compared on common random numbers. Jobs (value ×
// replication) run in parallel; results do not depend on the parallelism
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

// Job is one run of a sweep: value Values[Point], replication Replication.
// Index = Point·Replications + Replication orders all jobs.
type Job struct {
	Index       int     `json:"job"`
	Point       int     `json:"point"`
	Replication int     `json:"replication"`
	Value       float64 `json:"value"`
	Seed        uint64  `json:"seed"`
}

// JobResult pairs a job with its run.
type JobResult struct {
	Job
	Result *sim.Result `json:"result"`
}

// Jobs lists every job in index order.
func (s Sweep) Jobs() []Job {
	jobs := make([]Job, 0, len(s.Values)*s.Replications)
	for p, v := range s.Values {
		for r := range s.Replications {
			jobs = append(jobs, Job{Index: len(jobs), Point: p, Replication: r, Value: v, Seed: event.ReplicationSeed(s.Seed, r)})
		}
	}
	return jobs
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
	}
	for i, v := range s.Values {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: sweep %q values[%d] is NaN", ErrInvalid, s.Param, i)
		}
	}
	return nil
}

// Run runs the jobs the shard owns and returns them in index order.
func (s Sweep) Run(shard Shard) ([]JobResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := shard.Validate(); err != nil {
		return nil, err
	}
	var jobs []Job
	var cfgs []sim.Config
	for _, j := range s.Jobs() {
		if !shard.Owns(j.Index) {
			continue
		}
		cfg, err := s.Config(j.Value)
		if err != nil {
			return nil, fmt.Errorf("sweep %s=%v: %w", s.Param, j.Value, err)
		}
		cfg.Seed = j.Seed
		jobs = append(jobs, j)
		cfgs = append(cfgs, cfg)
	}
	results, err := sim.RunAll(cfgs, s.Workers)
	out := make([]JobResult, len(jobs))
	for i, j := range jobs {
		out[i] = JobResult{Job: j, Result: results[i]}
		if results[i] != nil {
			results[i].Replication = j.Replication
		}
	}
	if err != nil {
		return out, fmt.Errorf("sweep %s: %w", s.Param, err)
	}
	return out, nil
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
