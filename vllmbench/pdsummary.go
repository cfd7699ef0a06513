package vllmbench

import (
	"bufio"
	"fmt"
	"io"

	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
)

// WritePDSummary writes servesim pd's summary of a run of the P/D
// deployment pd, in the shape of vLLM's summary block: the pools and the
// link, the headline metrics (the SLO ones when slo), the TTFT split
// (queue, prefill, transfer, the decode instance's first step, link
// wait), each pool's utilisation and KV use, and then the serve lines
// (plan.PDServeCommands).
func WritePDSummary(out io.Writer, pd disagg.Config, res *sim.Result, slo bool, serve []string) error {
	w := bufio.NewWriter(out)
	s := SummaryWriter{W: w}
	p, d := pd.Prefill.Engine.Deployment, pd.Decode.Engine.Deployment
	fmt.Fprintln(w, Banner(" P/D disaggregated serving (servesim) ", '='))
	s.Line("Prefill pool:", fmt.Sprintf("%d x %s TP %d", pd.Prefill.Instances, p.GPU.Name, p.TP))
	s.Line("Decode pool:", fmt.Sprintf("%d x %s TP %d", pd.Decode.Instances, d.GPU.Name, d.TP))
	s.Line("KV link:", fmt.Sprintf("%s (%.4g GB/s per rank, %.3g ms)", pd.Link.Name, pd.Link.Bandwidth/1e9, 1000*pd.Link.Latency))
	s.Int("Successful requests:", int64(res.Completed))
	s.Int("Failed requests:", int64(res.Failed+res.Rejected))
	s.Float("Request throughput (req/s):", res.RequestThroughput)
	s.Float("Output token throughput (tok/s):", res.OutputThroughput)
	for _, m := range []struct{ name, key string }{{"TTFT", "ttft"}, {"TPOT", "tpot"}} {
		smp := SampleOf(res, m.key)
		s.Float("Mean "+m.name+" (ms):", 1000*smp.Mean())
		s.Float("P99 "+m.name+" (ms):", 1000*smp.Percentile(99))
	}
	if slo {
		s.Float("SLO attainment (%):", 100*res.Attainment)
		s.Float("Goodput per GPU (tok/s):", res.GoodputPerGPU)
	}
	fmt.Fprintln(w, Banner("TTFT split (mean, ms)", '-'))
	for _, n := range []string{"queue", "prefill", "transfer", "decode_first", "link_wait"} {
		v, _ := res.Stat("mean_ttft_" + n + "_ms")
		s.Float(n+":", v)
	}
	fmt.Fprintln(w, Banner("Pools", '-'))
	for _, st := range []struct{ name, label string }{
		{"prefill_busy_fraction", "Prefill busy (%):"}, {"prefill_mean_kv_cache_usage", "Prefill mean KV use (%):"},
		{"decode_busy_fraction", "Decode busy (%):"}, {"decode_mean_kv_cache_usage", "Decode mean KV use (%):"},
		{"kv_link_busy_fraction", "KV link busy, per egress (%):"},
	} {
		v, _ := res.Stat(st.name)
		s.Float(st.label, 100*v)
	}
	fmt.Fprintln(w, Banner("vllm serve", '-'))
	for _, l := range serve {
		fmt.Fprintln(w, l)
	}
	return w.Flush()
}
