package main

import (
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// runJobs runs the jobs of x that shard owns (scenario.Experiment.RunJobs)
// and counts each on the progress bar.
func runJobs(x *scenario.Experiment, shard jobs.Shard, workers int, adjust func(*sim.Config), p *progress.Bar) ([]jobRecord, error) {
	return x.RunJobs(shard, workers, adjust, func() { p.Add(1) })
}

func pointText(p scenario.Point) string {
	if p.Value == nil {
		return "-"
	}
	return scenario.FormatValue(p.Value)
}
