package chart

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/fielderr"
)

// A Chart is one panel: a title, two axes, and its data — lines and
// points on numeric axes, or bars over categories — with optional shaded
// bands and horizontal reference lines. The zero Chart draws empty axes.
type Chart struct {
	// Title is drawn above the legend; it is also the SVG's <title>.
	Title string
	// X and Y are the axes. With Bars, X is categorical: its Label names
	// the categories and its scale settings are ignored.
	X, Y Axis
	// Lines are drawn in order, later ones on top.
	Lines []Line
	// Bars, when set, replace the numeric X axis by categories.
	Bars *Bars
	// Bands shade X intervals behind the data (a λ* bracket, say).
	Bands []Band
	// Rules are horizontal reference lines (a target, say).
	Rules []Rule
	// Marks are vertical reference lines (an SLO's bound on a latency
	// axis, say); a chart with Bars has no numeric X and draws none.
	Marks []Mark
}

// An Axis describes one axis. Its label is drawn as "Label (Unit)".
type Axis struct {
	// Label names the quantity ("p99 TTFT"); Unit is its unit ("ms",
	// "req/s", "%"). Every axis of a drawn chart should have both.
	Label, Unit string
	// Log draws the axis on a log10 scale; values ≤ 0 are left out.
	Log bool
	// Zero makes the range include 0.
	Zero bool
	// Cap, when not 0, is an upper bound the range never passes (100 for
	// a percentage) unless the data do.
	Cap float64
}

// Title returns the axis label as drawn: "Label (Unit)".
func (a Axis) Title() string {
	if a.Unit == "" {
		return a.Label
	}
	return a.Label + " (" + a.Unit + ")"
}

// XY is one data point.
type XY struct{ X, Y float64 }

// A Line is a series of points on numeric axes.
type Line struct {
	// Name is its legend entry ("" for none).
	Name string
	// Style picks the colour and marker shape from the palette; lines with
	// the same Style look alike (one run drawn in several charts, say).
	Style int
	// Dashed draws the line dashed (a second statistic of the same run).
	Dashed bool
	// Points are drawn in order. Points with a non-finite coordinate (or
	// a non-positive one on a log axis) are skipped.
	Points []XY
	// Labels, when set, hold a short text drawn beside each point.
	Labels []string
	// Markers draws a marker at each point; NoLine draws only the markers.
	Markers, NoLine bool
	// Step draws a staircase (an empirical CDF): each point holds its Y
	// until the next point's X.
	Step bool
}

// Bars are grouped bars: one bar per group in each category.
type Bars struct {
	// Categories are the X axis's categories, left to right.
	Categories []string
	// Groups are drawn side by side within each category.
	Groups []BarGroup
	// Values writes each bar's value above it.
	Values bool
}

// A BarGroup is one series of bars, one value per category (NaN: none).
type BarGroup struct {
	Name   string
	Style  int
	Values []float64
	// Lo and Hi, when set, draw an interval (a whisker) on each bar.
	Lo, Hi []float64
}

// A Band shades the X interval [Lo, Hi] over the plot's height; a
// non-finite end extends to the edge of the plot.
type Band struct {
	Name   string
	Lo, Hi float64
}

// A Rule is a horizontal line at Y across the plot.
type Rule struct {
	Name string
	Y    float64
}

// A Mark is a vertical line at X over the plot's height.
type Mark struct {
	Name string
	X    float64
}

// ErrInvalid is matched (errors.Is) by Validate's errors, each a
// *fielderr.Error at the field that does not line up (lines[i].labels,
// bars, bars.groups[i].values, .lo or .hi, bands[i].lo), naming the chart.
var ErrInvalid = errors.New("invalid chart")

// Validate checks that the data line up: one label per point, one bar
// value per category.
func (c *Chart) Validate() error {
	for i, l := range c.Lines {
		if l.Labels != nil && len(l.Labels) != len(l.Points) {
			return c.fieldErr(fmt.Sprintf("lines[%d].labels", i), len(l.Labels), "labels for %d points: give one label per point", len(l.Points))
		}
	}
	if c.Bars != nil {
		if len(c.Lines) > 0 {
			return c.fieldErr("bars", nil, "and lines in one chart: a chart draws one or the other")
		}
		n := len(c.Bars.Categories)
		for i, g := range c.Bars.Groups {
			for _, v := range []struct {
				name string
				vs   []float64
				need bool
			}{{"values", g.Values, true}, {"lo", g.Lo, g.Lo != nil}, {"hi", g.Hi, g.Hi != nil}} {
				if v.need && len(v.vs) != n {
					return c.fieldErr(fmt.Sprintf("bars.groups[%d].%s", i, v.name), len(v.vs), "values for %d categories: give one per category", n)
				}
			}
		}
	}
	for i, b := range c.Bands {
		if b.Lo > b.Hi {
			return c.fieldErr(fmt.Sprintf("bands[%d].lo", i), b.Lo, "is above hi %v: the band is reversed", b.Hi)
		}
	}
	return nil
}

// fieldErr returns an ErrInvalid *fielderr.Error rejecting field's value,
// its limit naming the chart by its title.
func (c *Chart) fieldErr(field string, value any, limit string, args ...any) error {
	fe := fielderr.New(field, value, limit+" (chart %q)", append(args, c.Title)...)
	fe.Class = ErrInvalid
	return fe
}

// HasData reports whether the chart has at least one finite point or bar.
func (c *Chart) HasData() bool {
	for _, l := range c.Lines {
		for _, p := range l.Points {
			if finite(p.X) && finite(p.Y) {
				return true
			}
		}
	}
	if c.Bars != nil {
		for _, g := range c.Bars.Groups {
			for _, v := range g.Values {
				if finite(v) {
					return true
				}
			}
		}
	}
	return false
}

// WideSpread reports whether the positive values spread over more than a
// factor of 30, so that a log axis shows them better.
func WideSpread(vs []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 && finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi/lo > 30
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
