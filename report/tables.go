package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/cost"
)

// A table is one HTML table: a header row and rows whose first cell
// names the row. Cells carry the JSON key they show (data-key), so tests
// and readers can match them to the result file.
type table struct {
	ID      string
	Caption string
	Head    []cell
	Rows    [][]cell
}

type cell struct {
	Text  string
	Key   string // the JSON key the value comes from
	Code  string // a key to show beside the text, in code
	Class string // num, pass, fail
}

// fixed2 writes v with 2 decimals, as vLLM's summary ({:.2f}); "–" for
// a missing value.
func fixed2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// integer writes a count.
func integer(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

// A summaryRow is one line of vLLM's summary: its JSON key, its label in
// vLLM's "Serving Benchmark Result" block, and how to write its value.
type summaryRow struct {
	key, name string
	count     bool    // an integer
	scale     float64 // 100 for fractions shown in %
}

// summaryRows are vLLM's summary lines in its order, then servesim's.
// The latency lines are added per metric and percentile.
var summaryHead = []summaryRow{
	{"completed", "Successful requests", true, 1},
	{"failed", "Failed requests", true, 1},
	{"duration", "Benchmark duration (s)", false, 1},
	{"total_input_tokens", "Total input tokens", true, 1},
	{"total_output_tokens", "Total generated tokens", true, 1},
	{"request_throughput", "Request throughput (req/s)", false, 1},
	{"request_goodput", "Request goodput (req/s)", false, 1},
	{"output_throughput", "Output token throughput (tok/s)", false, 1},
	{"max_output_tokens_per_s", "Peak output token throughput (tok/s)", false, 1},
	{"max_concurrent_requests", "Peak concurrent requests", true, 1},
	{"total_token_throughput", "Total Token throughput (tok/s)", false, 1},
}

var summaryTail = []summaryRow{
	{"send_rate", "Actual send rate (req/s)", false, 1},
	{"mean_queue_time_ms", "Mean queue time (ms)", false, 1},
	{"slo_attainment", "SLO attainment (%)", false, 100},
	{"goodput_per_gpu", "Goodput per GPU (tok/s)", false, 1},
	{"mean_kv_cache_usage", "Mean KV-cache usage (%)", false, 100},
	{"max_kv_cache_usage", "Max KV-cache usage (%)", false, 100},
	{"preemptions", "Preemptions", true, 1},
	{"mean_running", "Mean running requests", false, 1},
	{"mbu", "MBU (%)", false, 100},
	{"mfu", "MFU (%)", false, 100},
}

func (s summaryRow) format(v float64) string {
	if s.count {
		return integer(v)
	}
	return fixed2(s.scale * v)
}

// summaryTable is vLLM's summary, one column per benchmark: the rows any
// of them has. Beside a measured run, each simulated run has a second
// column: its error against the first measured run, (simulated −
// measured) / measured.
func summaryTable(runs []styled) table {
	t := table{ID: "summary", Caption: "Serving benchmark result: vLLM's summary lines (JSON key beside each), then servesim's. Times in ms, throughputs per second."}
	ref := slices.IndexFunc(runs, func(r styled) bool { return r.Source == Measured })
	compared := func(r styled) bool { return ref >= 0 && r.Source == Simulated }
	t.Head = []cell{{Text: "metric"}}
	for _, r := range runs {
		t.Head = append(t.Head, cell{Text: r.Label, Class: "num"})
		if compared(r) {
			t.Head = append(t.Head, cell{Text: "error vs " + runs[ref].Label, Class: "num"})
		}
	}
	if ref >= 0 {
		t.Caption += " An error column is a simulated run's (simulated − measured) / measured against " + runs[ref].Label + "."
	}
	rows := append([]summaryRow(nil), summaryHead...)
	for _, m := range latencyMetrics {
		for _, s := range statKeys(runs, m.key) {
			name := strings.ToUpper(s.name[:1]) + s.name[1:] // Mean, Median, P99: vLLM's
			rows = append(rows, summaryRow{key: s.key, name: name + " " + m.name + " (ms)", scale: 1})
		}
	}
	rows = append(rows, summaryTail...)
	for _, sr := range rows {
		line := []cell{{Text: sr.name, Code: sr.key}}
		any := false
		for _, r := range runs {
			_, ok := r.Points[0].Metric(sr.key)
			any = any || ok
			line = append(line, cell{Text: sr.format(r.Points[0].value(sr.key)), Key: sr.key, Class: "num"})
			if compared(r) {
				line = append(line, cell{Text: relativeError(r.Points[0].value(sr.key), runs[ref].Points[0].value(sr.key)), Class: "num error"})
			}
		}
		if any {
			t.Rows = append(t.Rows, line)
		}
	}
	return t
}

// relativeError writes (sim − measured) / measured as a signed
// percentage with one decimal ("+12.3%"), "–" when either is missing or
// measured is 0.
func relativeError(sim, measured float64) string {
	e := sim/measured - 1
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*e)
}

