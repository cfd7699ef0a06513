package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/fielderr"
)

var update = flag.Bool("update", false, "rewrite the golden SVG files in testdata")

// elem is a parsed SVG element.
type elem struct {
	name     string
	attrs    map[string]string
	text     string
	children []*elem
}

func (e *elem) class() string { return e.attrs["class"] }

// all returns the elements below e (e included) whose class is class.
func (e *elem) all(class string) []*elem {
	var out []*elem
	var walk func(*elem)
	walk = func(x *elem) {
		if x.class() == class {
			out = append(out, x)
		}
		for _, c := range x.children {
			walk(c)
		}
	}
	walk(e)
	return out
}

func (e *elem) num(t *testing.T, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[attr], 64)
	if err != nil {
		t.Fatalf("<%s class=%q> %s=%q: %v", e.name, e.class(), attr, e.attrs[attr], err)
	}
	return v
}

func parseSVG(t *testing.T, data []byte) *elem {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := &elem{}
	stack := []*elem{root}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := &elem{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.children = append(top.children, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(tk)
		}
	}
	if len(root.children) != 1 || root.children[0].name != "svg" {
		t.Fatalf("not one <svg> document")
	}
	return root.children[0]
}

func svgOf(t *testing.T, cs ...*Chart) *elem {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSVG(&b, 1, cs...); err != nil {
		t.Fatal(err)
	}
	return parseSVG(t, b.Bytes())
}

type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

func rectBox(t *testing.T, e *elem) box {
	x, y := e.num(t, "x"), e.num(t, "y")
	return box{x, y, x + e.num(t, "width"), y + e.num(t, "height")}
}

var translateRE = regexp.MustCompile(`translate\(([-0-9.]+),([-0-9.]+)\)`)

// markBoxes returns the boxes of the data marks: points (with their
// radius) and bars.
func markBoxes(t *testing.T, svg *elem) []box {
	var out []box
	for _, p := range svg.all("point") {
		var x, y float64
		if p.name == "circle" {
			x, y = p.num(t, "cx"), p.num(t, "cy")
		} else {
			m := translateRE.FindStringSubmatch(p.attrs["transform"])
			if m == nil {
				t.Fatalf("point without a position: %v", p.attrs)
			}
			x, _ = strconv.ParseFloat(m[1], 64)
			y, _ = strconv.ParseFloat(m[2], 64)
		}
		r := 1.25 * markerRadius
		out = append(out, box{x - r, y - r, x + r, y + r})
	}
	for _, b := range svg.all("bar") {
		out = append(out, rectBox(t, b))
	}
	return out
}

func tickLabels(svg *elem, axis string) []string {
	var out []string
	for _, g := range svg.all(axis) {
		for _, l := range g.all("tick-label") {
			out = append(out, strings.TrimSpace(l.text))
		}
	}
	return out
}

// TestSinglePointSVG: a chart of one point has at least three distinct
// tick labels on each axis, a unit in each axis title, and its point.
func TestSinglePointSVG(t *testing.T) {
	t.Parallel()
	svg := svgOf(t, &Chart{
		Title: "Throughput vs latency",
		X:     Axis{Label: "output throughput", Unit: "tok/s"},
		Y:     Axis{Label: "p99 TTFT", Unit: "ms"},
		Lines: []Line{{Points: []XY{{19.3, 180}}, Labels: []string{"-"}}},
	})
	for _, axis := range []string{"x-axis", "y-axis"} {
		labels := tickLabels(svg, axis)
		seen := map[string]bool{}
		for _, l := range labels {
			if l == "" || seen[l] {
				t.Errorf("%s: empty or repeated tick label in %q", axis, labels)
			}
			seen[l] = true
		}
		if len(labels) < MinTicks {
			t.Errorf("%s: tick labels %q, want at least %d", axis, labels, MinTicks)
		}
		titles := svg.all(axis)[0].all("axis-label")
		if len(titles) != 1 || !regexp.MustCompile(`\(.+\)$`).MatchString(titles[0].text) {
			t.Errorf("%s: title %v, want one with a unit in parentheses", axis, titles)
		}
	}
	if n := len(svg.all("point")); n != 1 {
		t.Errorf("%d points drawn, want 1", n)
	}
	if got := svg.children[0]; got.name != "title" || got.text != "Throughput vs latency" {
		t.Errorf("first element <%s>%s, want the <title>", got.name, got.text)
	}
}

