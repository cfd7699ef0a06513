package chart

import (
	"image/color"
	"math"
	"strconv"
)

// A painter receives a chart's primitives in CSS pixels, y down: the SVG
// writer turns them into elements with classes, the raster one into
// pixels. class names the element's role (tests read them in the SVG).
type painter interface {
	group(class string, attrs ...string) // attrs: name, value pairs
	end()
	rect(class string, x, y, w, h float64, fill, stroke color.Color, tip string)
	polyline(class string, pts []XY, stroke color.Color, width float64, dash []float64)
	marker(class string, shape int, x, y, r float64, fill color.Color, tip string)
	text(class string, x, y float64, s string, t textStyle)
}

// Text anchors.
const (
	anchorStart = iota
	anchorMiddle
	anchorEnd
)

type textStyle struct {
	size   float64
	bold   bool
	anchor int
	rotate bool // read bottom to top
	fill   color.Color
}

// A legendEntry is one item of the legend.
type legendEntry struct {
	name    string
	kind    int // entryLine, entryBar, entryBand, entryRule
	style   int
	dashed  bool
	line    bool
	markers bool
	width   float64
}

const (
	entryLine = iota
	entryBar
	entryBand
	entryRule
)

func (c *Chart) legendEntries() []legendEntry {
	var es []legendEntry
	for _, l := range c.Lines {
		if l.Name != "" {
			alone := countFinite(l.Points) == 1 // drawn as a marker
			es = append(es, legendEntry{name: l.Name, kind: entryLine, style: l.Style, dashed: l.Dashed, line: !l.NoLine && !alone, markers: l.Markers || l.NoLine || alone})
		}
	}
	if c.Bars != nil {
		for _, g := range c.Bars.Groups {
			if g.Name != "" {
				es = append(es, legendEntry{name: g.Name, kind: entryBar, style: g.Style})
			}
		}
	}
	for _, b := range c.Bands {
		if b.Name != "" {
			es = append(es, legendEntry{name: b.Name, kind: entryBand})
		}
	}
	for _, r := range c.Rules {
		if r.Name != "" {
			es = append(es, legendEntry{name: r.Name, kind: entryRule})
		}
	}
	if c.Bars == nil {
		for _, m := range c.Marks {
			if m.Name != "" {
				es = append(es, legendEntry{name: m.Name, kind: entryRule})
			}
		}
	}
	return es
}

// Legend geometry, px.
const (
	swatchWidth = 24.0
	entryGap    = 16.0
	rowHeight   = 18.0
	boxPadX     = 8.0
	boxPadY     = 4.0
)

// layoutLegend places the entries in rows no wider than avail and returns
// each entry's offset from the box's top-left corner and the box size.
func layoutLegend(es []legendEntry, avail float64) (pos []XY, w, h float64) {
	x, row := boxPadX, 0
	for i := range es {
		es[i].width = swatchWidth + 5 + textWidth(es[i].name, legendSize, false)
		if x > boxPadX && x+es[i].width+boxPadX > avail {
			x, row = boxPadX, row+1
		}
		pos = append(pos, XY{x, boxPadY + float64(row)*rowHeight})
		x += es[i].width + entryGap
		w = math.Max(w, x-entryGap+boxPadX)
	}
	return pos, w, boxPadY*2 + float64(row+1)*rowHeight
}

// fitSize shrinks a font size so that s fits in width.
func fitSize(s string, size, width float64, bold bool) float64 {
	if tw := textWidth(s, size, bold); tw > width && tw > 0 {
		return math.Max(size*width/tw, 7)
	}
	return size
}

// legendHeight is the height the legend takes in a panel of width w,
// its margin included (0 without a legend).
func (c *Chart) legendHeight(w float64) float64 {
	es := c.legendEntries()
	if len(es) == 0 {
		return 0
	}
	_, _, lh := layoutLegend(es, w-2*pad)
	return lh + 6
}

