package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/vllmbench"
)

const tpUsage = `Usage: servesim tp [flags]

Pre-screens tensor-parallel deployments of --model on --gpu before GPU
hours are spent. For each candidate PxK (K replicas of TP=P behind the
router) it checks the shapes (P must divide the heads and the MLP width)
and per-GPU memory, then searches its lambda* under one arrival process
and SLO (paired seeds), and compares the candidates per GPU: lambda* per
card, and per-card goodput at --common-rate. The verdict follows the rule
that TP must beat replicas per card when the model fits one GPU, and that
the smallest TP that fits is the default when it does not.

The workload, engine and SLO flags are those of 'servesim bench' (the SLO
from --goodput and --slo-target).
`

type tpOptions struct {
	candidates         string
	commonRate         float64
	start, precision   float64
	reps, boundaryReps int
	workers            int
}

func (t *tpOptions) define(fs *flag.FlagSet) cliflag.Group {
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

// runTP is `servesim tp`.
func runTP(args []string, e *env) error {
	var o vllmbench.Flags
	var t tpOptions
	pos, err := parseBenchStyle("tp", tpUsage, args, e, &o, t.define)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("tp: unexpected argument %q (tp takes only flags; see servesim tp -h)", pos[0])
	}
	cands, err := screen.ParseCandidates(t.candidates)
	if err != nil {
		return fmt.Errorf("tp: --candidates: %w", err)
	}
	if t.boundaryReps < t.reps {
		return fmt.Errorf("tp: --boundary-replications %d must be >= --replications %d", t.boundaryReps, t.reps)
	}
	for _, f := range []string{"tensor-parallel-size", "tp", "replicas", "data-parallel-size", "dp", "enable-expert-parallel", "server"} {
		if o.Given[f] {
			return fmt.Errorf("tp: --%s: the candidates set the deployment (--candidates PxK or tpP[dpD][ep][xK])", f)
		}
	}
	sc, err := o.Scenario()
	if err != nil {
		return fmt.Errorf("tp: %w", err)
	}
	study, err := screen.FromScenario(sc)
	if err != nil {
		return fmt.Errorf("tp: %s", vllmbench.FlagFieldError(err))
	}
	study.Candidates, study.Replications, study.BoundaryReplications = cands, t.reps, t.boundaryReps
	study.Precision, study.CommonRate, study.Workers = t.precision, t.commonRate, t.workers
	if t.start > 0 {
		study.Start = t.start
	}
	p := progress.Start(e.stderr, e.tty && !o.Quiet, "screening", 0)
	rep, err := study.Run()
	p.Stop()
	if err != nil {
		return fmt.Errorf("tp: %w", err)
	}
	printTP(e.stdout, study.Engine, study, rep, sc.ProbedWorkload())
	if o.Report != "" {
		if err := reportTP(o.Report, study.Engine, study, rep); err != nil {
			return fmt.Errorf("tp: --report %s: %w", o.Report, err)
		}
		fmt.Fprintf(e.stderr, "servesim: wrote %s\n", o.Report)
	}
	return nil
}

func printTP(w io.Writer, eng batching.Config, s screen.Study, rep *screen.Report, workload string) {
	fmt.Fprintf(w, "TP screen: %s on %s; %s\n", eng.Deployment.Model.Name, eng.Deployment.GPU.Name, s.Criteria)
	fmt.Fprintf(w, "workload: %s\n", workload)
	if p := eng.Deployment.Profile; p != nil {
		fmt.Fprintf(w, "priced by: %s\n", p.Pricing())
	}
	rep.WriteTable(w, s.CommonRate)
}
