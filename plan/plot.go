package plan

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot geometry: two panels side by side.
const (
	panelWidth  = 5 * vg.Inch
	panelHeight = 3.8 * vg.Inch
	plotDPI     = 96
)

var (
	grey = color.RGBA{R: 150, G: 150, B: 150, A: 255}
	blue = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	red  = color.RGBA{R: 214, G: 39, B: 40, A: 255}
)

// WritePlot draws the cost–latency frontier at the target rate and writes
// it to w as "svg" or "png": p99 TTFT (left) and p99 TPOT (right) against
// cost an hour, one point per ranked candidate (grey), the Pareto frontier
// of cost, p99 TTFT and p99 TPOT in blue with labels, the winners in red,
// and the SLO's bound as a dashed line. With pruning, only the candidates
// within Search.Frontier of the cheapest are there to draw.
func (r *Result) WritePlot(w io.Writer, format string) error {
	var canvas vg.CanvasWriterTo
	width, height := 2*panelWidth, panelHeight
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(plotDPI))}
	case "svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("%w: plot format %q must be svg or png", ErrInvalid, format)
	}
	panels := make([]*plot.Plot, 2)
	for i, m := range []struct {
		name  string
		get   func(Ranked) float64
		bound float64
	}{
		{"p99 TTFT", func(x Ranked) float64 { return x.TTFT.P99 }, r.Criteria.SLO.TTFT},
		{"p99 TPOT", func(x Ranked) float64 { return x.TPOT.P99 }, r.Criteria.SLO.TPOT},
	} {
		p, err := r.panel(m.name, m.get, m.bound)
		if err != nil {
			return err
		}
		if i > 0 {
			p.Legend = plot.NewLegend() // one legend, on the left panel
		}
		panels[i] = p
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: 8 * vg.Millimeter, PadTop: 2 * vg.Millimeter,
		PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	cells := plot.Align([][]*plot.Plot{panels}, tiles, dc)
	for i, p := range panels {
		p.Draw(cells[0][i])
	}
	_, err := canvas.WriteTo(w)
	return err
}

// panel draws one latency (named metric) against cost.
func (r *Result) panel(metric string, get func(Ranked) float64, bound float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Cost vs %s at %s req/s", metric, strconv.FormatFloat(r.Rate, 'g', -1, 64))
	p.X.Label.Text = "cost ($/h)"
	p.Y.Label.Text = metric + " (ms)"
	p.Add(plotter.NewGrid())
	var all, front, win plotter.XYs
	var labels plotter.XYLabels
	seen := map[plotter.XY]bool{}
	for i, x := range r.Ranked {
		xy := plotter.XY{X: x.CostPerHour, Y: 1000 * get(x)}
		all = append(all, xy)
		if x.Frontier {
			front = append(front, xy)
			if !seen[xy] {
				seen[xy] = true
				labels.XYs = append(labels.XYs, xy)
				labels.Labels = append(labels.Labels, x.shortLabel())
			}
		}
		if i < r.Winners {
			win = append(win, xy)
		}
	}
	for _, s := range []struct {
		xys    plotter.XYs
		c      color.Color
		radius vg.Length
		legend string
	}{{all, grey, 3, "meets the SLO"}, {front, blue, 4, "Pareto frontier"}, {win, red, 5, "cheapest"}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Radius, sc.Shape = s.c, s.radius, draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(s.legend, sc)
	}
	if len(labels.XYs) > 0 {
		lab, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = draw.XLeft
			lab.TextStyle[i].Font.Size = vg.Points(7)
		}
		lab.Offset = vg.Point{X: 5, Y: 3}
		p.Add(lab)
	}
	if len(all) == 0 {
		return p, nil
	}
	// The cost axis spans the points with 5% to spare on each side.
	lo, hi := all[0].X, all[0].X
	for _, xy := range all {
		lo, hi = min(lo, xy.X), max(hi, xy.X)
	}
	pad := 0.05 * max(hi-lo, hi)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if bound > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: 1000 * bound}, {X: p.X.Max, Y: 1000 * bound}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = red, []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("SLO bound", l)
	}
	top := 1000 * bound
	for _, xy := range all {
		top = max(top, xy.Y)
	}
	if top <= 0 {
		top = 1 // a latency the server does not have (an FCFS station's TPOT)
	}
	p.Y.Min, p.Y.Max = 0, 1.15*top
	p.Legend.Top = true
	return p, nil
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
	return fmt.Sprintf("%s tp%d %s%s x%d", x.Settings.GPU, x.Settings.TP, x.Settings.Precision, chunk, x.Replicas)
}