// draw lays the chart out in the box (ox, oy, w, h) and paints it. The
// plot area starts at least room below the title, so that panels side by
// side line up whatever their legends.
func (c *Chart) draw(p painter, ox, oy, w, h, room float64) {
	p.rect("background", ox, oy, w, h, white, nil, "")
	titleY := oy + pad + titleSize
	p.text("chart-title", ox+w/2, titleY, c.Title, textStyle{size: fitSize(c.Title, titleSize, w-2*pad, true), bold: true, anchor: anchorMiddle, fill: ink})
	top := titleY + 8

	if es := c.legendEntries(); len(es) > 0 {
		pos, lw, lh := layoutLegend(es, w-2*pad)
		bx := ox + (w-lw)/2
		p.group("legend")
		p.rect("legend-box", bx, top, lw, lh, white, boxGrey, "")
		for i, e := range es {
			drawEntry(p, e, bx+pos[i].X, top+pos[i].Y+rowHeight/2)
		}
		p.end()
	}
	top += math.Max(room, c.legendHeight(w))

	// The plot area: tick labels and axis titles outside it.
	y0 := top + tickSize/2 + 4
	y1 := oy + h - pad - labelSize - 8 - tickSize - 8
	ny := int(math.Max(3, math.Min(8, (y1-y0)/45)))
	yr := NewRange(c.Y, c.yValues(), ny)
	yw := 0.0
	for _, t := range yr.Ticks {
		yw = math.Max(yw, textWidth(t.Label, tickSize, false))
	}
	x0 := ox + pad + labelSize + 10 + yw + 8
	x1 := ox + w - pad - 14
	var xr Range
	if c.Bars == nil {
		nx := int(math.Max(3, math.Min(8, (x1-x0)/90)))
		xr = NewRange(c.X, c.xValues(), nx)
		if last := xr.Ticks[len(xr.Ticks)-1]; xr.pos(last.Value) > 0.99 {
			x1 = math.Min(x1, ox+w-pad-textWidth(last.Label, tickSize, false)/2)
		}
	}
	px := func(v float64) float64 { return x0 + xr.pos(v)*(x1-x0) }
	py := func(v float64) float64 { return y1 - yr.pos(v)*(y1-y0) }

	// Grid, bands, rules behind the data.
	p.group("grid")
	for _, t := range yr.Ticks {
		p.polyline("grid-line", []XY{{x0, py(t.Value)}, {x1, py(t.Value)}}, gridGrey, 1, nil)
	}
	if c.Bars == nil {
		for _, t := range xr.Ticks {
			p.polyline("grid-line", []XY{{px(t.Value), y0}, {px(t.Value), y1}}, gridGrey, 1, nil)
		}
	}
	p.end()
	if c.Bars == nil {
		for _, b := range c.Bands {
			lo, hi := x0, x1
			if xr.contains(b.Lo) {
				lo = math.Max(x0, px(b.Lo))
			}
			if xr.contains(b.Hi) {
				hi = math.Min(x1, px(b.Hi))
			}
			p.rect("band", lo, y0, math.Max(hi-lo, 1), y1-y0, bandFill, nil, b.Name)
		}
	}

	// Axes.
	p.group("y-axis")
	p.polyline("axis-line", []XY{{x0, y0}, {x0, y1}}, ink, 1, nil)
	for _, t := range yr.Ticks {
		y := py(t.Value)
		p.polyline("tick", []XY{{x0 - 4, y}, {x0, y}}, ink, 1, nil)
		p.text("tick-label", x0-7, y+tickSize*0.35, t.Label, textStyle{size: tickSize, anchor: anchorEnd, fill: softInk})
	}
	p.text("axis-label", ox+pad+labelSize*0.8, (y0+y1)/2, c.Y.Title(), textStyle{size: fitSize(c.Y.Title(), labelSize, y1-y0+40, false), anchor: anchorMiddle, rotate: true, fill: ink})
	p.end()
	p.group("x-axis")
	p.polyline("axis-line", []XY{{x0, y1}, {x1, y1}}, ink, 1, nil)
	if c.Bars == nil {
		for _, t := range xr.Ticks {
			x := px(t.Value)
			p.polyline("tick", []XY{{x, y1}, {x, y1 + 4}}, ink, 1, nil)
			p.text("tick-label", x, y1+7+tickSize, t.Label, textStyle{size: tickSize, anchor: anchorMiddle, fill: softInk})
		}
	} else {
		slot := (x1 - x0) / float64(max(len(c.Bars.Categories), 1))
		for i, cat := range c.Bars.Categories {
			x := x0 + slot*(float64(i)+0.5)
			p.text("tick-label", x, y1+7+tickSize, cat, textStyle{size: fitSize(cat, tickSize, slot*0.95, false), anchor: anchorMiddle, fill: softInk})
		}
	}
	p.text("axis-label", (x0+x1)/2, oy+h-pad, c.X.Title(), textStyle{size: fitSize(c.X.Title(), labelSize, w-2*pad, false), anchor: anchorMiddle, fill: ink})
	p.end()
	p.rect("plot-area", x0, y0, x1-x0, y1-y0, nil, nil, "")

	for _, r := range c.Rules {
		if yr.contains(r.Y) {
			p.polyline("rule", []XY{{x0, py(r.Y)}, {x1, py(r.Y)}}, ruleColor, 1.5, ruleDash)
		}
	}
	if c.Bars == nil {
		for _, m := range c.Marks {
			if xr.contains(m.X) {
				p.polyline("mark", []XY{{px(m.X), y0}, {px(m.X), y1}}, ruleColor, 1.5, ruleDash)
			}
		}
	}
	if c.Bars != nil {
		c.drawBars(p, x0, x1, py, yr)
	} else {
		c.drawLines(p, x0, x1, y0, px, py, xr, yr)
	}
}

