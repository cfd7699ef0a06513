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
	if hi-lo <= 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) || hi-lo < 1e-300 {
		// Equal values, to the resolution of a chart.
		lo = lo/2 + hi/2
		hi = lo
		d := math.Abs(lo) * 0.1
		if d < 1e-300 {
			d = 1
		}
		lo, hi = lo-d, hi+d
		if positive && (a.Zero || lo+d == 0) {
			lo = math.Max(lo, 0)
		}
	}
	// A margin so markers do not sit on the frame, never across zero for
	// positive data with Zero, nor above Cap.
	margin := 0.08 * (hi/2 - lo/2) // 4% of the span, which may overflow
	plo, phi := lo-margin, hi+margin
	if !finite(plo) || !finite(phi) {
		plo, phi = lo, hi
	}
	if a.Zero && positive && lo >= 0 {
		plo = math.Max(plo, 0)
	}
	if a.Cap != 0 && hi <= a.Cap {
		phi = math.Min(phi, a.Cap)
	}
	if !finite(phi-plo) || !(phi > plo) {
		return evenRange(plo, phi)
	}
	step := niceStep((phi - plo) / float64(n))
	first := math.Ceil(plo/step - 1e-9)
	for i := 0; math.Floor(phi/step+1e-9)-first+1 < MinTicks; i++ {
		if i == 10 {
			return evenRange(plo, phi)
		}
		step = smallerStep(step)
		first = math.Ceil(plo/step - 1e-9)
	}
	if !(step > 1e-300) || math.Floor(phi/step+1e-9)-first+1 > 100 {
		return evenRange(plo, phi) // denormal or huge numbers
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
	if !distinct(r.Ticks) {
		return evenRange(plo, phi)
	}
	return r
}

// evenRange is the fallback for ranges the nice steps cannot tick
// (numbers near the ends of float64): five evenly spaced ticks, labelled
// with as many significant digits as keep them apart.
func evenRange(lo, hi float64) Range {
	if !(hi > lo) {
		lo, hi = lo-1, hi+1
	}
	for try := 0; try < 2; try++ {
		r := Range{Min: lo, Max: hi}
		for digits := 3; digits <= 17; digits++ {
			r.Ticks = r.Ticks[:0]
			for i := 0; i < 5; i++ {
				f := float64(i) / 4
				v := lo*(1-f) + hi*f
				r.Ticks = append(r.Ticks, Tick{v, strconv.FormatFloat(v, 'g', digits, 64)})
			}
			if distinct(r.Ticks) {
				return r
			}
		}
		// Too close to tell apart: widen once.
		lo = math.Max(lo-math.Max(1, math.Abs(lo)/2), -math.MaxFloat64)
		hi = math.Min(hi+math.Max(1, math.Abs(hi)/2), math.MaxFloat64)
	}
	return Range{Min: lo, Max: hi, Ticks: []Tick{{lo, strconv.FormatFloat(lo, 'g', 3, 64)}, {lo/2 + hi/2, strconv.FormatFloat(lo/2+hi/2, 'g', 3, 64)}, {hi, strconv.FormatFloat(hi, 'g', 3, 64)}}}
}

// distinct reports whether the ticks increase and their labels differ.
func distinct(ts []Tick) bool {
	seen := map[string]bool{}
	for i, t := range ts {
		if seen[t.Label] || (i > 0 && !(t.Value > ts[i-1].Value)) {
			return false
		}
		seen[t.Label] = true
	}
	return true
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
	if !finite(r.Max) || !(r.Min > 0) {
		r.Min, r.Max = lo, hi
	}
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
		// Powers of ten, every k-th decade when there are many.
		k := (len(decades) + 2*n - 1) / (2 * n)
		r.Ticks = nil
		for i := 0; i < len(decades); i += k {
			r.Ticks = append(r.Ticks, decades[i])
		}
	}
	if len(r.Ticks) < MinTicks || !distinct(r.Ticks) {
		return evenRange(r.Min, r.Max)
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
