package sim

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Replicate runs cfg once per seed — independent replications with
// pre-declared seeds (see Seeds) — and returns the results in seed order,
// result i carrying Seed seeds[i] and Replication i. Runs execute in
// parallel on up to GOMAXPROCS goroutines; each run is single-threaded and
// a function of its Config alone, so the results do not depend on the
// parallelism.
func Replicate(cfg Config, seeds []uint64) ([]*Result, error) {
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%w: replications: no seeds", ErrInvalidConfig)
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
// (0 means GOMAXPROCS), and returns the results in input order. It returns
// the error of the lowest-index configuration that failed, if any, beside
// the results of the others.
func RunAll(cfgs []Config, workers int) ([]*Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(cfgs))
	res := make([]*Result, len(cfgs))
	errs := make([]error, len(cfgs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cfgs) {
					return
				}
				res[i], errs[i] = Run(cfgs[i])
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return res, fmt.Errorf("run %d: %w", i, err)
		}
	}
	return res, nil
}
