package metrics

import "math"

// DefaultSketchAccuracy is the relative accuracy of summary-mode
// percentiles: 0.5%.
const DefaultSketchAccuracy = 0.005

// minSketchValue: values at or below it (1 ns) count as zero.
const minSketchValue = 1e-9

// A Sketch is a fixed-accuracy quantile sketch over non-negative values:
// logarithmic buckets of ratio γ = (1+α)/(1−α), so every quantile estimate
// is within relative error α of a value of the sample at that rank (the
// DDSketch construction of Masson, Rim and Lee, VLDB 2019). Memory is one
// counter per occupied bucket span: about ln(max/min)/(2α) counters, a few
// thousand for latencies from 1 µs to an hour, independent of the count
// (up to twice that while it grows downwards, see AddN).
type Sketch struct {
	gamma   float64
	logG    float64
	invLogG float64 // 1/logG when the table logarithm may decide keys (logG ≥ 1e-3), else 0
	margin  float64 // how far from an integer it must put a key (see key)
	offset  int     // key of counts[0]
	counts  []float64
	zero    float64
	n       float64
	nonZero bool
}

// NewSketch returns a Sketch with relative accuracy alpha in (0, 1).
func NewSketch(alpha float64) *Sketch {
	g := (1 + alpha) / (1 - alpha)
	s := &Sketch{gamma: g, logG: math.Log(g)}
	if s.logG >= 1e-3 {
		s.invLogG = 1 / s.logG
		s.margin = 3e-8*s.invLogG + 1e-9
	}
	return s
}

// key returns ⌈math.Log(v)/logG⌉ for v > 0. A table logarithm decides it
// unless its quotient lies within margin of an integer: for v in
// [2^−64, 2^65) it is ln v within 2.1e-8, so the quotient is within
// 2.1e-8/logG + 2e-11 < margin of math.Log(v)/logG (logG ≥ 1e-3), both
// round up to the same integer, and the key is math.Log's exactly. Near an
// integer (a few values in a million), and outside that range, math.Log
// decides.
//
// The table logarithm: v = 2^e·m with m in one of 128 equal slices of
// [1, 2), centre c; ln v = e·ln 2 + ln c + ln(1+r), r = m/c − 1,
// |r| ≤ 2^−8, and ln(1+r) ≈ r − r²/2 within |r|³/(3(1−|r|)) < 2e-8.
func (s *Sketch) key(v float64) int {
	b := math.Float64bits(v)
	if e := int64(b>>52) - 1023; e >= -64 && e <= 64 && s.invLogG > 0 {
		t := &logTable[(b>>45)&127]
		r := math.Float64frombits(b&(1<<52-1)|1023<<52)*t.inv - 1
		y := (float64(e)*math.Ln2 + t.log + (r - r*r*0.5)) * s.invLogG // |y| < 45/1e-3
		k := int(y)                                                    // ⌈y⌉ when y is not an integer
		if y > 0 {
			k++
		}
		if float64(k)-y > s.margin && y-float64(k-1) > s.margin {
			return k
		}
	}
	return int(math.Ceil(math.Log(v) / s.logG))
}

// logTable holds, for each of 128 equal slices of [1, 2), its centre c as
// 1/c and ln c.
var logTable = func() (t [128]struct{ inv, log float64 }) {
	for i := range t {
		c := 1 + (float64(i)+0.5)/128
		t[i].inv, t[i].log = 1/c, math.Log(c)
	}
	return t
}()

// AddN records weight w at value v (v < 0 counts as 0).
func (s *Sketch) AddN(v, w float64) {
	s.n += w
	if v <= minSketchValue {
		s.zero += w
		return
	}
	k := s.key(v)
	if !s.nonZero {
		s.offset = k
		s.counts = append(s.counts[:0], 0)
		s.nonZero = true
	}
	if k < s.offset {
		// Grow downwards with as much room again below (zero buckets,
		// which Quantile passes over), so a run whose values fall bucket
		// by bucket copies its counters a logarithmic number of times.
		grow := max(s.offset-k, len(s.counts))
		s.counts = append(make([]float64, grow, grow+len(s.counts)), s.counts...)
		s.offset -= grow
	}
	for k-s.offset >= len(s.counts) {
		s.counts = append(s.counts, 0)
	}
	s.counts[k-s.offset] += w
}

// Count returns the total weight.
func (s *Sketch) Count() float64 { return s.n }

// Quantile returns an estimate of the q-quantile (0 ≤ q ≤ 1): the value at
// rank q·(n−1), within relative error α.
func (s *Sketch) Quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	rank := q * (s.n - 1)
	cum := s.zero
	if cum > rank {
		return 0
	}
	for i, c := range s.counts {
		cum += c
		if cum > rank {
			k := float64(i + s.offset)
			return 2 * math.Pow(s.gamma, k) / (s.gamma + 1)
		}
	}
	return 2 * math.Pow(s.gamma, float64(len(s.counts)-1+s.offset)) / (s.gamma + 1)
}
