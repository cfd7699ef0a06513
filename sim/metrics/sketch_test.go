package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSketchKeyFastPath: the sketch's keys are ⌈math.Log(v)/log γ⌉ bit for
// bit, whether the table logarithm or math.Log decided them: over random
// values, and over the values a few ulps either side of every bucket
// boundary γ^k, where the fast path must defer to math.Log.
func TestSketchKeyFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, alpha := range []float64{DefaultSketchAccuracy, 0.01, 0.05, 5e-4, 1e-4} {
		s := NewSketch(alpha)
		exact := func(v float64) int { return int(math.Ceil(math.Log(v) / s.logG)) }
		check := func(v float64) {
			if got, want := s.key(v), exact(v); got != want {
				t.Fatalf("alpha %v: key(%v) = %d, math.Log gives %d", alpha, v, got, want)
			}
		}
		for range 200_000 {
			check(math.Exp(r.Float64()*100 - 50))
		}
		for _, v := range []float64{1e-9 * (1 + 1e-15), 1, 2, 0.5, 1e300, math.MaxFloat64, math.Inf(1), 0x1p-64, 0x1p65, math.Nextafter(0x1p65, 0)} {
			check(v)
		}
		lo, hi := exact(1e-9), exact(1e9)
		for k := lo; k <= hi; k += 1 + (hi-lo)/5000 {
			b := math.Float64bits(math.Exp(float64(k) * s.logG))
			for d := -8; d <= 8; d++ {
				check(math.Float64frombits(uint64(int64(b) + int64(d))))
			}
			// Just outside the margin, where the table logarithm decides.
			for _, d := range []float64{-5, -2, -1.2, 1.2, 2, 5} {
				check(math.Exp((float64(k) + d*s.margin) * s.logG))
			}
		}
	}
	if NewSketch(1e-4).invLogG != 0 {
		t.Error("the fast path is on for log γ < 1e-3")
	}
}
