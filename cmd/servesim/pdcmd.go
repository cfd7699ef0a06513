package main

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

const pdUsage = `Usage: servesim pd [flags]

Simulates a disaggregated prefill/decode deployment (xPyD, package disagg):
--prefill-instances engines built from the bench flags (--model, --gpu,
--tensor-parallel-size and the scheduler flags) prefill each request, its
KV cache crosses --kv-link, and --decode-instances engines on --decode-gpu
at --decode-tensor-parallel-size decode it. Prints vLLM's headline
metrics, the TTFT split (queue, prefill, transfer, the decode instance's
first step), each pool's utilisation and KV use, and the vllm serve lines
of every instance and the proxy. See docs/disaggregation.md.

The workload and SLO flags are those of 'servesim bench'.
`

// runPD is `servesim pd`.
func runPD(args []string, e *env) error {
	var o vllmbench.Flags
	var p disagg.Flags
	pos, err := parseBenchStyle("pd", pdUsage, args, e, &o, p.Define)
	if err != nil {
		return err
	}
	if err := plan.ValidateServedName(o.ServedName); err != nil {
		return fmt.Errorf("pd: --served-model-name: %w", err)
	}
	if len(pos) > 0 {
		return fmt.Errorf("pd: unexpected argument %q (pd takes only flags; see servesim pd -h)", pos[0])
	}
	for _, f := range []string{"replicas", "data-parallel-size", "dp", "pipeline-parallel-size", "pp", "server"} {
		if o.Given[f] {
			return fmt.Errorf("pd: --%s: a P/D deployment's size is --prefill-instances and --decode-instances", f)
		}
	}
	sc, err := o.Scenario()
	if err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	cfg, err := sc.Config()
	if err != nil {
		return fmt.Errorf("pd: %s", vllmbench.FlagFieldError(err))
	}
	pre, err := sc.Engine()
	if err != nil {
		return fmt.Errorf("pd: %s", vllmbench.FlagFieldError(err))
	}
	pd, err := p.Spec(o.Given).Build(pre, batching.Router(sc.Server.Router))
	if err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	cfg.Server = pd
	prog := progress.Start(e.stderr, e.tty && !o.Quiet, "simulating", 0)
	res, err := sim.Run(cfg)
	prog.Stop()
	if err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	c := plan.PD{Prefill: plan.Engine{Config: pd.Prefill.Engine}, Decode: plan.Engine{Config: pd.Decode.Engine}}
	serve := plan.PDServeCommands(plan.HFModelID(sc.Server.Model), c, pd.Prefill.Instances, pd.Decode.Instances)
	for k, l := range serve {
		serve[k] = plan.WithServedName(l, o.ServedName)
	}
	return vllmbench.WritePDSummary(e.stdout, pd, res, o.GoodputGiven, serve)
}
