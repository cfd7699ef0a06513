package capacity

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// A RateGrid evaluates fixed rates instead of searching (`servesim
// capacity --grid`): Replications runs of Base at each of Rates, its
// arrivals rescaled to the rate (WithRate), in summary mode under
// Criteria's SLO. Judge and NewGridReport read its results; a shard's
// go to NewGridShard.
type RateGrid struct {
	Base         sim.Config
	Criteria     Criteria
	Rates        []float64
	Replications int
	Seed         uint64
	// Workers bounds parallel runs (0: GOMAXPROCS).
	Workers int
}

// Validate checks the rates: each a finite number of requests/s > 0.
// The runs' configurations are checked as they are built.
func (g RateGrid) Validate() error {
	for i, r := range g.Rates {
		if !(r > 0) || math.IsInf(r, 1) {
			return fielderr.New(fmt.Sprintf("rates[%d]", i), r, "must be a finite number > 0 (requests/s)")
		}
	}
	return nil
}

// Run runs shard's jobs of the grid (jobs.All: every job), as Sweep.Run.
func (g RateGrid) Run(shard jobs.Shard) ([]JobResult, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	sw := Sweep{
		Param: "rate", Values: g.Rates, Replications: g.Replications, Seed: g.Seed, Workers: g.Workers,
		Config: func(rate float64) (sim.Config, error) {
			cfg := g.Base
			arr, err := WithRate(cfg.Workload.Arrivals, rate)
			cfg.Workload.Arrivals = arr
			cfg.SLO = g.Criteria.SLO
			cfg.SummaryOnly = true
			return cfg, err
		},
	}
	return sw.Run(shard)
}