// burstyCharts are charts whose data reach every corner of the plot,
// where a legend inside would cover them (the bursty scenario's plot
// drew its legend over the point at burstiness 0.25).
func burstyCharts() []*Chart {
	attain := []XY{{0.25, 97.89}, {0.5, 99.94}, {1, 100}, {2, 100}, {4, 100}}
	many := &Chart{Title: "Many series", X: Axis{Label: "request rate", Unit: "req/s"}, Y: Axis{Label: "TTFT", Unit: "ms"}}
	for i := 0; i < 9; i++ {
		var pts []XY
		for x := 1.0; x <= 5; x++ {
			pts = append(pts, XY{x, float64(i) * x})
		}
		many.Lines = append(many.Lines, Line{Name: "a run with a long name " + strconv.Itoa(i), Style: i, Points: pts, Markers: true})
	}
	return []*Chart{
		{
			Title: "SLO attainment vs burstiness",
			X:     Axis{Label: "burstiness", Unit: "Gamma shape"},
			Y:     Axis{Label: "SLO attainment", Unit: "%", Cap: 100},
			Lines: []Line{{Name: "min attainment", Points: attain, Markers: true}},
			Rules: []Rule{{Name: "target q = 99%", Y: 99}},
			Bands: []Band{{Name: "λ* bracket", Lo: 0.5, Hi: 1}},
		},
		{
			Title: "Throughput vs latency",
			X:     Axis{Label: "output throughput", Unit: "tok/s"},
			Y:     Axis{Label: "p99 TTFT", Unit: "ms"},
			Lines: []Line{{Name: "bursty", Points: []XY{{2537, 510}, {2557, 294}, {2564, 164}, {2543, 106}, {2547, 70}}, Labels: []string{"0.25", "0.5", "1", "2", "4"}, Markers: true}},
		},
		{
			Title: "One point",
			X:     Axis{Label: "output throughput", Unit: "tok/s"},
			Y:     Axis{Label: "p99 TTFT", Unit: "ms"},
			Lines: []Line{{Name: "closed loop", Points: []XY{{19.3, 180}}}},
		},
		many,
		{
			Title: "TTFT percentiles",
			X:     Axis{Label: "statistic", Unit: "over requests"},
			Y:     Axis{Label: "TTFT", Unit: "ms", Zero: true},
			Bars: &Bars{Categories: []string{"mean", "median", "p99"}, Values: true, Groups: []BarGroup{
				{Name: "simulated", Values: []float64{35, 30, 90}}, {Name: "measured", Style: 1, Values: []float64{30, 28, 53}},
			}},
		},
	}
}

// TestLegendOutsideData: the legend box lies above the plot area, so it
// covers no data mark, and every mark lies inside the plot area.
func TestLegendOutsideData(t *testing.T) {
	t.Parallel()
	for _, c := range burstyCharts() {
		t.Run(c.Title, func(t *testing.T) {
			svg := svgOf(t, c)
			boxes := svg.all("legend-box")
			if len(boxes) != 1 {
				t.Fatalf("%d legend boxes, want 1", len(boxes))
			}
			legend := rectBox(t, boxes[0])
			plot := rectBox(t, svg.all("plot-area")[0])
			if legend.overlaps(plot) {
				t.Errorf("legend %+v overlaps the plot area %+v", legend, plot)
			}
			marks := markBoxes(t, svg)
			if len(marks) == 0 {
				t.Fatal("no data marks")
			}
			for _, m := range marks {
				if legend.overlaps(m) {
					t.Errorf("legend %+v covers the mark %+v", legend, m)
				}
				cx, cy := (m.x0+m.x1)/2, (m.y0+m.y1)/2
				if cx < plot.x0-0.1 || cx > plot.x1+0.1 || cy < plot.y0-0.1 || cy > plot.y1+0.1 {
					t.Errorf("mark centre (%g, %g) outside the plot area %+v", cx, cy, plot)
				}
			}
		})
	}
}

// TestGoldenSVG compares the bursty charts with their golden SVG (go test
// -update rewrites it): any change to the style shows in review.
func TestGoldenSVG(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteSVG(&b, 2, burstyCharts()...); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "bursty.svg")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("SVG differs from %s; if the change is meant, run go test ./report/chart -update and review the diff", path)
	}
}

