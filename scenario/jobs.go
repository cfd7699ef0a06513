package scenario

import (
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// An Experiment is a scenario ready to run: its sweep points, one run
// configuration per point, and the replications of each. Its jobs are
// numbered and seeded by jobs.At (point-major, the replication seed the
// same at every point), so the job list, and every shard of it
// (jobs.Shard), is a function of the scenario alone. Jobs are built one at
// a time by Job, never listed up front, so memory does not grow with the
// replication count.
type Experiment struct {
	// Points are the sweep points (one point without a sweep).
	Points []Point
	// Configs[p] is point p's run configuration; its Seed is unset.
	Configs []sim.Config
	// Replications per point, and the Seed their seeds derive from.
	Replications int
	Seed         uint64
}

// Experiment resolves every sweep point to its run configuration.
func (s *Scenario) Experiment() (*Experiment, error) {
	pts, err := s.Points()
	if err != nil {
		return nil, err
	}
	if err := s.checkJobs(len(pts)); err != nil {
		return nil, s.locate(err)
	}
	x := &Experiment{Points: pts, Configs: make([]sim.Config, len(pts)), Replications: s.Replications, Seed: s.Seed}
	for i, p := range pts {
		if x.Configs[i], err = p.Scenario.Config(); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// Size returns the number of jobs: points × replications.
func (x *Experiment) Size() int { return len(x.Points) * x.Replications }

// Job returns job i (0 ≤ i < Size()) and its run configuration, seeded.
func (x *Experiment) Job(i int) (jobs.Job, sim.Config) {
	j := jobs.At(i, x.Replications, x.Seed)
	cfg := x.Configs[j.Point]
	cfg.Seed = j.Seed
	return j, cfg
}
