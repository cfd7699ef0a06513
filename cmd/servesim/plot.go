package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot geometry: one panel per chart, side by side.
const (
	panelWidth  = 4.6 * vg.Inch
	panelHeight = 3.6 * vg.Inch
	plotDPI     = 96
)

// plotFormat returns the image format from the file name: png or svg.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("file %q: want a .png or .svg name", path)
	}
}

// concurrencyParams are the sweep fields whose values are a concurrency.
var concurrencyParams = map[string]bool{"clients": true, "max_concurrency": true}

// writePlot draws the charts that fit the sweep and writes them to path:
//   - always the throughput–latency curve, p99 TTFT against output
//     tokens/s, each point labelled with its sweep value;
//   - for a concurrency sweep (workload.closed.clients,
//     workload.max_concurrency), ITL p50 and p99 against concurrency;
//   - with an SLO and a numeric sweep, the minimum attainment over
//     replications against the swept value, with the target q as a dashed
//     line (first, for a rate sweep).
func writePlot(path string, out *runOutput, rows []pointRow) error {
	format, err := plotFormat(path)
	if err != nil {
		return err
	}
	param := out.Param[strings.LastIndex(out.Param, ".")+1:]
	numeric := out.Param != "" && allNumeric(out, rows)
	var panels []*plot.Plot
	tl, err := throughputLatency(rows)
	if err != nil {
		return err
	}
	panels = append(panels, tl)
	if numeric && concurrencyParams[param] {
		p, err := itlByConcurrency(rows, param)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	if numeric && out.SLO != nil {
		p, err := attainment(rows, out.Param, out.SLO.Target)
		if err != nil {
			return err
		}
		if param == "rate" {
			panels = append([]*plot.Plot{p}, panels...)
		} else {
			panels = append(panels, p)
		}
	}

	w, h := vg.Length(len(panels))*panelWidth, panelHeight
	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))}
	default:
		canvas = vgsvg.New(w, h)
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: 8 * vg.Millimeter, PadTop: 2 * vg.Millimeter,
		PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	cells := plot.Align([][]*plot.Plot{panels}, tiles, dc)
	for i, p := range panels {
		p.Draw(cells[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func allNumeric(out *runOutput, rows []pointRow) bool {
	for i := range rows {
		if i >= len(out.Values) || !isNumber(out.Values[i]) {
			return false
		}
	}
	return true
}

func isNumber(raw []byte) bool {
	s := string(raw)
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

// finite keeps the points whose coordinates are finite (and, on a log
// axis, positive).
func finite(xys plotter.XYs, logY bool) plotter.XYs {
	var out plotter.XYs
	for _, p := range xys {
		if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || (logY && p.Y <= 0) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// useLog reports whether values spread over more than a factor of 30, so
// a log axis shows them better.
func useLog(ys []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if y > 0 && !math.IsInf(y, 0) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	return hi/lo > 30
}

func newPanel(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker, p.Y.Tick.Marker = shortTicks{}, shortTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// shortTicks are gonum's default ticks labelled in the shortest form
// ("250", not "250.00").
type shortTicks struct{}

func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', -1, 64)
		}
	}
	return ts
}

// axisLabels name the axis of well-known swept fields.
var axisLabels = map[string]string{
	"rate":            "request rate (req/s)",
	"clients":         "concurrency (closed-loop clients)",
	"max_concurrency": "max concurrency",
	"burstiness":      "burstiness (Gamma shape of arrival gaps)",
}

// axisLabel returns the label of the swept field's axis.
func axisLabel(param string) string {
	if l, ok := axisLabels[param[strings.LastIndex(param, ".")+1:]]; ok {
		return l
	}
	return param
}

var (
	blue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	orange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	red    = color.RGBA{R: 214, G: 39, B: 40, A: 255}
)

// addLine adds a line with point markers in colour c.
func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, legend string) error {
	if len(xys) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.Color, s.Color = c, c
	s.Shape = draw.CircleGlyph{}
	p.Add(l, s)
	if legend != "" {
		p.Legend.Add(legend, l, s)
	}
	return nil
}

// throughputLatency is p99 TTFT against output tokens/s, one point per
// sweep value.
func throughputLatency(rows []pointRow) (*plot.Plot, error) {
	p := newPanel("Throughput vs latency", "output tokens/s", "p99 TTFT (ms)")
	var xys plotter.XYs
	var labels []string
	var ys []float64
	for _, r := range rows {
		xys = append(xys, plotter.XY{X: r.OutThroughput, Y: r.TTFTp99})
		labels = append(labels, r.Label)
		ys = append(ys, r.TTFTp99)
	}
	logY := useLog(ys)
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	kept := plotter.XYLabels{}
	for i, xy := range xys {
		if len(finite(plotter.XYs{xy}, logY)) == 1 {
			kept.XYs = append(kept.XYs, xy)
			kept.Labels = append(kept.Labels, labels[i])
		}
	}
	if err := addLine(p, kept.XYs, blue, ""); err != nil {
		return nil, err
	}
	if len(kept.XYs) > 0 && rows[0].Label != "-" {
		lab, err := plotter.NewLabels(kept)
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = draw.XLeft
			lab.Offset = vg.Point{X: 3, Y: 3}
		}
		p.Add(lab)
	}
	return p, nil
}

// itlByConcurrency is ITL p50 and p99 against the concurrency.
func itlByConcurrency(rows []pointRow, param string) (*plot.Plot, error) {
	p := newPanel("Inter-token latency by concurrency", axisLabel(param), "ITL (ms)")
	var p50, p99 plotter.XYs
	var xs []float64
	for _, r := range rows {
		p50 = append(p50, plotter.XY{X: r.X, Y: r.ITLp50})
		p99 = append(p99, plotter.XY{X: r.X, Y: r.ITLp99})
		xs = append(xs, r.X)
	}
	if useLog(xs) {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if err := addLine(p, finite(p99, false), orange, "p99"); err != nil {
		return nil, err
	}
	if err := addLine(p, finite(p50, false), blue, "p50"); err != nil {
		return nil, err
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Y.Min = 0
	return p, nil
}

// attainment is the minimum SLO attainment over replications against the
// swept value, with the target as a dashed line.
func attainment(rows []pointRow, param string, target float64) (*plot.Plot, error) {
	p := newPanel("SLO attainment (min over replications)", axisLabel(param), "attainment (%)")
	var xys plotter.XYs
	for _, r := range rows {
		xys = append(xys, plotter.XY{X: r.X, Y: 100 * r.AttainMin})
	}
	xys = finite(xys, false)
	if err := addLine(p, xys, blue, "attainment"); err != nil {
		return nil, err
	}
	if len(xys) > 0 {
		lo, hi := xys[0].X, xys[len(xys)-1].X
		q, err := plotter.NewLine(plotter.XYs{{X: math.Min(lo, hi), Y: 100 * target}, {X: math.Max(lo, hi), Y: 100 * target}})
		if err != nil {
			return nil, err
		}
		q.Color = red
		q.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(q)
		p.Legend.Add(fmt.Sprintf("target q = %g%%", 100*target), q)
	}
	p.Legend.Left = true
	p.Y.Max = 100
	return p, nil
}