// TestPNG: the PNG is at 192 dpi (2 pixels per CSS pixel) and not blank:
// it has ink, and the palette's first colour.
func TestPNG(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WritePNG(&b, 0, burstyCharts()[:2]...); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	if bd.Dx() != int(2*2*Width) || bd.Dy() != int(2*Height) {
		t.Errorf("PNG is %dx%d, want %dx%d", bd.Dx(), bd.Dy(), int(4*Width), int(2*Height))
	}
	var ink, blue int
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 0xf0 || g>>8 < 0xf0 || b>>8 < 0xf0 {
				ink++
			}
			if math.Abs(float64(r>>8)-0x00) < 8 && math.Abs(float64(g>>8)-0x72) < 8 && math.Abs(float64(b>>8)-0xB2) < 8 {
				blue++
			}
		}
	}
	total := bd.Dx() * bd.Dy() / 4
	if ink < total/50 {
		t.Errorf("only %d of %d sampled pixels have ink", ink, total)
	}
	if blue < 50 {
		t.Errorf("only %d pixels of the palette's blue", blue)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		c     Chart
		field string
		value any
		msg   string
	}{
		{"labels", Chart{Title: "T", Lines: []Line{{Points: []XY{{1, 2}}, Labels: []string{"a", "b"}}}},
			"lines[0].labels", 2, `lines[0].labels: 2 labels for 1 points: give one label per point (chart "T")`},
		{"bars", Chart{Bars: &Bars{Categories: []string{"a"}, Groups: []BarGroup{{Values: []float64{1, 2}}}}},
			"bars.groups[0].values", 2, `bars.groups[0].values: 2 values for 1 categories: give one per category (chart "")`},
		{"bar whiskers", Chart{Bars: &Bars{Categories: []string{"a"}, Groups: []BarGroup{{Values: []float64{1}}, {Values: []float64{1}, Hi: []float64{}}}}},
			"bars.groups[1].hi", 0, `bars.groups[1].hi: 0 values for 1 categories: give one per category (chart "")`},
		{"bars and lines", Chart{Bars: &Bars{}, Lines: []Line{{}}},
			"bars", nil, `bars: and lines in one chart: a chart draws one or the other (chart "")`},
		{"band", Chart{Title: "SLO", Bands: []Band{{Lo: 0, Hi: 1}, {Lo: 2, Hi: 1}}},
			"bands[1].lo", 2.0, `bands[1].lo: 2 is above hi 1: the band is reversed (chart "SLO")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			fe := fielderr.Of(err)
			if fe == nil {
				t.Fatalf("Validate() = %v, want a *fielderr.Error", err)
			}
			if fe.Field != tt.field || fe.Value != tt.value {
				t.Errorf("field %q value %#v, want %q %#v (%v)", fe.Field, fe.Value, tt.field, tt.value, err)
			}
			if err.Error() != tt.msg || !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate() = %q (ErrInvalid %t), want %q", err, errors.Is(err, ErrInvalid), tt.msg)
			}
			if err := WriteSVG(&bytes.Buffer{}, 1, &tt.c); !errors.Is(err, ErrInvalid) {
				t.Errorf("WriteSVG: %v, want the Validate error", err)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"a.png": "png", "b.SVG": "svg", "c.jpg": "", "d": ""} {
		got, err := Format(name)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Format(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

// TestMarks: a Mark is drawn as one vertical line at its x (the x of a
// data point at the same value), widens the axis to include itself,
// names itself in the legend, and is not drawn on a bar chart.
func TestMarks(t *testing.T) {
	t.Parallel()
	c := &Chart{
		Title: "TTFT distribution (CDF)", X: Axis{Label: "TTFT", Unit: "ms"}, Y: Axis{Label: "requests at or below", Unit: "%"},
		Lines: []Line{{Name: "run", Markers: true, Points: []XY{{10, 10}, {50, 50}, {100, 100}}}},
		Marks: []Mark{{Name: "TTFT SLO 50 ms", X: 50}, {Name: "far", X: 400}},
	}
	svg := svgOf(t, c)
	marks := svg.all("mark")
	if len(marks) != 2 {
		t.Fatalf("%d marks drawn, want 2", len(marks))
	}
	var xs []float64
	for _, m := range marks {
		var ax, ay, bx, by float64
		if _, err := fmt.Sscanf(m.attrs["d"], "M%g,%g L%g,%g", &ax, &ay, &bx, &by); err != nil {
			t.Fatalf("mark path %q: %v", m.attrs["d"], err)
		}
		if ax != bx || ay == by {
			t.Errorf("mark path %q is not vertical", m.attrs["d"])
		}
		xs = append(xs, ax)
	}
	points := svg.all("point")
	if len(points) != 3 {
		t.Fatalf("%d points, want 3", len(points))
	}
	if got, want := xs[0], points[1].num(t, "cx"); math.Abs(got-want) > 0.01 {
		t.Errorf("mark at x = 50 drawn at %v px, the point at x = 50 at %v px", got, want)
	}
	if plot := rectBox(t, svg.all("plot-area")[0]); xs[1] > plot.x1+0.01 || xs[1] <= xs[0] {
		t.Errorf("mark at x = 400 drawn at %v px, outside the plot %+v or left of the one at 50", xs[1], plot)
	}
	var names []string
	for _, l := range svg.all("legend-label") {
		names = append(names, strings.TrimSpace(l.text))
	}
	if !slices.Contains(names, "TTFT SLO 50 ms") {
		t.Errorf("legend %q lacks the mark", names)
	}
	bars := &Chart{Title: "bars", X: Axis{Label: "statistic", Unit: "over requests"}, Y: Axis{Label: "TTFT", Unit: "ms"},
		Bars:  &Bars{Categories: []string{"mean"}, Groups: []BarGroup{{Name: "run", Values: []float64{3}}}},
		Marks: []Mark{{Name: "ignored", X: 1}}}
	if n := len(svgOf(t, bars).all("mark")); n != 0 {
		t.Errorf("a bar chart drew %d marks", n)
	}
}
