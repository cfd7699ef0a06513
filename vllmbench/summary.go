package vllmbench

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

// Banner centres title in a line of fill characters, as Python's
// "{:c^50}".format(title) does (extra padding goes right).
func Banner(title string, fill byte) string {
	n := summaryWidth - len(title)
	if n <= 0 {
		return title
	}
	left := n / 2
	return strings.Repeat(string(fill), left) + title + strings.Repeat(string(fill), n-left)
}

// SummaryWriter writes vLLM's "{:<40} {:<10}" lines.
type SummaryWriter struct{ W *bufio.Writer }

// Line writes one "label value" line.
func (s SummaryWriter) Line(label string, value string) {
	fmt.Fprintf(s.W, "%-40s %-10s\n", label, value)
}

// Int writes an integer line.
func (s SummaryWriter) Int(label string, v int64) { s.Line(label, strconv.FormatInt(v, 10)) }

// Float writes v with 2 decimals, as vLLM's {:<10.2f}.
func (s SummaryWriter) Float(label string, v float64) {
	s.Line(label, fmt2(v))
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

// SampleOf returns the run's sample of a vLLM metric key ("ttft", "tpot",
// "itl", "e2el", ...), in seconds.
func SampleOf(res *sim.Result, key string) *metrics.Sample {
	switch key {
	case "ttft":
		return res.TTFT()
	case "tpot":
		return res.TPOT()
	case "itl":
		return res.ITL()
	case "client_queue_time":
		return res.Latency(metrics.ClientQueueTime)
	case "e2el_including_client_queue":
		return res.Latency(metrics.E2EWithClientQueue)
	default:
		return res.E2E()
	}
}

// shownMetrics returns the sections vLLM prints and saves: those of
// --percentile-metrics, less the token sections without a tokenizer, the
// client queue without --max-concurrency, and the queue-inclusive latency
// without a finite --request-rate as well.
func shownMetrics(o *Options) []string {
	var out []string
	for _, m := range metricSections {
		switch {
		case !slices.Contains(o.Metrics, m.key):
		case o.SkipTokenizerInit && (m.key == "ttft" || m.key == "tpot" || m.key == "itl"):
		case o.MaxConcurrency <= 0 && (m.key == "client_queue_time" || m.key == "e2el_including_client_queue"):
		case m.key == "e2el_including_client_queue" && math.IsInf(o.RequestRate, 1):
		default:
			out = append(out, m.key)
		}
	}
	return out
}

// WritePreamble writes the lines vLLM prints on stdout before its block
// (less the Namespace dump of every flag and the sampling warning).
func WritePreamble(out io.Writer, o *Options, sc *scenario.Scenario) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	fmt.Fprintln(w, "Starting initial single prompt test run...")
	fmt.Fprintln(w, "Skipping endpoint ready check.")
	if o.NumWarmups > 0 {
		fmt.Fprintf(w, "Warming up with %d requests...\n", o.NumWarmups)
		fmt.Fprintln(w, "Warmup run completed.")
	}
	fmt.Fprintln(w, "Starting main benchmark run...")
	a := sc.Workload.Arrival
	if a.Process == "trace" && o.DatasetName == "timed_trace" {
		fmt.Fprintln(w, "Self timing is set, using the timestamps from the trace file.")
		return
	}
	switch {
	case a.Process == "ramp":
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", a.Strategy)
		fmt.Fprintf(w, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", o.RampStart, o.RampEnd)
	case a.Process == "trace":
		fmt.Fprintf(w, "Traffic: trace replay of %s (speed-up %s)\n", a.Path, PyFloat(max(a.Speedup, 1)))
	default:
		fmt.Fprintf(w, "Traffic request rate: %s\n", PyFloat(o.RequestRate))
	}
	dist := "Poisson process"
	if o.Burstiness != 1 {
		dist = "Gamma distribution"
	}
	fmt.Fprintf(w, "Burstiness factor: %s (%s)\n", PyFloat(o.Burstiness), dist)
	conc := "None"
	if o.MaxConcurrency > 0 {
		conc = strconv.Itoa(o.MaxConcurrency)
	}
	fmt.Fprintf(w, "Maximum request concurrency: %s\n", conc)
}

// WriteSummary writes vLLM's "Serving Benchmark Result" block, then,
// after a blank line, servesim's own block.
func WriteSummary(out io.Writer, o *Options, sc *scenario.Scenario, res *sim.Result) error {
	w := bufio.NewWriter(out)
	s := SummaryWriter{w}
	fmt.Fprintln(w, Banner(" Serving Benchmark Result ", '='))
	s.Int("Successful requests:", int64(res.Completed))
	s.Int("Failed requests:", int64(res.Failed+res.Rejected))
	if o.MaxConcurrency > 0 {
		s.Int("Maximum request concurrency:", int64(o.MaxConcurrency))
	}
	if !math.IsInf(o.RequestRate, 1) {
		s.Float("Request rate configured (RPS):", o.RequestRate)
	}
	s.Float("Benchmark duration (s):", res.Duration)
	s.Int("Total input tokens:", res.TotalInput)
	if !o.SkipTokenizerInit {
		s.Int("Total generated tokens:", res.TotalOutput)
	}
	s.Float("Request throughput (req/s):", res.RequestThroughput)
	if o.GoodputGiven {
		s.Float("Request goodput (req/s):", res.RequestGoodput)
	}
	if !o.SkipTokenizerInit {
		s.Float("Output token throughput (tok/s):", res.OutputThroughput)
		s.Float("Peak output token throughput (tok/s):", res.MaxOutputTokensPerS)
	}
	s.Float("Peak concurrent requests:", float64(peakConcurrent(res)))
	if !o.SkipTokenizerInit {
		s.Float("Total token throughput (tok/s):", res.TotalTokenThroughput)
	}
	shown := shownMetrics(o)
	for _, m := range metricSections {
		if !slices.Contains(shown, m.key) {
			continue
		}
		smp := SampleOf(res, m.key)
		fmt.Fprintln(w, Banner(m.header, '-'))
		s.Float("Mean "+m.name+" (ms):", 1000*smp.Mean())
		s.Float("Median "+m.name+" (ms):", 1000*smp.Median())
		for _, p := range o.Percentiles {
			s.Float("P"+metrics.PercentileKey(p)+" "+m.name+" (ms):", 1000*smp.Percentile(p))
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
	return metrics.PeakConcurrent(res.Requests)
}

// printExtras writes servesim's block: the simulated server, SLO
// attainment, queueing, stability and engine counters.
func printExtras(s SummaryWriter, o *Options, sc *scenario.Scenario, res *sim.Result) {
	w := s.W
	fmt.Fprintln(w)
	fmt.Fprintln(w, Banner(" servesim (not in vLLM's output) ", '='))
	s.Line("Simulated server:", sc.Server.String())
	if p := sc.Pricing(); p != "" {
		s.Line("Priced by:", p)
	}
	if v, ok := res.Stat("kv_cache_tokens"); ok {
		s.Int("KV-cache capacity (tokens):", int64(v))
	}
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS && eng.MaxModelLen > 0 {
		s.Int("Max model length (tokens):", int64(eng.MaxModelLen))
	}
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS {
		limits := fmt.Sprintf("%d seqs, %d tokens/step", eng.MaxNumSeqs, eng.MaxNumBatchedTokens)
		switch {
		case eng.Deployment.DP > 1:
			limits += " per data-parallel group"
		case sc.Server.Replicas*max(sc.Server.DataParallelSize, 1) > 1:
			limits += " per engine"
		}
		s.Line("Scheduler limits:", limits)
	}
	if o.Tokens != "" {
		s.Line("Prompt token counts:", o.Tokens)
	}
	if res.Warmup > 0 {
		s.Int("Warm-up requests (not measured):", int64(res.Warmup))
	}
	if o.SummaryOnly {
		s.Line("Percentiles:", "from quantile sketches, within 0.5% (--summary-only)")
	}
	s.Float("Actual send rate (req/s):", res.SendRate)
	s.Float("Mean queue time (ms):", 1000*res.Latency(metrics.QueueTime).Mean())
	if o.MaxConcurrency > 0 {
		s.Float("Mean client queue time (ms):", 1000*res.Latency(metrics.ClientQueueTime).Mean())
	}
	if o.GoodputGiven {
		s.Float("SLO attainment (%):", 100*res.Attainment)
		verdict := "FAIL"
		if res.Attainment >= o.SLO.Target {
			verdict = "PASS"
		}
		s.Line("SLO target (%):", fmt2(100*o.SLO.Target)+" "+verdict)
		s.Float("Goodput per GPU (tok/s):", res.GoodputPerGPU)
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
	s.Line("Queue stability:", stab)
	stats := []struct {
		name, label string
		scale       float64
		integer     bool
	}{
		{"mean_kv_cache_usage", "Mean KV-cache usage (%):", 100, false},
		{"max_kv_cache_usage", "Max KV-cache usage (%):", 100, false},
		{"mean_kv_cache_cached", "Mean KV-cache cached, free (%):", 100, false},
		{"prefix_cache_hit_rate", "Prefix cache hit rate (%):", 100, false},
		// KV offloading (batching.KVOffload): the CPU tier's hits, both
		// tiers', and the time a request waited for its load.
		{"kv_offload_hit_rate", "CPU offload hit rate (%):", 100, false},
		{"prefix_cache_total_hit_rate", "GPU+CPU prefix hit rate (%):", 100, false},
		{"mean_kv_offload_load_wait", "Mean KV load wait (ms):", 1000, false},
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
			s.Int(st.label, int64(v))
		} else {
			s.Float(st.label, st.scale*v)
		}
	}
	fmt.Fprintln(w, strings.Repeat("=", summaryWidth))
}

// PyFloat formats x as Python's str(float) does for the values vLLM
// prints: "20.0", "2.5", "inf".
func PyFloat(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == math.Trunc(x) && math.Abs(x) < 1e16:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
}

// WriteFailures says on w (stderr) why requests failed, and whether the
// run stopped early: a warning when none
// completed (vLLM warns "All requests failed"; servesim knows the limits
// they broke), otherwise a note, unless quiet. The summary and the JSON
// stay as vLLM writes them.
func WriteFailures(w io.Writer, quiet bool, sc *scenario.Scenario, res *sim.Result) {
	if res.StoppedBy != sim.StopNone {
		fmt.Fprintf(w, "servesim: warning: the run stopped early (%s): the statistics cover the %d measured requests that ended, of %d sent\n",
			res.Stability.Reason, res.Completed+res.Failed+res.Rejected, res.Measured)
	}
	failed := res.Failed + res.Rejected
	if failed == 0 {
		return
	}
	why := FailureReason(sc, true)
	switch {
	case res.Completed == 0:
		fmt.Fprintf(w, "servesim: warning: all %d requests failed: %s\n", failed, why)
	case !quiet:
		fmt.Fprintf(w, "servesim: note: %d of %d requests failed: %s\n", failed, res.Measured, why)
	}
}
