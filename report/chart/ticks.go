package chart

import (
	"math"
	"strconv"
	"strings"
)

// A Tick is one labelled position on an axis.
type Tick struct {
	Value float64
	Label string
}

// A Range is an axis's data range and its ticks.
type Range struct {
	Min, Max float64
	Log      bool
	Ticks    []Tick
}

// MinTicks is the fewest labelled ticks an axis gets, whatever its data:
// a single point, or none, still gets a readable scale.
const MinTicks = 3

// NewRange returns the range and ticks of axis a over the values vs
// (non-finite values are ignored) with about n ticks (at least MinTicks).
// A log axis whose positive values span less than a factor of 3 is drawn
// linear; on a log axis, values ≤ 0 are left out.
// The range is the data's with a 4% margin (none below 0 with Zero, none
// above Cap); a single value, or equal values, are padded by 10% around
// them; no values give [0, 1].
func NewRange(a Axis, vs []float64, n int) Range {
	n = max(n, MinTicks)
	lo, hi := math.Inf(1), math.Inf(-1)   // all finite values
	plo, phi := math.Inf(1), math.Inf(-1) // the positive ones
	for _, v := range vs {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if v > 0 {
				plo, phi = math.Min(plo, v), math.Max(phi, v)
			}
		}
	}
	if a.Log && plo <= phi && phi/plo > 3 {
		return logRange(plo, phi, n)
	}
	return linearRange(a, lo, hi, n)
}

func linearRange(a Axis, lo, hi float64, n int) Range {
	if lo > hi { // no data
		lo, hi = 0, 1
	}
	positive := lo >= 0
	if a.Zero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if lo == hi {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
		if positive && (a.Zero || lo+d == 0) {
			lo = math.Max(lo, 0)
		}
	}
	// A margin so markers do not sit on the frame, never across zero for
	// positive data with Zero, nor above Cap.
	span := hi - lo
	plo, phi := lo-0.04*span, hi+0.04*span
	if a.Zero && positive && lo >= 0 {
		plo = math.Max(plo, 0)
	}
	if a.Cap != 0 && hi <= a.Cap {
		phi = math.Min(phi, a.Cap)
	}
	step := niceStep((phi - plo) / float64(n))
	first := math.Ceil(plo/step - 1e-9)
	for math.Floor(phi/step+1e-9)-first+1 < MinTicks {
		step = smallerStep(step)
		first = math.Ceil(plo/step - 1e-9)
	}
	d := decimals(step)
	k := kilo(math.Max(math.Abs(plo), math.Abs(phi)), step)
	if k {
		d = decimals(step / 1000)
	}
	r := Range{Min: plo, Max: phi}
	for i := first; i*step <= phi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		r.Ticks = append(r.Ticks, Tick{v, formatTick(v, d, k)})
	}
	return r
}

// niceSteps are the mantissas of tick steps.
var niceSteps = []float64{1, 2, 2.5, 5, 10}

// niceStep returns the smallest 1, 2, 2.5 or 5 × 10^k at least raw.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range niceSteps {
		if m*e >= raw*(1-1e-9) {
			return m * e
		}
	}
	return 10 * e
}

// smallerStep returns the next nice step below s.
func smallerStep(s float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(s)+1e-9))
	m := s / e
	for i := len(niceSteps) - 1; i >= 0; i-- {
		if niceSteps[i] < m*(1-1e-9) {
			return niceSteps[i] * e
		}
	}
	return 0.5 * e
}

// decimals returns the fewest decimals that write every multiple of step
// exactly.
func decimals(step float64) int {
	for d := 0; d < 12; d++ {
		x := step * math.Pow(10, float64(d))
		if math.Abs(x-math.Round(x)) < 1e-6*x {
			return d
		}
	}
	return 12
}

// kilo reports whether labels are written in thousands ("25k"): values of
// 10,000 and more in steps of at least 100.
func kilo(absMax, step float64) bool { return absMax >= 1e4 && step >= 100 }

func formatTick(v float64, d int, k bool) string {
	if v == 0 {
		return "0"
	}
	if k {
		return strconv.FormatFloat(v/1000, 'f', d, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// logRange ticks a log axis at 1, 2 and 5 times powers of ten (powers of
// ten alone when that gives too many).
func logRange(lo, hi float64, n int) Range {
	r := Range{Min: lo / 1.15, Max: hi * 1.15, Log: true}
	var all, decades []Tick
	for e := math.Floor(math.Log10(r.Min)); e <= math.Ceil(math.Log10(r.Max)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < r.Min || v > r.Max {
				continue
			}
			t := Tick{v, formatLog(v)}
			all = append(all, t)
			if m == 1 {
				decades = append(decades, t)
			}
		}
	}
	r.Ticks = all
	if len(all) > 2*n && len(decades) >= MinTicks {
		r.Ticks = decades
	}
	return r
}

func formatLog(v float64) string {
	if v >= 1e4 {
		return strconv.FormatFloat(v/1000, 'g', -1, 64) + "k"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if strings.Contains(s, "e") {
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	return s
}

// pos maps v to [0, 1] along the range (log10 on a log axis).
func (r Range) pos(v float64) float64 {
	if r.Log {
		return (math.Log10(v) - math.Log10(r.Min)) / (math.Log10(r.Max) - math.Log10(r.Min))
	}
	return (v - r.Min) / (r.Max - r.Min)
}

// contains reports whether v can be drawn on the range.
func (r Range) contains(v float64) bool {
	return finite(v) && (!r.Log || v > 0)
}
