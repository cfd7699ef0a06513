package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// summaryWidth is the width of vLLM's summary banners.
const summaryWidth = 50

// banner centres title in a line of fill characters, as Python's
// "{:c^50}".format(title) does (extra padding goes right).
func banner(title string, fill byte) string {
	n := summaryWidth - len(title)
	if n <= 0 {
		return title
	}
	left := n / 2
	return strings.Repeat(string(fill), left) + title + strings.Repeat(string(fill), n-left)
}

// summaryWriter writes vLLM's "{:<40} {:<10}" lines.
type summaryWriter struct{ w *bufio.Writer }

func (s summaryWriter) line(label string, value string) {
	fmt.Fprintf(s.w, "%-40s %-10s\n", label, value)
}

func (s summaryWriter) int(label string, v int64) { s.line(label, strconv.FormatInt(v, 10)) }

// float writes v with 2 decimals, as vLLM's {:<10.2f}.
func (s summaryWriter) float(label string, v float64) {
	s.line(label, fmt2(v))
}

func fmt2(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// metricSections are vLLM's latency sections: key, short name, header.
var metricSections = []struct{ key, name, header string }{
	{"ttft", "TTFT", "Time to First Token"},
	{"tpot", "TPOT", "Time per Output Token (excl. 1st token)"},
	{"itl", "ITL", "Inter-token Latency"},
	{"e2el", "E2EL", "End-to-end Latency"},
}

func sampleOf(res *sim.Result, key string) *metrics.Sample {
	switch key {
	case "ttft":
		return res.TTFT()
	case "tpot":
		return res.TPOT()
	case "itl":
		return res.ITL()
	default:
		return res.E2E()
	}
}

// printSummary writes vLLM's "Serving Benchmark Result" block, then
// servesim's own lines in a second block.
func printSummary(out io.Writer, o *benchOptions, sc *scenario.Scenario, res *sim.Result) error {
	w := bufio.NewWriter(out)
	s := summaryWriter{w}
	a := sc.Workload.Arrival
	switch {
	case a.Process == "ramp":
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", a.Strategy)
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) } // vLLM's are ints
		fmt.Fprintf(w, "Will increase RPS from %s to %s RPS over the duration of the benchmark.\n", g(a.Start), g(a.End))
	case a.Process == "trace":
		fmt.Fprintf(w, "Traffic: trace replay of %s (speed-up %s)\n", a.Path, pyFloat(max(a.Speedup, 1)))
	default:
		fmt.Fprintf(w, "Traffic request rate: %s\n", pyFloat(float64(a.Rate)))
	}
	if a.Process != "trace" {
		dist := "Poisson process"
		if o.burstiness != 1 {
			dist = "Gamma distribution"
		}
		fmt.Fprintf(w, "Burstiness factor: %s (%s)\n", pyFloat(o.burstiness), dist)
	}
	conc := "None"
	if o.maxConcurrency > 0 {
		conc = strconv.Itoa(o.maxConcurrency)
	}
	fmt.Fprintf(w, "Maximum request concurrency: %s\n", conc)

	fmt.Fprintln(w, banner(" Serving Benchmark Result ", '='))
	s.int("Successful requests:", int64(res.Completed))
	s.int("Failed requests:", int64(res.Failed+res.Rejected))
	if o.maxConcurrency > 0 {
		s.int("Maximum request concurrency:", int64(o.maxConcurrency))
	}
	if a.Process != "trace" && a.Process != "ramp" && !math.IsInf(float64(a.Rate), 1) {
		s.float("Request rate configured (RPS):", float64(a.Rate))
	}
	s.float("Benchmark duration (s):", res.Duration)
	s.int("Total input tokens:", res.TotalInput)
	s.int("Total generated tokens:", res.TotalOutput)
	s.float("Request throughput (req/s):", res.RequestThroughput)
	if o.goodputGiven {
		s.float("Request goodput (req/s):", res.RequestGoodput)
	}
	s.float("Output token throughput (tok/s):", res.OutputThroughput)
	s.int("Peak concurrent requests:", int64(res.MaxConcurrent))
	s.float("Total Token throughput (tok/s):", res.TotalTokenThroughput)
	for _, m := range metricSections {
		if !slices.Contains(o.metrics, m.key) {
			continue
		}
		smp := sampleOf(res, m.key)
		fmt.Fprintln(w, banner(m.header, '-'))
		s.float("Mean "+m.name+" (ms):", 1000*smp.Mean())
		s.float("Median "+m.name+" (ms):", 1000*smp.Median())
		for _, p := range o.percentiles {
			s.float("P"+metrics.PercentileKey(p)+" "+m.name+" (ms):", 1000*smp.Percentile(p))
		}
	}
	fmt.Fprintln(w, strings.Repeat("=", summaryWidth))

	printExtras(s, o, sc, res)
	return w.Flush()
}

