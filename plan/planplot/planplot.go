// Package planplot draws a plan.Result's cost–latency frontier in the
// project's one chart style (package report/chart). It lives apart from
// package plan so that plan's callers that draw nothing (the browser
// page's WebAssembly build among them) do not link the chart renderer and
// its fonts.
package planplot

import (
	"fmt"
	"io"
	"strconv"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/report/chart"
)

// Charts returns the cost–latency frontier at the target rate as two
// charts in the project's one chart style (package report/chart): p99 TTFT
// and p99 TPOT against cost an hour, one point per ranked candidate, the
// Pareto frontier of cost, p99 TTFT and p99 TPOT with labels, the winners,
// and the SLO's bound as a reference line. With pruning, only the
// candidates within Search.Frontier of the cheapest are there to draw.
func Charts(r *plan.Result) []*chart.Chart {
	var out []*chart.Chart
	for _, m := range []struct {
		name  string
		get   func(plan.Ranked) float64
		bound float64
	}{
		{"p99 TTFT", func(x plan.Ranked) float64 { return x.TTFT.P99 }, r.Criteria.SLO.TTFT},
		{"p99 TPOT", func(x plan.Ranked) float64 { return x.TPOT.P99 }, r.Criteria.SLO.TPOT},
	} {
		out = append(out, panel(r, m.name, m.get, m.bound))
	}
	return out
}

// Write writes Charts side by side to w as "svg" or "png".
func Write(w io.Writer, r *plan.Result, format string) error {
	switch format {
	case "png":
		return chart.WritePNG(w, 2, Charts(r)...)
	case "svg":
		return chart.WriteSVG(w, 2, Charts(r)...)
	default:
		return fmt.Errorf("%w: plot format %q must be svg or png", plan.ErrInvalid, format)
	}
}

// panel draws one latency (named metric) against cost.
func panel(r *plan.Result, metric string, get func(plan.Ranked) float64, bound float64) *chart.Chart {
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
			front.Labels = append(front.Labels, x.ShortLabel())
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
