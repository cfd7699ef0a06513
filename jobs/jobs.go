package jobs

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
)

// invalid marks a bad argument as sim.ErrInvalidConfig, as sim marks a
// bad run configuration, so that callers tell bad input from failures
// the same way whichever layer found it.
func invalidf(format string, args ...any) error {
	return invalid(fmt.Errorf(format, args...))
}

// invalid marks err as sim.ErrInvalidConfig (see invalidf).
func invalid(err error) error { return errmark.With(sim.ErrInvalidConfig, err) }

// A Job identifies one run of an experiment: replication Replication at
// point Point of a sweep (point 0 when there is one configuration). This is
// the project's one numbering and seeding rule, used by Replicate, by
// capacity sweeps and searches, and by the CLI's scenario runs and shards:
//
//   - jobs are numbered point-major, Index = Point·replications +
//     Replication, so the list, and every shard of it, is a function of the
//     experiment alone;
//   - Seed is event.ReplicationSeed(base, Replication): the same at every
//     point, so points are compared on common random numbers.
type Job struct {
	Index       int    `json:"job"`
	Point       int    `json:"point"`
	Replication int    `json:"replication"`
	Seed        uint64 `json:"seed"`
}

// At returns job index of an experiment with replications runs per
// point under the base seed. It needs replications ≥ 1 and index ≥ 0.
func At(index, replications int, base uint64) Job {
	r := index % replications
	return Job{Index: index, Point: index / replications, Replication: r, Seed: event.ReplicationSeed(base, r)}
}

// A Shard is the part of an experiment one process runs: the jobs whose
// Index mod Count equals Index. Shards of one experiment partition its
// jobs, and merging their outputs gives the unsharded output.
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
		return Shard{}, invalidf("shard %q must look like i/n, e.g. 0/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate requires Count ≥ 1 and 0 ≤ Index < Count. Its error is a
// *fielderr.Error at shard.count or shard.index, marked
// sim.ErrInvalidConfig.
func (s Shard) Validate() error {
	switch {
	case s.Count < 1:
		return invalid(fielderr.New("shard.count", s.Count, "must be >= 1 (shard %v)", s))
	case s.Index < 0:
		return invalid(fielderr.New("shard.index", s.Index, "must be >= 0 (shard %v)", s))
	case s.Index >= s.Count:
		return invalid(fielderr.New("shard.index", s.Index, "must be < count %d (shard %v)", s.Count, s))
	}
	return nil
}

// Owns reports whether job j belongs to the shard.
func (s Shard) Owns(j int) bool { return j%s.Count == s.Index }

// Size returns how many of n jobs (indices 0..n−1) the shard owns.
func (s Shard) Size(n int) int {
	if n <= s.Index {
		return 0
	}
	return (n-s.Index-1)/s.Count + 1
}

// String returns "i/n".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Each runs do(k, i) for the k-th job index i (k = 0, 1, ...) of the n jobs
// that shard owns, on up to workers goroutines of a Pool (0 means
// GOMAXPROCS; a negative count is an error). do stores its outcome in slot
// k of the caller's own storage (length shard.Size(n)); since every run is
// a function of its job alone, the outcome does not depend on the
// parallelism.
//
// Jobs are started in increasing order and generated as they are started,
// never listed up front. After a failure no new job is started, and Each
// returns the error of the lowest failed job. A panic inside do (a broken
// internal invariant, never bad input) becomes that job's error, so one bad
// run cannot kill the process from a worker goroutine.
func Each(n int, shard Shard, workers int, do func(k, i int) error) error {
	if err := shard.Validate(); err != nil {
		return err
	}
	if err := CheckWorkers(workers); err != nil {
		return err
	}
	size := shard.Size(n)
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, size))
	index := func(k int) int { return shard.Index + k*shard.Count }
	p := NewPool(workers, func(k int) error { return do(k, index(k)) })
	defer p.Close()
	var (
		next, running int
		firstK        int
		firstErr      error
	)
	for ; next < min(workers, size); next++ {
		p.Start(next)
		running++
	}
	for ; running > 0; running-- {
		k, err, panicked := p.Next()
		if panicked != nil {
			err = fmt.Errorf("job %d: %w", index(k), panicked)
		}
		if err != nil && (firstErr == nil || k < firstK) {
			firstK, firstErr = k, err
		}
		if firstErr == nil && next < size {
			p.Start(next)
			next++
			running++
		}
	}
	return firstErr
}

