package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/disagg"
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

func (p *pdOptions) define(fs *flag.FlagSet) flagGroup {
	p.prefill, p.decode, p.link = 1, 1, cost.DefaultLinkName
	fs.Var(intValue{p: &p.prefill, min: 1, max: disagg.MaxInstances}, "prefill-instances", "prefill instances x")
	fs.Var(intValue{p: &p.decode, min: 1, max: disagg.MaxInstances}, "decode-instances", "decode instances y")
	fs.StringVar(&p.decodeGPU, "decode-gpu", "", "GPU of the decode instances (default: --gpu)")
	fs.Var(intValue{p: &p.decodeTP, min: 0, max: 1024}, "decode-tensor-parallel-size", "TP of the decode instances (0: --tensor-parallel-size)")
	fs.StringVar(&p.link, "kv-link", p.link, "the KV link, from the catalog: "+joinNames(cost.LinkNames()))
	fs.Var(nonNegativeFloat{&p.proxyMS, "none"}, "proxy-overhead-ms", "the proxy's added latency per request, ms")
	return flagGroup{"pd flags", []string{"prefill-instances", "decode-instances", "decode-gpu", "decode-tensor-parallel-size", "kv-link", "proxy-overhead-ms"}}
}

func joinNames(ns []string) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// runPD is `servesim pd`.
func runPD(args []string, e *env) error {
	var o benchOptions
	var p pdOptions
	pos, err := parseBenchStyle("pd", pdUsage, args, e, &o, p.define)
	if err != nil {
		return err
	}
	if err := plan.ValidateServedName(o.servedName); err != nil {
		return fmt.Errorf("pd: --served-model-name: %w", err)
	}
	if len(pos) > 0 {
		return fmt.Errorf("pd: unexpected argument %q (pd takes only flags; see servesim pd -h)", pos[0])
	}
	for _, f := range []string{"replicas", "data-parallel-size", "dp", "pipeline-parallel-size", "pp", "server"} {
		if o.set[f] {
			return fmt.Errorf("pd: --%s: a P/D deployment's size is --prefill-instances and --decode-instances", f)
		}
	}
	sc, err := o.Scenario()
	if err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	cfg, err := sc.Config()
	if err != nil {
		return fmt.Errorf("pd: %s", benchFieldError(err))
	}
	pre, err := sc.Engine()
	if err != nil {
		return fmt.Errorf("pd: %s", benchFieldError(err))
	}
	dec := pre
	if p.decodeGPU != "" {
		g, err := cost.GPU(p.decodeGPU)
		if err != nil {
			return fmt.Errorf("pd: --decode-gpu: %w", err)
		}
		prof := cost.DefaultProfile(g)
		dec.Deployment.GPU, dec.Deployment.Profile = g, &prof
		// vLLM's serve defaults follow the GPU (batching.ServeDefaults).
		seqs, tokens := batching.ServeDefaults(g)
		if !o.set["max-num-seqs"] {
			dec.MaxNumSeqs = seqs
		}
		if !o.set["max-num-batched-tokens"] && dec.EnableChunkedPrefill {
			dec.MaxNumBatchedTokens = tokens
		}
	}
	if p.decodeTP > 0 {
		dec.Deployment.TP = p.decodeTP
	}
	link, err := cost.LinkByName(p.link)
	if err != nil {
		return fmt.Errorf("pd: --kv-link: %w", err)
	}
	pd := disagg.Config{Prefill: disagg.Pool{Engine: pre, Instances: p.prefill}, Decode: disagg.Pool{Engine: dec, Instances: p.decode},
		Router: batching.Router(sc.Server.Router), Link: link, ProxyOverhead: p.proxyMS / 1000}
	if err := pd.Validate(); err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	cfg.Server = pd
	prog := startProgress(e.stderr, e.tty && !o.quiet, "simulating", 0)
	res, err := sim.Run(cfg)
	prog.Stop()
	if err != nil {
		return fmt.Errorf("pd: %w", err)
	}
	printPD(e.stdout, pd, res, sc.Server.Model, o.servedName, o.GoodputGiven)
	return nil
}

func printPD(out io.Writer, pd disagg.Config, res *sim.Result, model, served string, slo bool) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	s := vllmbench.SummaryWriter{W: w}
	p, d := pd.Prefill.Engine.Deployment, pd.Decode.Engine.Deployment
	fmt.Fprintln(w, vllmbench.Banner(" P/D disaggregated serving (servesim) ", '='))
	s.Line("Prefill pool:", fmt.Sprintf("%d x %s TP %d", pd.Prefill.Instances, p.GPU.Name, p.TP))
	s.Line("Decode pool:", fmt.Sprintf("%d x %s TP %d", pd.Decode.Instances, d.GPU.Name, d.TP))
	s.Line("KV link:", fmt.Sprintf("%s (%.4g GB/s per rank, %.3g ms)", pd.Link.Name, pd.Link.Bandwidth/1e9, 1000*pd.Link.Latency))
	s.Int("Successful requests:", int64(res.Completed))
	s.Int("Failed requests:", int64(res.Failed+res.Rejected))
	s.Float("Request throughput (req/s):", res.RequestThroughput)
	s.Float("Output token throughput (tok/s):", res.OutputThroughput)
	for _, m := range []struct{ name, key string }{{"TTFT", "ttft"}, {"TPOT", "tpot"}} {
		smp := vllmbench.SampleOf(res, m.key)
		s.Float("Mean "+m.name+" (ms):", 1000*smp.Mean())
		s.Float("P99 "+m.name+" (ms):", 1000*smp.Percentile(99))
	}
	if slo {
		s.Float("SLO attainment (%):", 100*res.Attainment)
		s.Float("Goodput per GPU (tok/s):", res.GoodputPerGPU)
	}
	fmt.Fprintln(w, vllmbench.Banner("TTFT split (mean, ms)", '-'))
	for _, n := range []string{"queue", "prefill", "transfer", "decode_first", "link_wait"} {
		v, _ := res.Stat("mean_ttft_" + n + "_ms")
		s.Float(n+":", v)
	}
	fmt.Fprintln(w, vllmbench.Banner("Pools", '-'))
	for _, st := range []struct{ name, label string }{
		{"prefill_busy_fraction", "Prefill busy (%):"}, {"prefill_mean_kv_cache_usage", "Prefill mean KV use (%):"},
		{"decode_busy_fraction", "Decode busy (%):"}, {"decode_mean_kv_cache_usage", "Decode mean KV use (%):"},
		{"kv_link_busy_fraction", "KV link busy, per egress (%):"},
	} {
		v, _ := res.Stat(st.name)
		s.Float(st.label, 100*v)
	}
	fmt.Fprintln(w, vllmbench.Banner("vllm serve", '-'))
	c := plan.PD{Prefill: plan.Engine{Config: pd.Prefill.Engine}, Decode: plan.Engine{Config: pd.Decode.Engine}}
	for _, l := range plan.PDServeCommands(plan.HFModelID(model), c, pd.Prefill.Instances, pd.Decode.Instances) {
		l = plan.WithServedName(l, served)
		fmt.Fprintln(w, l)
	}
}