func drawEntry(p painter, e legendEntry, x, y float64) {
	p.group("legend-entry")
	col := Colour(e.style)
	switch e.kind {
	case entryLine:
		if e.line {
			dash := solidLine
			if e.dashed {
				dash = dashed
			}
			p.polyline("swatch", []XY{{x, y}, {x + swatchWidth, y}}, col, lineWidth, dash)
		}
		if e.markers {
			p.marker("swatch", shapeOf(e.style), x+swatchWidth/2, y, markerRadius, col, "")
		}
	case entryBar:
		p.rect("swatch", x+swatchWidth/2-6, y-6, 12, 12, col, nil, "")
	case entryBand:
		p.rect("swatch", x+2, y-6, swatchWidth-4, 12, bandFill, boxGrey, "")
	case entryRule:
		p.polyline("swatch", []XY{{x, y}, {x + swatchWidth, y}}, ruleColor, 1.5, ruleDash)
	}
	p.text("legend-label", x+swatchWidth+5, y+legendSize*0.35, e.name, textStyle{size: legendSize, fill: ink})
	p.end()
}

func countFinite(pts []XY) int {
	n := 0
	for _, p := range pts {
		if finite(p.X) && finite(p.Y) {
			n++
		}
	}
	return n
}

func (c *Chart) yValues() []float64 {
	var vs []float64
	for _, l := range c.Lines {
		for _, pt := range l.Points {
			if finite(pt.X) {
				vs = append(vs, pt.Y)
			}
		}
	}
	if c.Bars != nil {
		top := 0.0
		for _, g := range c.Bars.Groups {
			vs = append(vs, g.Values...)
			vs = append(vs, g.Lo...)
			vs = append(vs, g.Hi...)
			for _, v := range append(append([]float64(nil), g.Values...), g.Hi...) {
				if finite(v) {
					top = math.Max(top, v)
				}
			}
		}
		if c.Bars.Values && top > 0 {
			vs = append(vs, top*1.1) // room for the value labels
		}
	}
	for _, r := range c.Rules {
		vs = append(vs, r.Y)
	}
	return vs
}

func (c *Chart) xValues() []float64 {
	var vs []float64
	for _, l := range c.Lines {
		for _, pt := range l.Points {
			if finite(pt.Y) {
				vs = append(vs, pt.X)
			}
		}
	}
	for _, b := range c.Bands {
		vs = append(vs, b.Lo, b.Hi)
	}
	for _, m := range c.Marks {
		vs = append(vs, m.X)
	}
	return vs
}