// sweepColumns are the columns of a sweep table: JSON key, header, and
// how the value is written.
var sweepColumns = []summaryRow{
	{"send_rate", "send rate (req/s)", false, 1},
	{"request_throughput", "req/s", false, 1},
	{"output_throughput", "out tok/s", false, 1},
	{"median_ttft_ms", "TTFT p50", false, 1},
	{"p99_ttft_ms", "TTFT p99", false, 1},
	{"p99_tpot_ms", "TPOT p99", false, 1},
	{"median_itl_ms", "ITL p50", false, 1},
	{"p99_itl_ms", "ITL p99", false, 1},
	{"p99_e2el_ms", "E2EL p99", false, 1},
	{"mean_kv_cache_usage", "KV %", false, 100},
	{"goodput_per_gpu", "good tok/s/GPU", false, 1},
}

// sweepTable is one row per sweep point: means over replications, the
// minimum attainment and the verdict.
func sweepTable(r styled) table {
	t := table{ID: "sweep-" + strconv.Itoa(r.style), Caption: fmt.Sprintf("%s: one row per point, means over replications; times in ms.", r.Label)}
	param := "point"
	if r.Param != "" {
		param = paramName(r.Param)
	}
	t.Head = []cell{{Text: param}}
	var cols []summaryRow
	for _, c := range sweepColumns {
		for i := range r.Points {
			if _, ok := r.Points[i].Metric(c.key); ok {
				cols = append(cols, c)
				break
			}
		}
	}
	for _, c := range cols {
		t.Head = append(t.Head, cell{Text: c.name, Key: c.key, Class: "num"})
	}
	if r.SLO != nil {
		t.Head = append(t.Head, cell{Text: "attain % (min)", Key: "slo_attainment", Class: "num"}, cell{Text: "q = " + short(r.SLO.Target)})
	}
	t.Head = append(t.Head, cell{Text: "failed (mean)", Key: "failed", Class: "num"}, cell{Text: "stable"}, cell{Text: "runs", Class: "num"})
	for i := range r.Points {
		p := &r.Points[i]
		v := p.Value
		if v == "" {
			v = strconv.Itoa(i + 1)
		}
		line := []cell{{Text: v}}
		for _, c := range cols {
			line = append(line, cell{Text: c.format(p.value(c.key)), Key: c.key, Class: "num"})
		}
		if r.SLO != nil {
			line = append(line, cell{Text: fixed2(100 * p.MinAttainment()), Key: "slo_attainment", Class: "num"}, verdictCell(p.Pass))
		}
		stable := "yes"
		if p.Unstable > 0 {
			stable = fmt.Sprintf("no (%d of %d)", p.Unstable, p.Runs)
		}
		line = append(line, cell{Text: fixed2(p.value("failed")), Key: "failed", Class: "num"}, cell{Text: stable}, cell{Text: strconv.Itoa(p.Runs), Class: "num"})
		t.Rows = append(t.Rows, line)
	}
	return t
}

func verdictCell(pass bool) cell {
	if pass {
		return cell{Text: "PASS", Class: "pass"}
	}
	return cell{Text: "FAIL", Class: "fail"}
}

