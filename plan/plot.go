package plan

import (
	"fmt"
	"io"
	"strconv"

	"github.com/servesim/servesim/report/chart"
)

// Charts returns the cost–latency frontier at the target rate as two
// charts in the project's one chart style (package report/chart): p99 TTFT
// and p99 TPOT against cost an hour, one point per ranked candidate, the
// Pareto frontier of cost, p99 TTFT and p99 TPOT with labels, the winners,
// and the SLO's bound as a reference line. With pruning, only the
// candidates within Search.Frontier of the cheapest are there to draw.
func (r *Result) Charts() []*chart.Chart {
	var out []*chart.Chart
	for _, m := range []struct {
		name  string
		get   func(Ranked) float64
		bound float64
	}{
		{"p99 TTFT", func(x Ranked) float64 { return x.TTFT.P99 }, r.Criteria.SLO.TTFT},
		{"p99 TPOT", func(x Ranked) float64 { return x.TPOT.P99 }, r.Criteria.SLO.TPOT},
	} {
		out = append(out, r.panel(m.name, m.get, m.bound))
	}
	return out
}

// WritePlot writes Charts side by side to w as "svg" or "png".
func (r *Result) WritePlot(w io.Writer, format string) error {
	switch format {
	case "png":
		return chart.WritePNG(w, 2, r.Charts()...)
	case "svg":
		return chart.WriteSVG(w, 2, r.Charts()...)
	default:
		return fmt.Errorf("%w: plot format %q must be svg or png", ErrInvalid, format)
	}
}

// panel draws one latency (named metric) against cost.
func (r *Result) panel(metric string, get func(Ranked) float64, bound float64) *chart.Chart {
	c := &chart.Chart{
		Title: fmt.Sprintf("Cost vs %s at %s req/s", metric, strconv.FormatFloat(r.Rate, 'g', -1, 64)),
		X:     chart.Axis{Label: "cost", Unit: "$/h"},
		Y:     chart.Axis{Label: metric, Unit: "ms", Zero: true},
	}
	all := chart.Line{Name: "meets the SLO", Style: 0, Markers: true, NoLine: true}
	front := chart.Line{Name: "Pareto frontier", Style: 1, Markers: true, NoLine: true}
	win := chart.Line{Name: "cheapest", Style: 2, Markers: true, NoLine: true}
	seen := map[chart.XY]bool{}
	for i, x := range r.Ranked {
		xy := chart.XY{X: x.CostPerHour, Y: 1000 * get(x)}
		all.Points = append(all.Points, xy)
		if x.Frontier && !seen[xy] {
			seen[xy] = true
			front.Points = append(front.Points, xy)
			front.Labels = append(front.Labels, x.shortLabel())
		}
		if i < r.Winners {
			win.Points = append(win.Points, xy)
		}
	}
	for _, l := range []chart.Line{all, front, win} {
		if len(l.Points) > 0 {
			c.Lines = append(c.Lines, l)
		}
	}
	if bound > 0 {
		c.Rules = append(c.Rules, chart.Rule{Name: "SLO bound", Y: 1000 * bound})
	}
	return c
}

// shortLabel names a ranked candidate in a plot: "h100-sxm tp4 fp8 x2"
// ("no-chunk" when chunked prefill is off).
func (x Ranked) shortLabel() string {
	if x.Settings.TP == 0 {
		return fmt.Sprintf("%s x%d", x.label(), x.Replicas)
	}
	chunk := ""
	if !x.Settings.ChunkedPrefill {
		chunk = " no-chunk"
	}
	return fmt.Sprintf("%s %s %s%s x%d", x.Settings.GPU, x.Settings.parallel(), x.Settings.Precision, chunk, x.Replicas)
}