// A Pool runs jobs on a fixed set of worker goroutines as they are
// handed to it: Start hands it job j, to run as run(j) on the first free
// worker, and Next waits for a job to finish. It is the project's one
// runner of parallel work: Each drives one over a fixed job list, and
// capacity's speculative search over jobs it chooses as earlier ones
// finish. The caller keeps at most workers jobs outstanding (started and
// not yet returned by Next), and Close ends the workers once it has taken
// every job back.
type Pool[J, R any] struct {
	jobs chan J
	done chan finished[J, R]
	wg   sync.WaitGroup
}

type finished[J, R any] struct {
	job      J
	out      R
	panicked error
}

// NewPool starts workers (≥ 1) goroutines that run jobs with run.
func NewPool[J, R any](workers int, run func(J) R) *Pool[J, R] {
	p := &Pool[J, R]{jobs: make(chan J, workers), done: make(chan finished[J, R], workers)}
	for range workers {
		p.wg.Go(func() {
			for j := range p.jobs {
				out, err := protect(run, j)
				p.done <- finished[J, R]{j, out, err}
			}
		})
	}
	return p
}

// Start hands the pool job j.
func (p *Pool[J, R]) Start(j J) { p.jobs <- j }

// Next waits for a started job to finish and returns it with run's
// result, or, when run panicked (a broken internal invariant, never bad
// input), with a non-nil error saying so, "internal error: <value>
// (please report it with the configuration)", instead.
func (p *Pool[J, R]) Next() (J, R, error) {
	f := <-p.done
	return f.job, f.out, f.panicked
}

// Close ends the workers; every started job must have been taken back
// by Next.
func (p *Pool[J, R]) Close() {
	close(p.jobs)
	p.wg.Wait()
}

func protect[J, R any](run func(J) R, j J) (out R, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (please report it with the configuration)", r)
		}
	}()
	return run(j), nil
}

// Replicate runs cfg once per seed — independent replications with
// pre-declared seeds (see event.Seeds) — and returns the results in seed
// order, result i carrying Seed seeds[i] and Replication i. Runs execute in
// parallel on up to GOMAXPROCS goroutines; each run is single-threaded and
// a function of its Config alone, so the results do not depend on the
// parallelism.
func Replicate(cfg sim.Config, seeds []uint64) ([]*sim.Result, error) {
	if len(seeds) == 0 {
		return nil, invalidf("replications: no seeds")
	}
	cfgs := make([]sim.Config, len(seeds))
	for i, s := range seeds {
		cfgs[i] = cfg
		cfgs[i].Seed = s
	}
	res, err := RunAll(cfgs, 0)
	for i, r := range res {
		if r != nil {
			r.Replication = i
		}
	}
	return res, err
}

// RunAll runs every configuration, in parallel on up to workers goroutines
// (0 means GOMAXPROCS), and returns the results in input order. On failure
// it returns the error of the lowest-index configuration that failed,
// naming its index, beside the results of the runs that completed.
func RunAll(cfgs []sim.Config, workers int) ([]*sim.Result, error) {
	res := make([]*sim.Result, len(cfgs))
	err := Each(len(cfgs), All, workers, func(k, _ int) error {
		r, err := sim.Run(cfgs[k])
		if err != nil {
			return fmt.Errorf("run %d: %w", k, err)
		}
		res[k] = r
		return nil
	})
	return res, err
}

// MaxWorkers is the most parallel runs a job set, search or plan may ask
// for: 4096, beyond any machine's cores; each worker holds a run's state.
const MaxWorkers = 4096

// CheckWorkers requires 0 <= workers <= MaxWorkers (0: GOMAXPROCS).
func CheckWorkers(workers int) error {
	if workers < 0 || workers > MaxWorkers {
		return invalidf("workers %d must be from 0 (GOMAXPROCS) to %d (MaxWorkers; more than cores only costs memory)", workers, MaxWorkers)
	}
	return nil
}
