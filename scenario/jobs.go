package scenario

import (
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
)

// A Job is one run of an experiment: one replication at one sweep point.
// Jobs are numbered point-major, Index = Point·Replications + Replication,
// so the list — and every shard of it (capacity.Shard: the jobs with
// Index mod n = i) — is a function of the scenario alone. The numbering and
// the seeds are those of capacity.Sweep.
type Job struct {
	Index       int
	Point       int
	Replication int
	// Seed is event.ReplicationSeed(Scenario.Seed, Replication): the same
	// at every point, so points are compared on common random numbers.
	Seed   uint64
	Config sim.Config
}

// Jobs returns the sweep points and every job, in index order. Each job's
// Config carries its own seed.
func (s *Scenario) Jobs() ([]Point, []Job, error) {
	pts, err := s.Points()
	if err != nil {
		return nil, nil, err
	}
	r := s.Replications
	jobs := make([]Job, 0, len(pts)*r)
	for _, p := range pts {
		cfg, err := p.Scenario.Config()
		if err != nil {
			return nil, nil, err
		}
		for rep := range r {
			c := cfg
			c.Seed = event.ReplicationSeed(s.Seed, rep)
			jobs = append(jobs, Job{Index: len(jobs), Point: p.Index, Replication: rep, Seed: c.Seed, Config: c})
		}
	}
	return pts, jobs, nil
}
