package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/internal/cliflag"
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

type pdOptions struct {
	prefill, decode int
	decodeGPU       string
	decodeTP        int
	link            string
	proxyMS         float64
}

func (p *pdOptions) define(fs *flag.FlagSet) cliflag.Group {
	p.prefill, p.decode, p.link = 1, 1, cost.DefaultLinkName
	fs.Var(cliflag.Int{P: &p.prefill, Min: 1, Max: disagg.MaxInstances}, "prefill-instances", "prefill instances x")
	fs.Var(cliflag.Int{P: &p.decode, Min: 1, Max: disagg.MaxInstances}, "decode-instances", "decode instances y")
	fs.StringVar(&p.decodeGPU, "decode-gpu", "", "GPU of the decode instances (default: --gpu)")
	fs.Var(cliflag.Int{P: &p.decodeTP, Min: 0, Max: 1024}, "decode-tensor-parallel-size", "TP of the decode instances (0: --tensor-parallel-size)")
	fs.StringVar(&p.link, "kv-link", p.link, "the KV link, from the catalog: "+strings.Join(cost.LinkNames(), ", "))
	fs.Var(cliflag.NonNegativeFloat{P: &p.proxyMS, Zero: "none"}, "proxy-overhead-ms", "the proxy's added latency per request, ms")
	return cliflag.Group{Title: "pd flags", Names: []string{"prefill-instances", "decode-instances", "decode-gpu", "decode-tensor-parallel-size", "kv-link", "proxy-overhead-ms"}}
}

// runPD is `servesim pd`.
func runPD(args []string, e *env) error {
	var o vllmbench.Flags
	var p pdOptions
	pos, err := parseBenchStyle("pd", pdUsage, args, e, &o, p.define)
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
	pd, err := disagg.Spec{Prefill: p.prefill, Decode: p.decode, DecodeGPU: p.decodeGPU, DecodeTP: p.decodeTP,
		Link: p.link, ProxyOverhead: p.proxyMS / 1000,
		KeepMaxNumSeqs: o.Given["max-num-seqs"], KeepMaxNumBatchedTokens: o.Given["max-num-batched-tokens"]}.Build(pre, batching.Router(sc.Server.Router))
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
