package main

import (
	"encoding/json"
	"fmt"

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

// runJobs runs the jobs of x that shard owns on up to workers goroutines
// (0: GOMAXPROCS, sim.Each) and returns their records in job order. Each
// result is turned into JSON as soon as its run ends, so memory holds one
// run per worker, not every run's request records. adjust, when set, edits
// each job's configuration before it runs.
func runJobs(x *scenario.Experiment, shard sim.Shard, workers int, adjust func(*sim.Config), p *progress) ([]jobRecord, error) {
	recs := make([]jobRecord, shard.Size(x.Size()))
	err := sim.Each(x.Size(), shard, workers, func(k, i int) error {
		defer p.Add(1)
		j, cfg := x.Job(i)
		if adjust != nil {
			adjust(&cfg)
		}
		rec, err := runJob(x.Points, j, cfg)
		if err != nil {
			return fmt.Errorf("job %d (point %d = %s, replication %d): %w", j.Index, j.Point, pointText(x.Points[j.Point]), j.Replication, err)
		}
		recs[k] = rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// runJob runs one job and encodes its result.
func runJob(pts []scenario.Point, j sim.Job, cfg sim.Config) (jobRecord, error) {
	res, err := sim.Run(cfg)
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
