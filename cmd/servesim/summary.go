package main

import (
	"bufio"
	"cmp"
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

// metricSections are vLLM's latency sections, in vLLM's order: key,
// short name, header.
var metricSections = []struct{ key, name, header string }{
	{"ttft", "TTFT", "Time to First Token"},
	{"tpot", "TPOT", "Time per Output Token (excl. 1st token)"},
	{"itl", "ITL", "Inter-token Latency"},
	{"e2el", "E2EL", "End-to-end Latency"},
	{"client_queue_time", "Client Queue Time", "Client-side Queueing"},
	{"e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency"},
}

func sampleOf(res *sim.Result, key string) *metrics.Sample {
	switch key {
	case "ttft":
		return res.TTFT()
	case "tpot":
		return res.TPOT()
	case "itl":
		return res.ITL()
	case "client_queue_time":
		return res.ClientQueue()
	case "e2el_including_client_queue":
		return res.E2EWithClientQueue()
	default:
		return res.E2E()
	}
}

// shownMetrics returns the sections vLLM prints and saves: those of
// --percentile-metrics, less the token sections without a tokenizer, the
// client queue without --max-concurrency, and the queue-inclusive latency
// without a finite --request-rate as well.
func shownMetrics(o *benchOptions) []string {
	var out []string
	for _, m := range metricSections {
		switch {
		case !slices.Contains(o.metrics, m.key):
		case o.skipTokenizerInit && (m.key == "ttft" || m.key == "tpot" || m.key == "itl"):
		case o.maxConcurrency <= 0 && (m.key == "client_queue_time" || m.key == "e2el_including_client_queue"):
		case m.key == "e2el_including_client_queue" && math.IsInf(o.requestRate, 1):
		default:
			out = append(out, m.key)
		}
	}
	return out
}

// printPreamble writes the lines vLLM prints on stdout before its block
// (less the Namespace dump of every flag and the sampling warning).
func printPreamble(out io.Writer, o *benchOptions, sc *scenario.Scenario) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	fmt.Fprintln(w, "Starting initial single prompt test run...")
	fmt.Fprintln(w, "Skipping endpoint ready check.")
	if o.numWarmups > 0 {
		fmt.Fprintf(w, "Warming up with %d requests...\n", o.numWarmups)
		fmt.Fprintln(w, "Warmup run completed.")
	}
	fmt.Fprintln(w, "Starting main benchmark run...")
	a := sc.Workload.Arrival
	if a.Process == "trace" && o.datasetName == "timed_trace" {
		fmt.Fprintln(w, "Self timing is set, using the timestamps from the trace file.")
		return
	}
	switch {
	case a.Process == "ramp":
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", a.Strategy)
		fmt.Fprintf(w, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", o.rampStart, o.rampEnd)
	case a.Process == "trace":
		fmt.Fprintf(w, "Traffic: trace replay of %s (speed-up %s)\n", a.Path, pyFloat(max(a.Speedup, 1)))
	default:
		fmt.Fprintf(w, "Traffic request rate: %s\n", pyFloat(o.requestRate))
	}
	dist := "Poisson process"
	if o.burstiness != 1 {
		dist = "Gamma distribution"
	}
	fmt.Fprintf(w, "Burstiness factor: %s (%s)\n", pyFloat(o.burstiness), dist)
	conc := "None"
	if o.maxConcurrency > 0 {
		conc = strconv.Itoa(o.maxConcurrency)
	}
	fmt.Fprintf(w, "Maximum request concurrency: %s\n", conc)
}

// printSummary writes vLLM's "Serving Benchmark Result" block, then,
// after a blank line, servesim's own block.
func printSummary(out io.Writer, o *benchOptions, sc *scenario.Scenario, res *sim.Result) error {
	w := bufio.NewWriter(out)
	s := summaryWriter{w}
	fmt.Fprintln(w, banner(" Serving Benchmark Result ", '='))
	s.int("Successful requests:", int64(res.Completed))
	s.int("Failed requests:", int64(res.Failed+res.Rejected))
	if o.maxConcurrency > 0 {
		s.int("Maximum request concurrency:", int64(o.maxConcurrency))
	}
	if !math.IsInf(o.requestRate, 1) {
		s.float("Request rate configured (RPS):", o.requestRate)
	}
	s.float("Benchmark duration (s):", res.Duration)
	s.int("Total input tokens:", res.TotalInput)
	if !o.skipTokenizerInit {
		s.int("Total generated tokens:", res.TotalOutput)
	}
	s.float("Request throughput (req/s):", res.RequestThroughput)
	if o.goodputGiven {
		s.float("Request goodput (req/s):", res.RequestGoodput)
	}
	if !o.skipTokenizerInit {
		s.float("Output token throughput (tok/s):", res.OutputThroughput)
		s.float("Peak output token throughput (tok/s):", res.MaxOutputTokensPerS)
	}
	s.float("Peak concurrent requests:", float64(peakConcurrent(res)))
	if !o.skipTokenizerInit {
		s.float("Total token throughput (tok/s):", res.TotalTokenThroughput)
	}
	shown := shownMetrics(o)
	for _, m := range metricSections {
		if !slices.Contains(shown, m.key) {
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
	printSpecDecode(s, res) // speculative decoding (speculative.go)
	fmt.Fprintln(w, strings.Repeat("=", summaryWidth))

	printExtras(s, o, sc, res)
	return w.Flush()
}

// peakConcurrent is vLLM's max_concurrent_requests: the most successful
// measured requests whose [send, end) intervals overlap, an end at the
// same instant as a send counted first. Without records (summary mode) it
// is the run's peak of requests in flight.
func peakConcurrent(res *sim.Result) int {
	if res.Requests == nil {
		return res.MaxConcurrent
	}
	type ev struct {
		t float64
		d int
	}
	var evs []ev
	for i := range res.Requests {
		r := &res.Requests[i]
		if r.Warmup || r.Status != metrics.Completed {
			continue
		}
		evs = append(evs, ev{r.Sent, 1}, ev{r.Done, -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return a.d - b.d
	})
	n, peak := 0, 0
	for _, e := range evs {
		n += e.d
		peak = max(peak, n)
	}
	return peak
}

// printExtras writes servesim's block: the simulated server, SLO
// attainment, queueing, stability and engine counters.
func printExtras(s summaryWriter, o *benchOptions, sc *scenario.Scenario, res *sim.Result) {
	w := s.w
	fmt.Fprintln(w)
	fmt.Fprintln(w, banner(" servesim (not in vLLM's output) ", '='))
	s.line("Simulated server:", sc.Server.String())
	if p := scenarioPricing(sc); p != "" {
		s.line("Priced by:", p)
	}
	if v, ok := res.Stat("kv_cache_tokens"); ok {
		s.int("KV-cache capacity (tokens):", int64(v))
	}
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS && eng.MaxModelLen > 0 {
		s.int("Max model length (tokens):", int64(eng.MaxModelLen))
	}
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS {
		limits := fmt.Sprintf("%d seqs, %d tokens/step", eng.MaxNumSeqs, eng.MaxNumBatchedTokens)
		switch {
		case eng.Deployment.DP > 1:
			limits += " per data-parallel group"
		case sc.Server.Replicas*max(sc.Server.DataParallelSize, 1) > 1:
			limits += " per engine"
		}
		s.line("Scheduler limits:", limits)
	}
	if o.tokens != "" {
		s.line("Prompt token counts:", o.tokens)
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
		{"mean_kv_cache_cached", "Mean KV-cache cached, free (%):", 100, false},
		{"prefix_cache_hit_rate", "Prefix cache hit rate (%):", 100, false},
		{"preemptions", "Preemptions:", 1, true},
		{"mean_running", "Mean running requests:", 1, false},
		{"mean_tokens_per_step", "Mean tokens per step:", 1, false},
		{"mbu", "MBU (%):", 100, false},
		{"mfu", "MFU (%):", 100, false},
		// Speculative decoding: the proposer's share (vLLM's counters are
		// in its own section, printSpecDecode).
		{"spec_decode_draft_time_fraction", "Spec decode draft time share (%):", 100, false},
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
