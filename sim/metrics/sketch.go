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
// thousand for latencies from 1 µs to an hour, independent of the count.
type Sketch struct {
	gamma   float64
	logG    float64
	offset  int // key of counts[0]
	counts  []float64
	zero    float64
	n       float64
	nonZero bool
}

// NewSketch returns a Sketch with relative accuracy alpha in (0, 1).
func NewSketch(alpha float64) *Sketch {
	g := (1 + alpha) / (1 - alpha)
	return &Sketch{gamma: g, logG: math.Log(g)}
}

func (s *Sketch) key(v float64) int { return int(math.Ceil(math.Log(v) / s.logG)) }

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
		grow := s.offset - k
		s.counts = append(make([]float64, grow, grow+len(s.counts)), s.counts...)
		s.offset = k
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
