package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pt is the size of a CSS pixel in points.
const pt = 0.75

// rasterPainter draws on a gonum vgimg canvas (y up, points) the same
// primitives the SVG writer writes.
type rasterPainter struct {
	c *vgimg.Canvas
	h float64 // canvas height, px
}

func (r *rasterPainter) at(x, y float64) vg.Point {
	return vg.Point{X: vg.Length(x * pt), Y: vg.Length((r.h - y) * pt)}
}

func (r *rasterPainter) group(string, ...string) {}
func (r *rasterPainter) end()                    {}

func (r *rasterPainter) rect(_ string, x, y, w, h float64, fill, stroke color.Color, _ string) {
	var p vg.Path
	p.Move(r.at(x, y))
	p.Line(r.at(x+w, y))
	p.Line(r.at(x+w, y+h))
	p.Line(r.at(x, y+h))
	p.Close()
	if fill != nil {
		r.c.SetColor(fill)
		r.c.Fill(p)
	}
	if stroke != nil {
		r.c.SetColor(stroke)
		r.c.SetLineWidth(vg.Length(pt))
		r.c.SetLineDash(nil, 0)
		r.c.Stroke(p)
	}
}

func (r *rasterPainter) polyline(_ string, pts []XY, stroke color.Color, width float64, dash []float64) {
	if len(pts) < 2 {
		return
	}
	var p vg.Path
	for i, q := range pts {
		if i == 0 {
			p.Move(r.at(q.X, q.Y))
		} else {
			p.Line(r.at(q.X, q.Y))
		}
	}
	var ds []vg.Length
	for _, d := range dash {
		ds = append(ds, vg.Length(d*pt))
	}
	r.c.SetColor(stroke)
	r.c.SetLineWidth(vg.Length(width * pt))
	r.c.SetLineDash(ds, 0)
	r.c.Stroke(p)
}

func (r *rasterPainter) marker(_ string, shape int, x, y, rad float64, fill color.Color, _ string) {
	var p vg.Path
	if outline := shapePath(shape, rad); outline != nil {
		for i, q := range outline {
			if i == 0 {
				p.Move(r.at(x+q.X, y+q.Y))
			} else {
				p.Line(r.at(x+q.X, y+q.Y))
			}
		}
	} else {
		p.Move(r.at(x+rad, y))
		p.Arc(r.at(x, y), vg.Length(rad*pt), 0, 2*math.Pi)
	}
	p.Close()
	r.c.SetColor(fill)
	r.c.Fill(p)
	r.c.SetColor(white)
	r.c.SetLineWidth(vg.Length(pt))
	r.c.SetLineDash(nil, 0)
	r.c.Stroke(p)
}

func (r *rasterPainter) text(_ string, x, y float64, s string, t textStyle) {
	if s == "" {
		return
	}
	f := face(t.size*pt, t.bold)
	w := float64(f.Width(s)) / pt
	dx := [...]float64{0, -w / 2, -w}[t.anchor]
	r.c.SetColor(t.fill)
	if !t.rotate {
		r.c.FillString(f, r.at(x+dx, y), s)
		return
	}
	r.c.Push()
	r.c.Translate(r.at(x, y))
	r.c.Rotate(math.Pi / 2)
	r.c.FillString(f, vg.Point{X: vg.Length(dx * pt)}, s)
	r.c.Pop()
}

// rasterDoc draws the panels on a canvas at DPI.
func rasterDoc(charts []*Chart, cols int) (*vgimg.Canvas, error) {
	for _, c := range charts {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	cols, rows := grid(len(charts), cols)
	W, H := float64(cols)*Width, float64(rows)*Height
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(W*pt), vg.Length(H*pt)), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(white))
	r := &rasterPainter{c: c, h: H}
	rooms := legendRooms(charts, cols)
	for i, ch := range charts {
		ch.draw(r, float64(i%cols)*Width, float64(i/cols)*Height, Width, Height, rooms[i/cols])
	}
	return c, nil
}
