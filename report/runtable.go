package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim/metrics"
)

// A column is one column of the run table: its title in the text table
// ("" for a CSV-only column), its name in CSV, and how to format a row's
// value in each.
type column struct {
	title, name string
	text        func(r *Row) string
	csv         func(r *Row) string
}

// fixed formats with d decimals ("-" for NaN and infinities).
func fixed(d int) func(float64) string {
	return func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', d, 64)
	}
}

func full(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// numCol is a numeric column shown with d decimals in the table.
func numCol(title, name string, d int, get func(r *Row) float64) column {
	f := fixed(d)
	return column{title, name, func(r *Row) string { return f(get(r)) }, func(r *Row) string { return full(get(r)) }}
}

// runColumns returns the table's columns; the SLO ones only when the
// scenario has an SLO.
func runColumns(r *scenario.RunFile) []column {
	param := "point"
	if r.Param != "" {
		param = r.Param[strings.LastIndex(r.Param, ".")+1:]
	}
	label := func(p *Row) string { return p.Label }
	cols := []column{
		{param, param, label, label},
		numCol("", "send_rate", 2, func(p *Row) float64 { return p.SendRate }),
		numCol("req/s", "request_throughput", 2, func(p *Row) float64 { return p.ReqThroughput }),
		numCol("out tok/s", "output_throughput", 1, func(p *Row) float64 { return p.OutThroughput }),
		numCol("TTFT p50", "median_ttft_ms", 1, func(p *Row) float64 { return p.TTFTp50 }),
		numCol("TTFT p99", "p99_ttft_ms", 1, func(p *Row) float64 { return p.TTFTp99 }),
		numCol("TPOT p99", "p99_tpot_ms", 2, func(p *Row) float64 { return p.TPOTp99 }),
		numCol("ITL p50", "median_itl_ms", 2, func(p *Row) float64 { return p.ITLp50 }),
		numCol("ITL p99", "p99_itl_ms", 2, func(p *Row) float64 { return p.ITLp99 }),
		numCol("E2EL p99", "p99_e2el_ms", 1, func(p *Row) float64 { return p.E2ELp99 }),
		numCol("", "mean_kv_cache_usage", 1, func(p *Row) float64 { return 100 * p.KVUsage }),
	}
	if r.SLO != nil {
		pass := func(p *Row) string {
			if p.Pass {
				return "PASS"
			}
			return "FAIL"
		}
		cols = append(cols,
			numCol("attain%", "slo_attainment_min", 2, func(p *Row) float64 { return 100 * p.AttainMin }),
			numCol("", "slo_attainment_max", 2, func(p *Row) float64 { return 100 * p.AttainMax }),
			numCol("good/GPU", "goodput_per_gpu", 1, func(p *Row) float64 { return p.GoodputPerGPU }),
			column{fmt.Sprintf("q=%g", r.SLO.Target), "slo_pass", pass, pass},
		)
	}
	stable := func(p *Row) string {
		if p.Unstable == 0 {
			return "yes"
		}
		return fmt.Sprintf("no %d/%d", p.Unstable, p.N)
	}
	cols = append(cols,
		column{"failed", "failed", func(p *Row) string { return strconv.Itoa(p.Failed) }, func(p *Row) string { return strconv.Itoa(p.Failed) }},
		column{"stable", "stable", stable, func(p *Row) string { return strconv.FormatBool(p.Unstable == 0) }},
		column{"", "replications", func(p *Row) string { return strconv.Itoa(p.N) }, func(p *Row) string { return strconv.Itoa(p.N) }},
	)
	return cols
}

// WriteRunTable writes a run file's title and its table (rows: Rows),
// one line per sweep point, columns right-aligned: the table of servesim
// run and merge.
func WriteRunTable(w io.Writer, r *scenario.RunFile, rows []Row) error {
	name := r.Scenario
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(w, "# %s: %s\n", name, r.Server)
	what := "one point"
	if r.Param != "" {
		what = fmt.Sprintf("sweep of %s over %d values", r.Param, len(r.Values))
	}
	fmt.Fprintf(w, "# %s, %d replication(s) of %d requests (%d warm-up)", what, r.Replications, r.Requests, r.Warmup)
	if r.SLO != nil {
		fmt.Fprintf(w, "; SLO %s, target %g", sloText(r.SLO), r.SLO.Target)
	}
	fmt.Fprintln(w)
	note := "# times in ms, throughputs per second; means over replications"
	if r.SummaryOnly {
		note += "; percentiles from quantile sketches, within 0.5% (summary mode)"
	}
	if r.SLO != nil {
		note += "; attain% is the minimum over replications; PASS: every replication passes capacity's rule (attainment >= target, failures <= 0.1%, send rate within 5% of arrivals, stable)"
	}
	fmt.Fprintln(w, note)
	var cols []column
	for _, c := range runColumns(r) {
		if c.title != "" {
			cols = append(cols, c)
		}
	}
	cells := make([][]string, len(rows)+1)
	widths := make([]int, len(cols))
	for c, col := range cols {
		cells[0] = append(cells[0], col.title)
		widths[c] = len(col.title)
	}
	for i := range rows {
		for c, col := range cols {
			s := col.text(&rows[i])
			cells[i+1] = append(cells[i+1], s)
			widths[c] = max(widths[c], len(s))
		}
	}
	for _, line := range cells {
		var b strings.Builder
		for c, s := range line {
			if c > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.Repeat(" ", widths[c]-len(s)))
			b.WriteString(s)
		}
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// WriteRunCSV writes a run file's rows (Rows) as CSV, one record per
// sweep point, numbers at full precision ("" for NaN and infinities).
func WriteRunCSV(w io.Writer, r *scenario.RunFile, rows []Row) error {
	cw := csv.NewWriter(w)
	cols := runColumns(r)
	head := make([]string, len(cols))
	for c, col := range cols {
		head[c] = col.name
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i := range rows {
		rec := make([]string, len(cols))
		for c, col := range cols {
			rec[c] = col.csv(&rows[i])
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func sloText(s *scenario.RunSLO) string { return metrics.BoundsText(s.TTFTms, s.TPOTms, s.E2ELms) }
