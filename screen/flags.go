package screen

import (
	"flag"
	"fmt"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/cliflag"
)

// Flags are `servesim tp`'s own flags: the candidates and the searches'
// settings. Define puts them on a flag set; Check parses and checks them
// together, and Configure applies them to a Study.
type Flags struct {
	candidates         string
	commonRate         float64
	start, precision   float64
	reps, boundaryReps int
	workers            int

	cands []Candidate // --candidates, parsed by Check
}

// Define defines the flags on fs with their defaults and returns their
// help group.
func (t *Flags) Define(fs *flag.FlagSet) cliflag.Group {
	t.precision, t.reps, t.boundaryReps = 0.05, 3, 5
	fs.StringVar(&t.candidates, "candidates", "1x1,2x1,4x1,8x1", "comma-separated `PxK` (K replicas of tensor-parallel degree P) or tpP[dpD][ep][xK] (vLLM's --data-parallel-size D and --enable-expert-parallel)")
	fs.Var(cliflag.NonNegativeFloat{P: &t.commonRate, Zero: "skip"}, "common-rate", "also run every candidate at this rate, req/s, for per-card goodput side by side (0: skip)")
	fs.Var(cliflag.NonNegativeFloat{P: &t.start, Zero: "--request-rate"}, "start", "first rate each search probes, req/s (0: --request-rate)")
	fs.Var(cliflag.PositiveFloat{P: &t.precision}, "precision", "relative width of each lambda* bracket")
	fs.Var(cliflag.Int{P: &t.reps, Min: 1, Max: capacity.MaxReplications, Why: capacity.MaxReplicationsWhy}, "replications", "independent runs per probe")
	fs.Var(cliflag.Int{P: &t.boundaryReps, Min: 1, Max: 2 * capacity.MaxReplications, Why: capacity.MaxReplicationsWhy}, "boundary-replications", "runs per probe near each answer (at least --replications)")
	fs.Var(cliflag.Int{P: &t.workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
	return cliflag.Group{Title: "tp flags", Names: []string{"candidates", "common-rate", "start", "precision", "replications", "boundary-replications", "workers"}}
}

// Check parses --candidates and checks --boundary-replications against
// --replications, naming the flag.
func (t *Flags) Check() error {
	cands, err := ParseCandidates(t.candidates)
	if err != nil {
		return fmt.Errorf("--candidates: %w", err)
	}
	if t.boundaryReps < t.reps {
		return fmt.Errorf("--boundary-replications %d must be >= --replications %d", t.boundaryReps, t.reps)
	}
	t.cands = cands
	return nil
}

// Configure sets study's candidates (after Check) and search settings;
// --start 0 keeps the study's own first rate.
func (t *Flags) Configure(study *Study) {
	study.Candidates, study.Replications, study.BoundaryReplications = t.cands, t.reps, t.boundaryReps
	study.Precision, study.CommonRate, study.Workers = t.precision, t.commonRate, t.workers
	if t.start > 0 {
		study.Start = t.start
	}
}
