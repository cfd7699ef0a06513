package capacity

import (
	"flag"
	"fmt"

	"github.com/servesim/servesim/internal/cliflag"
)

// Flags are the search settings of `servesim capacity` as its flags give
// them (--start, --precision, --replications, --boundary-replications,
// --workers; 0 for the defaults that depend on the scenario, which
// Resolve fills in). They become a Search's fields of the same names.
type Flags struct {
	Start, Precision                            float64
	Replications, BoundaryReplications, Workers int
}

// Define defines the flags on fs with their defaults.
func (f *Flags) Define(fs *flag.FlagSet) {
	f.Precision = 0.05
	fs.Var(cliflag.NonNegativeFloat{P: &f.Start, Zero: "the workload's rate"}, "start", "first rate probed, req/s (0: the workload's rate)")
	fs.Var(cliflag.PositiveFloat{P: &f.Precision}, "precision", "stop when the bracket's relative width (hi-lo)/lo is at most this")
	fs.Var(cliflag.Int{P: &f.Replications, Max: MaxReplications, Why: MaxReplicationsWhy}, "replications", "independent runs per probe (0: the scenario's, at least 3)")
	fs.Var(cliflag.Int{P: &f.BoundaryReplications, Max: 2 * MaxReplications, Why: MaxReplicationsWhy}, "boundary-replications", "runs per probe near the answer (0: twice --replications)")
	fs.Var(cliflag.Int{P: &f.Workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
}

// Resolve fills in the defaults left 0: Replications the scenario's
// (scenarioReps), at least 3; BoundaryReplications twice Replications;
// Start rate, the workload's mean rate. A scenario's replications above
// MaxReplications, or BoundaryReplications below Replications, is an
// error naming the flag to give.
func (f *Flags) Resolve(scenarioReps int, rate float64) error {
	if f.Replications == 0 {
		f.Replications = max(scenarioReps, 3)
		if f.Replications > MaxReplications {
			return fmt.Errorf("the scenario's replications %d exceed %d, %s: give --replications", f.Replications, MaxReplications, MaxReplicationsWhy)
		}
	}
	if f.BoundaryReplications == 0 {
		f.BoundaryReplications = 2 * f.Replications
	}
	if f.BoundaryReplications < f.Replications {
		return fmt.Errorf("--boundary-replications %d must be >= --replications %d", f.BoundaryReplications, f.Replications)
	}
	if f.Start == 0 {
		f.Start = rate
	}
	return nil
}
