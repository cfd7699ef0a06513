package fleet

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/servesim/servesim/report/chart"
)

// WriteHours writes the report's buckets as a table: rate, mean
// replicas, p99 TTFT and TPOT (ms), attainment, goodput, dollars, kWh
// and J per output token; then the day's totals.
func (r *Report) WriteHours(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hour\treq/s\treplicas\tp99 TTFT ms\tp99 TPOT ms\tattain %\tgoodput\t$\tkWh\tJ/tok\t")
	for i, h := range r.Hours {
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.3f\t\n", i, h.Rate, h.Replicas,
			ms(h.P99TTFT), ms(h.P99TPOT), 100*h.Attainment(), h.Goodput, h.Dollars, h.KWh(), h.JoulesPerToken())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, r.Total.Summary(r.Worst, r.Hours)); err != nil {
		return err
	}
	if off := r.Total.OffloadSummary(); off != "" {
		_, err := fmt.Fprintln(w, off)
		return err
	}
	return nil
}

// OffloadSummary is the day's KV offloading in one line, from the
// engines' counters (batching's kv_offload_* and prefix_cache_*): the
// share of prompt tokens the GPU prefix cache and the CPU tier served,
// the bytes stored and loaded (per rank, over every replica), the loads
// and their mean and longest wait, and the stores skipped for want of
// host room (with LMCache, cut short), and with LMCache the seconds steps
// waited for its synchronous transfers; "" for a day without offloading.
func (b Bill) OffloadSummary() string {
	v := func(name string) float64 { x, _ := b.Stat(name); return x }
	if _, ok := b.Stat("kv_offload_hit_rate"); !ok {
		return ""
	}
	s := fmt.Sprintf("KV offload: prefix hits %.1f%% GPU + %.1f%% CPU = %.1f%% of prompt tokens; %.1f GB stored (%.0f skips), %.1f GB loaded in %.0f loads, mean wait %.1f ms (max %.1f ms)",
		100*v("prefix_cache_hit_rate"), 100*v("kv_offload_hit_rate"), 100*v("prefix_cache_total_hit_rate"),
		v("kv_offload_stored_bytes")/1e9, v("kv_offload_store_skips"), v("kv_offload_loaded_bytes")/1e9, v("kv_offload_loads"),
		1000*v("mean_kv_offload_load_wait"), 1000*v("max_kv_offload_load_wait"))
	if sync, ok := b.Stat("kv_offload_sync_time"); ok {
		s += fmt.Sprintf("; steps waited %.1f s for synchronous transfers", sync)
	}
	return s
}

func ms(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	return fmt.Sprintf("%.0f", 1000*s)
}

// Summary is the day's bill in one line: dollars, GPU-hours (start-up
// part), kWh, J per output token, attainment, and the worst bucket.
func (b Bill) Summary(worst int, hours []Hour) string {
	s := fmt.Sprintf("$%.2f, %.1f GPU-h (%.2f starting), %.1f kWh, %.3f J/token, attainment %.2f%%",
		b.Dollars, b.GPUHours, b.StartupGPUHours, b.KWh(), b.JoulesPerToken(), 100*b.Attainment())
	if worst < len(hours) {
		s += fmt.Sprintf(", worst hour %d at %.2f%%", worst, 100*hours[worst].Attainment())
	}
	return s
}

// Charts returns the day in four panels: the arrival rate, the replicas
// billed, p99 TTFT and TPOT against the SLO, and the cumulative cost; one
// point per bucket, at its start in hours (the cost at its end).
func (r *Report) Charts(title string) []*chart.Chart {
	x := chart.Axis{Label: "time", Unit: "h", Zero: true}
	line := func(name string, style int, dashed bool, f func(Hour) float64) chart.Line {
		l := chart.Line{Name: name, Style: style, Dashed: dashed}
		for _, h := range r.Hours {
			if v := f(h); !math.IsNaN(v) {
				l.Points = append(l.Points, chart.XY{X: h.Start / 3600, Y: v})
			}
		}
		return l
	}
	rate := &chart.Chart{Title: title + ": offered rate", X: x, Y: chart.Axis{Label: "rate", Unit: "req/s", Zero: true},
		Lines: []chart.Line{line("arrivals", 0, false, func(h Hour) float64 { return h.Rate }),
			line("goodput", 1, true, func(h Hour) float64 { return h.Goodput })}}
	reps := &chart.Chart{Title: title + ": replicas billed (mean over the hour)", X: x, Y: chart.Axis{Label: "replicas", Unit: "count", Zero: true},
		Lines: []chart.Line{line("replicas", 2, false, func(h Hour) float64 { return h.Replicas })}}
	lat := &chart.Chart{Title: title + ": p99 latency against the SLO", X: x, Y: chart.Axis{Label: "p99", Unit: "ms", Zero: true},
		Lines: []chart.Line{line("TTFT", 3, false, func(h Hour) float64 { return 1000 * h.P99TTFT }),
			line("TPOT", 4, false, func(h Hour) float64 { return 1000 * h.P99TPOT })}}
	if r.SLO.TTFT > 0 {
		lat.Rules = append(lat.Rules, chart.Rule{Name: "TTFT SLO", Y: 1000 * r.SLO.TTFT})
	}
	if r.SLO.TPOT > 0 {
		lat.Rules = append(lat.Rules, chart.Rule{Name: "TPOT SLO", Y: 1000 * r.SLO.TPOT})
	}
	cost := &chart.Chart{Title: title + ": cumulative cost", X: x, Y: chart.Axis{Label: "cost", Unit: "$", Zero: true},
		Lines: []chart.Line{line("dollars", 5, false, func(h Hour) float64 { return h.CumDollars })}}
	for i := range cost.Lines[0].Points { // the bill up to each bucket's end
		cost.Lines[0].Points[i].X += r.Bucket / 3600
	}
	return []*chart.Chart{rate, reps, lat, cost}
}