// capacityTable lists every probe: its runs' attainments, the minimum,
// the verdict and why runs failed.
func capacityTable(r styled) table {
	t := table{ID: "capacity-" + strconv.Itoa(r.style), Caption: r.Label + ": every probed rate, in increasing order; attainment in %."}
	t.Head = []cell{{Text: "rate (req/s)"}, {Text: "runs", Class: "num"}, {Text: "min attainment", Key: "min_attainment", Class: "num"},
		{Text: "each run"}, {Text: "send rate (req/s)", Key: "send_rate", Class: "num"}, {Text: "verdict"}, {Text: "why runs failed"}}
	for i := range r.Points {
		p := &r.Points[i]
		var each, why []string
		for _, a := range p.Attainment {
			each = append(each, fixed2(100*a))
		}
		for _, v := range p.Verdicts {
			for _, reason := range v.Reasons {
				if !slices.Contains(why, reason) {
					why = append(why, reason)
				}
			}
		}
		t.Rows = append(t.Rows, []cell{{Text: fixed2(p.X)}, {Text: strconv.Itoa(p.Runs), Class: "num"},
			{Text: fixed2(100 * p.value("min_attainment")), Key: "min_attainment", Class: "num"},
			{Text: strings.Join(each, " ")}, {Text: fixed2(p.value("send_rate")), Key: "send_rate", Class: "num"},
			verdictCell(p.Pass), {Text: strings.Join(why, "; ")}})
	}
	return t
}

// screenTable is the TP screen: shape and memory per rank, λ* and λ* per
// GPU, and the common-rate columns.
func screenTable(r styled) table {
	t := table{ID: "tp-" + strconv.Itoa(r.style), Caption: r.Label + ": each candidate PxK is K replicas of TP = P; memory per rank in GiB."}
	t.Head = []cell{{Text: "candidate"}, {Text: "GPUs", Class: "num"}, {Text: "heads / KV heads per rank"},
		{Text: "weights GiB", Class: "num"}, {Text: "KV GiB", Class: "num"}, {Text: "KV tokens", Class: "num"},
		{Text: "λ* (req/s)"}, {Text: "λ* per GPU (req/s)"}}
	if r.CommonRate > 0 {
		t.Head = append(t.Head, cell{Text: "attainment at " + short(r.CommonRate) + " req/s (%)", Class: "num"}, cell{Text: "goodput per GPU (tok/s)", Class: "num"})
	}
	for _, row := range r.Screen.Rows {
		line := []cell{{Text: row.Candidate.Spec()}, {Text: strconv.Itoa(row.GPUs), Class: "num"}}
		switch {
		case row.ShapeErr != "":
			line = append(line, cell{Text: "impossible: " + row.ShapeErr, Class: "fail"})
		case !row.Fits:
			line = append(line, cell{Text: "does not fit: " + row.FitErr, Class: "fail"})
		default:
			m := row.Memory
			line = append(line,
				cell{Text: fmt.Sprintf("%d / %d", row.Shape.HeadsPerRank, row.Shape.KVHeadsPerRank)},
				cell{Text: fixed2(m.WeightBytes / cost.GiB), Class: "num"}, cell{Text: fixed2(m.KVPoolBytes / cost.GiB), Class: "num"},
				cell{Text: strconv.Itoa(m.KVTokens), Class: "num"})
			if row.Search != nil {
				line = append(line, cell{Text: bracketText(row.Search.Lower, row.Search.Upper)}, cell{Text: bracketText(row.LowerPerGPU, row.UpperPerGPU)})
				if r.CommonRate > 0 {
					line = append(line, cell{Text: fixed2(100 * row.CommonAttainment), Class: "num"}, cell{Text: fixed2(row.CommonGoodputPerGPU), Class: "num"})
				}
			}
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

// setupTable shows the runs' setups side by side: the union of keys, in
// first-seen order.
func setupTable(id string, runs []styled) table {
	t := table{ID: id, Caption: "How each run was set up, as its file records it."}
	t.Head = []cell{{Text: "setting"}}
	var keys []string
	seen := map[string]bool{}
	for _, r := range runs {
		t.Head = append(t.Head, cell{Text: r.Label})
		for _, f := range r.Setup {
			if !seen[f.Key] {
				seen[f.Key] = true
				keys = append(keys, f.Key)
			}
		}
	}
	for _, k := range keys {
		line := []cell{{Code: k}}
		for _, r := range runs {
			v := r.Get(k)
			if v == "" {
				v = "–"
			}
			line = append(line, cell{Text: v, Key: k})
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}
