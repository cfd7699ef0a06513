package metrics

import (
	"math"
	"testing"
)

// TestSketchGrowsDownCheaply: values that fall bucket by bucket (a run
// whose latencies shrink) are counted as the same values in rising order
// are, quantile for quantile, and cost a logarithmic number of
// allocations, not one a new lowest bucket.
func TestSketchGrowsDownCheaply(t *testing.T) {
	const n = 3000
	value := func(i int) float64 { return 10 * math.Pow(0.997, float64(i)) } // 10 s down to ~1 ms
	down, up := NewSketch(DefaultSketchAccuracy), NewSketch(DefaultSketchAccuracy)
	for i := 0; i < n; i++ {
		down.AddN(value(i), 1)
		up.AddN(value(n-1-i), 1)
	}
	for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.99, 1} {
		if a, b := down.Quantile(q), up.Quantile(q); a != b {
			t.Errorf("q%g: %v falling, %v rising", q, a, b)
		}
	}
	allocs := testing.AllocsPerRun(5, func() {
		s := NewSketch(DefaultSketchAccuracy)
		for i := 0; i < n; i++ {
			s.AddN(value(i), 1)
		}
	})
	if allocs > 30 {
		t.Errorf("%v allocations to add %d falling values, want a logarithmic number (<= 30)", allocs, n)
	}
}
