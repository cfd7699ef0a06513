package chart

import (
	"fmt"
	"html"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// svgPainter writes SVG elements. Every element carries a class naming
// its role: chart-title, legend (legend-box, legend-entry), plot-area,
// x-axis and y-axis (axis-line, tick, tick-label, axis-label), grid-line,
// band, rule, series (line, point, bar, whisker, point-label, bar-value).
type svgPainter struct {
	b strings.Builder
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func hex(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
}

// paint writes fill or stroke (and its opacity below 1) for c, "none" for nil.
func paint(attr string, c color.Color) string {
	if c == nil {
		return " " + attr + `="none"`
	}
	s := " " + attr + `="` + hex(c) + `"`
	if a := color.NRGBAModel.Convert(c).(color.NRGBA).A; a < 0xff {
		s += " " + attr + `-opacity="` + strconv.FormatFloat(float64(a)/255, 'f', 2, 64) + `"`
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }

func (s *svgPainter) group(class string, attrs ...string) {
	s.b.WriteString(`<g class="` + class + `"`)
	for i := 0; i+1 < len(attrs); i += 2 {
		s.b.WriteString(" " + attrs[i] + `="` + esc(attrs[i+1]) + `"`)
	}
	s.b.WriteString(">\n")
}

func (s *svgPainter) end() { s.b.WriteString("</g>\n") }

func (s *svgPainter) tip(tip, closing string) {
	if tip == "" {
		s.b.WriteString("/>\n")
		return
	}
	s.b.WriteString("><title>" + esc(tip) + "</title></" + closing + ">\n")
}

func (s *svgPainter) rect(class string, x, y, w, h float64, fill, stroke color.Color, tip string) {
	fmt.Fprintf(&s.b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"%s%s`, class, num(x), num(y), num(w), num(h), paint("fill", fill), paint("stroke", stroke))
	s.tip(tip, "rect")
}

func (s *svgPainter) polyline(class string, pts []XY, stroke color.Color, width float64, dash []float64) {
	var d strings.Builder
	for i, p := range pts {
		if i == 0 {
			d.WriteString("M")
		} else {
			d.WriteString(" L")
		}
		d.WriteString(num(p.X) + "," + num(p.Y))
	}
	fmt.Fprintf(&s.b, `<path class="%s" d="%s" fill="none"%s stroke-width="%s" stroke-linejoin="round"`, class, d.String(), paint("stroke", stroke), num(width))
	if len(dash) > 0 {
		var ds []string
		for _, v := range dash {
			ds = append(ds, num(v))
		}
		s.b.WriteString(` stroke-dasharray="` + strings.Join(ds, " ") + `"`)
	}
	s.b.WriteString("/>\n")
}

// shapePath is a marker's outline around (0, 0), radius r.
func shapePath(shape int, r float64) []XY {
	switch shape {
	case square:
		a := r * 0.9
		return []XY{{-a, -a}, {a, -a}, {a, a}, {-a, a}}
	case triangle:
		return []XY{{0, -r * 1.2}, {r * 1.1, r * 0.75}, {-r * 1.1, r * 0.75}}
	case triangleDown:
		return []XY{{0, r * 1.2}, {r * 1.1, -r * 0.75}, {-r * 1.1, -r * 0.75}}
	case diamond:
		a := r * 1.25
		return []XY{{0, -a}, {a, 0}, {0, a}, {-a, 0}}
	}
	return nil // circle
}

func (s *svgPainter) marker(class string, shape int, x, y, r float64, fill color.Color, tip string) {
	outline := shapePath(shape, r)
	if outline == nil {
		fmt.Fprintf(&s.b, `<circle class="%s" cx="%s" cy="%s" r="%s"%s stroke="#ffffff" stroke-width="1"`, class, num(x), num(y), num(r), paint("fill", fill))
		s.tip(tip, "circle")
		return
	}
	var d strings.Builder
	for i, p := range outline {
		if i == 0 {
			d.WriteString("M")
		} else {
			d.WriteString(" L")
		}
		d.WriteString(num(p.X) + "," + num(p.Y))
	}
	d.WriteString(" Z")
	fmt.Fprintf(&s.b, `<path class="%s" transform="translate(%s,%s)" d="%s"%s stroke="#ffffff" stroke-width="1"`, class, num(x), num(y), d.String(), paint("fill", fill))
	s.tip(tip, "path")
}

func (s *svgPainter) text(class string, x, y float64, str string, t textStyle) {
	anchor := [...]string{"start", "middle", "end"}[t.anchor]
	fmt.Fprintf(&s.b, `<text class="%s" x="%s" y="%s" font-size="%s" text-anchor="%s"%s`, class, num(x), num(y), num(t.size), anchor, paint("fill", t.fill))
	if t.bold {
		s.b.WriteString(` font-weight="bold"`)
	}
	if t.rotate {
		s.b.WriteString(` transform="rotate(-90 ` + num(x) + " " + num(y) + `)"`)
	}
	s.b.WriteString(">" + esc(str) + "</text>\n")
}

// svgDoc writes the panels as one SVG. Inline (for an HTML page) leaves
// out the XML namespace and scales to the width of its container.
func svgDoc(w io.Writer, charts []*Chart, cols int, inline bool) error {
	for _, c := range charts {
		if err := c.Validate(); err != nil {
			return err
		}
	}
	cols, rows := grid(len(charts), cols)
	W, H := float64(cols)*Width, float64(rows)*Height
	var s svgPainter
	var titles []string
	for _, c := range charts {
		titles = append(titles, c.Title)
	}
	if inline {
		fmt.Fprintf(&s.b, `<svg class="chart" viewBox="0 0 %s %s" width="100%%" role="img" font-family="%s">`+"\n", num(W), num(H), esc(FontFamily))
	} else {
		fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %s %s" width="%s" height="%s" role="img" font-family="%s">`+"\n", num(W), num(H), num(W), num(H), esc(FontFamily))
	}
	s.b.WriteString("<title>" + esc(strings.Join(titles, "; ")) + "</title>\n")
	rooms := legendRooms(charts, cols)
	for i, c := range charts {
		s.group("panel")
		c.draw(&s, float64(i%cols)*Width, float64(i/cols)*Height, Width, Height, rooms[i/cols])
		s.end()
	}
	s.b.WriteString("</svg>\n")
	_, err := io.WriteString(w, s.b.String())
	return err
}

// grid returns the columns and rows of n panels, cols per row at most
// (0: up to 3).
func grid(n, cols int) (int, int) {
	if cols <= 0 {
		cols = 3
	}
	n = max(n, 1)
	cols = min(cols, n)
	return cols, (n + cols - 1) / cols
}

// legendRooms returns, for each row of panels, the tallest legend in it.
func legendRooms(charts []*Chart, cols int) []float64 {
	rooms := make([]float64, (len(charts)+cols-1)/cols)
	for i, c := range charts {
		rooms[i/cols] = max(rooms[i/cols], c.legendHeight(Width))
	}
	return rooms
}
