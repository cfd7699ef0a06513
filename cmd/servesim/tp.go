package main

import (
	"fmt"
	"io"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/report"
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

// runTP is `servesim tp`.
func runTP(args []string, e *env) error {
	var o vllmbench.Flags
	var t screen.Flags
	pos, err := parseBenchStyle("tp", tpUsage, args, e, &o, t.Define)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("tp: unexpected argument %q (tp takes only flags; see servesim tp -h)", pos[0])
	}
	if err := t.Check(); err != nil {
		return fmt.Errorf("tp: %w", err)
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
	t.Configure(&study)
	p := progress.Start(e.stderr, e.tty && !o.Quiet, "screening", 0)
	rep, err := study.Run()
	p.Stop()
	if err != nil {
		return fmt.Errorf("tp: %w", err)
	}
	printTP(e.stdout, study.Engine, study, rep, sc.ProbedWorkload())
	if o.Report != "" {
		if err := report.WriteScreenPage(o.Report, study, rep); err != nil {
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
