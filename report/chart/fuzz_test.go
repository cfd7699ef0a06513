package chart

import (
	"bytes"
	"testing"
)

// FuzzNewRange: any data, on any axis, gets a range with at least
// MinTicks distinct, increasing tick labels that holds the data, and a
// chart of it draws.
func FuzzNewRange(f *testing.F) {
	f.Add(19.3, 19.3, false, false, 0.0)
	f.Add(97.89, 100.0, false, false, 100.0)
	f.Add(0.0, 0.0, true, false, 0.0)
	f.Add(1.0, 64.0, false, true, 0.0)
	f.Add(-1e308, 1e308, false, false, 0.0)
	f.Add(5e-324, 1e-320, false, false, 0.0)
	f.Add(1e300, 1e300, false, true, 0.0)
	f.Fuzz(func(t *testing.T, a, b float64, zero, log bool, cap float64) {
		if !finite(a) || !finite(b) || !finite(cap) {
			return
		}
		axis := Axis{Label: "x", Unit: "u", Zero: zero, Log: log, Cap: cap}
		r := NewRange(axis, []float64{a, b}, 5)
		var drawn []float64
		for _, v := range []float64{a, b} {
			if !r.Log || v > 0 {
				drawn = append(drawn, v)
			}
		}
		checkTicks(t, r, drawn)
		c := &Chart{Title: "fuzz", X: axis, Y: axis, Lines: []Line{{Name: "l", Points: []XY{{a, b}, {b, a}}, Markers: true}}}
		if err := WriteSVG(&bytes.Buffer{}, 1, c); err != nil {
			t.Fatal(err)
		}
	})
}
