package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// A jobRecord is one job's outcome as the JSON output of `servesim run`
// and `servesim merge` holds it: where the job sits in the experiment and
// the sim.Result's JSON.
type jobRecord struct {
	Job         int             `json:"job"`
	Point       int             `json:"point"`
	Value       any             `json:"value"`
	Replication int             `json:"replication"`
	Seed        uint64          `json:"seed"`
	Result      json.RawMessage `json:"result"`
}

// runJobs runs the jobs on up to workers goroutines (0: GOMAXPROCS) and
// returns their records in job order. Each result is turned into JSON as
// soon as its run ends, so memory holds one run per worker, not every
// run's request records. Every run is a function of its Config alone, so
// the records do not depend on the parallelism. On failure it returns the
// error of the lowest-numbered failed job.
func runJobs(pts []scenario.Point, jobs []scenario.Job, workers int, p *progress) ([]jobRecord, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(jobs)))
	recs := make([]jobRecord, len(jobs))
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				recs[i], errs[i] = runJob(pts, jobs[i])
				if errs[i] != nil {
					failed.Store(true)
				}
				p.Add(1)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			j := jobs[i]
			return nil, fmt.Errorf("job %d (point %d = %s, replication %d): %w", j.Index, j.Point, pointText(pts[j.Point]), j.Replication, err)
		}
	}
	return recs, nil
}

// runJob runs one job and encodes its result. A panic (a broken internal
// invariant, never bad input) becomes the job's error, so one bad run
// cannot kill the process from a worker goroutine.
func runJob(pts []scenario.Point, j scenario.Job) (rec jobRecord, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (please report it with the scenario)", r)
		}
	}()
	res, err := sim.Run(j.Config)
	if err != nil {
		return jobRecord{}, err
	}
	res.Replication = j.Replication
	b, err := json.Marshal(res)
	if err != nil {
		return jobRecord{}, err
	}
	return jobRecord{Job: j.Index, Point: j.Point, Value: pts[j.Point].Value, Replication: j.Replication, Seed: j.Seed, Result: b}, nil
}

func pointText(p scenario.Point) string {
	if p.Value == nil {
		return "-"
	}
	return scenario.FormatValue(p.Value)
}