// printExtras writes servesim's block: the simulated server, SLO
// attainment, queueing, stability and engine counters.
func printExtras(s summaryWriter, o *benchOptions, sc *scenario.Scenario, res *sim.Result) {
	w := s.w
	fmt.Fprintln(w, banner(" servesim ", '='))
	s.line("Simulated server:", sc.Server.String())
	if v, ok := res.Stat("kv_cache_tokens"); ok {
		s.int("KV-cache capacity (tokens):", int64(v))
	}
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS && eng.MaxModelLen > 0 {
		s.int("Max model length (tokens):", int64(eng.MaxModelLen))
	}
	if res.Warmup > 0 {
		s.int("Warm-up requests (not measured):", int64(res.Warmup))
	}
	if o.summaryOnly {
		s.line("Percentiles:", "from quantile sketches, within 0.5% (--summary-only)")
	}
	s.float("Actual send rate (req/s):", res.SendRate)
	s.float("Mean queue time (ms):", 1000*res.Queue().Mean())
	if o.maxConcurrency > 0 {
		s.float("Mean client queue time (ms):", 1000*res.ClientQueue().Mean())
	}
	if o.goodputGiven {
		s.float("SLO attainment (%):", 100*res.Attainment)
		verdict := "FAIL"
		if res.Attainment >= o.slo.Target {
			verdict = "PASS"
		}
		s.line("SLO target (%):", fmt2(100*o.slo.Target)+" "+verdict)
		s.float("Goodput per GPU (tok/s):", res.GoodputPerGPU)
	}
	stab := "stable"
	switch {
	case res.StoppedBy == sim.StopMaxInSystem:
		stab = "UNSTABLE: stopped early: " + res.Stability.Reason
	case res.Closed:
		stab = "n/a (closed loop)"
	case math.IsInf(res.RequestRate, 1):
		stab = "n/a (request rate inf: a finite burst)"
	case res.Stability.Unstable:
		stab = "UNSTABLE: " + res.Stability.Reason
	}
	s.line("Queue stability:", stab)
	stats := []struct {
		name, label string
		scale       float64
		integer     bool
	}{
		{"mean_kv_cache_usage", "Mean KV-cache usage (%):", 100, false},
		{"max_kv_cache_usage", "Max KV-cache usage (%):", 100, false},
		{"preemptions", "Preemptions:", 1, true},
		{"mean_running", "Mean running requests:", 1, false},
		{"mean_tokens_per_step", "Mean tokens per step:", 1, false},
		{"mbu", "MBU (%):", 100, false},
		{"mfu", "MFU (%):", 100, false},
	}
	for _, st := range stats {
		v, ok := res.Stat(st.name)
		if !ok {
			continue
		}
		if st.integer {
			s.int(st.label, int64(v))
		} else {
			s.float(st.label, st.scale*v)
		}
	}
	fmt.Fprintln(w, strings.Repeat("=", summaryWidth))
}