func (c *Chart) drawLines(p painter, x0, x1, y0 float64, px, py func(float64) float64, xr, yr Range) {
	for _, l := range c.Lines {
		col := Colour(l.Style)
		p.group("series", "data-name", l.Name)
		var pts []XY
		var idx []int
		for i, pt := range l.Points {
			if xr.contains(pt.X) && yr.contains(pt.Y) {
				pts = append(pts, XY{px(pt.X), py(pt.Y)})
				idx = append(idx, i)
			}
		}
		if !l.NoLine && len(pts) > 1 {
			path := pts
			if l.Step {
				path = staircase(pts)
			}
			dash := solidLine
			if l.Dashed {
				dash = dashed
			}
			p.polyline("line", path, col, lineWidth, dash)
		}
		if l.Markers || l.NoLine || len(pts) == 1 {
			for k, pt := range pts {
				d := l.Points[idx[k]]
				tip := formatNum(d.X) + ", " + formatNum(d.Y)
				if l.Name != "" {
					tip = l.Name + ": " + tip
				}
				p.marker("point", shapeOf(l.Style), pt.X, pt.Y, markerRadius, col, tip)
			}
		}
		for k, pt := range pts {
			if l.Labels == nil || l.Labels[idx[k]] == "" {
				continue
			}
			s := l.Labels[idx[k]]
			x, anchor := pt.X+6, anchorStart
			if x+textWidth(s, pointLabelSize, false) > x1 {
				x, anchor = pt.X-6, anchorEnd
			}
			y := pt.Y - 6
			if y-pointLabelSize < y0 {
				y = pt.Y + 6 + pointLabelSize
			}
			p.text("point-label", x, y, s, textStyle{size: pointLabelSize, anchor: anchor, fill: ink})
		}
		p.end()
	}
}

// staircase turns CDF points into a step path.
func staircase(pts []XY) []XY {
	out := []XY{pts[0]}
	for _, pt := range pts[1:] {
		out = append(out, XY{pt.X, out[len(out)-1].Y}, pt)
	}
	return out
}

func (c *Chart) drawBars(p painter, x0, x1 float64, py func(float64) float64, yr Range) {
	b := c.Bars
	n := max(len(b.Categories), 1)
	slot := (x1 - x0) / float64(n)
	inner := slot * 0.8
	bw := inner / float64(max(len(b.Groups), 1))
	base := py(math.Max(yr.Min, 0))
	for g, grp := range b.Groups {
		col := Colour(grp.Style)
		p.group("series", "data-name", grp.Name)
		for i, v := range grp.Values {
			if !yr.contains(v) {
				continue
			}
			x := x0 + slot*float64(i) + (slot-inner)/2 + bw*float64(g)
			y := py(v)
			tip := b.Categories[i] + ": " + formatNum(v)
			if grp.Name != "" {
				tip = grp.Name + ", " + tip
			}
			p.rect("bar", x+1, math.Min(y, base), math.Max(bw-2, 1), math.Max(math.Abs(base-y), 0.5), col, nil, tip)
			top := y
			if grp.Lo != nil && grp.Hi != nil && yr.contains(grp.Lo[i]) && yr.contains(grp.Hi[i]) {
				cx, lo, hi := x+bw/2, py(grp.Lo[i]), py(grp.Hi[i])
				p.polyline("whisker", []XY{{cx, lo}, {cx, hi}}, ink, 1.2, nil)
				p.polyline("whisker", []XY{{cx - 4, hi}, {cx + 4, hi}}, ink, 1.2, nil)
				p.polyline("whisker", []XY{{cx - 4, lo}, {cx + 4, lo}}, ink, 1.2, nil)
				top = math.Min(top, hi)
			}
			if b.Values {
				s := formatNum(v)
				p.text("bar-value", x+bw/2, top-4, s, textStyle{size: fitSize(s, pointLabelSize, bw+6, false), anchor: anchorMiddle, fill: ink})
			}
		}
		p.end()
	}
}

// formatNum writes v with 4 significant digits, in full for integers.
func formatNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e7 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}
