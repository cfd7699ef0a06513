package sim

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/servesim/servesim/sim/event"
)

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

// JobAt returns job index of an experiment with replications runs per
// point under the base seed. It needs replications ≥ 1 and index ≥ 0.
func JobAt(index, replications int, base uint64) Job {
	r := index % replications
	return Job{Index: index, Point: index / replications, Replication: r, Seed: event.ReplicationSeed(base, r)}
}

// A Shard is the part of an experiment one process runs: the jobs whose
// Index mod Count equals Index. Shards of one experiment partition its
// jobs, and merging their outputs gives the unsharded output.
type Shard struct {
	Index, Count int
}

// AllJobs is the shard that owns every job.
var AllJobs = Shard{Index: 0, Count: 1}

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

// Validate requires Count ≥ 1 and 0 ≤ Index < Count.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return invalidf("shard %d/%d must have 0 <= index < count", s.Index, s.Count)
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
// that shard owns, on up to workers goroutines (0 means GOMAXPROCS; a
// negative count is an error). do
// stores its outcome in slot k of the caller's own storage (length
// shard.Size(n)); since every run is a function of its job alone, the
// outcome does not depend on the parallelism.
//
// Jobs are claimed in increasing order and generated as they are claimed,
// never listed up front. After a failure no new job is claimed, and Each
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
	var (
		next     atomic.Int64
		failed   atomic.Bool
		mu       sync.Mutex
		firstErr error
		firstK   = math.MaxInt
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= size {
					return
				}
				if err := protect(do, k, shard.Index+k*shard.Count); err != nil {
					mu.Lock()
					if k < firstK {
						firstK, firstErr = k, err
					}
					mu.Unlock()
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func protect(do func(k, i int) error, k, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("job %d: internal error: %v (please report it with the configuration)", i, r)
		}
	}()
	return do(k, i)
}

// Replicate runs cfg once per seed — independent replications with
// pre-declared seeds (see event.Seeds) — and returns the results in seed
// order, result i carrying Seed seeds[i] and Replication i. Runs execute in
// parallel on up to GOMAXPROCS goroutines; each run is single-threaded and
// a function of its Config alone, so the results do not depend on the
// parallelism.
func Replicate(cfg Config, seeds []uint64) ([]*Result, error) {
	if len(seeds) == 0 {
		return nil, invalidf("replications: no seeds")
	}
	cfgs := make([]Config, len(seeds))
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
func RunAll(cfgs []Config, workers int) ([]*Result, error) {
	res := make([]*Result, len(cfgs))
	err := Each(len(cfgs), AllJobs, workers, func(k, _ int) error {
		r, err := Run(cfgs[k])
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
