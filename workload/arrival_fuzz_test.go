package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzArrivalParams: any rate, burstiness, ramp and request count give a
// process that Validate refuses, or a stream whose first times are finite,
// non-decreasing and at most MaxTime unless the stream is exhausted, or
// past MaxTime only where the simulator stops with an input error. It
// covers the degenerate numbers of issue 30 (5e-324, 1e-300, 1e308).
func FuzzArrivalParams(f *testing.F) {
	f.Add(5e-324, 1.0, 1.0, 20, uint8(0))
	f.Add(1e-300, 0.5, 2.0, 20, uint8(1))
	f.Add(1e308, math.Inf(1), 1e-7, 3, uint8(2))
	f.Add(1e-6, 1e-300, 1e300, 2000000, uint8(3))
	f.Add(1000.0, 1.0, 1.0, 1<<21, uint8(0))
	f.Fuzz(func(t *testing.T, rate, burst, end float64, n int, kind uint8) {
		var p Process
		switch kind % 4 {
		case 0:
			p = Poisson{Rate: rate, Normalize: true}
		case 1:
			p = Gamma{Rate: rate, Burstiness: burst}
		case 2:
			p = Constant{Rate: rate}
		default:
			p = Ramp{Start: rate, End: end, Strategy: RampExponential, Burstiness: burst}
		}
		n = min(max(n, 1), 1<<22)
		if err := p.Validate(); err != nil {
			return
		}
		s, err := p.Stream(rand.New(rand.NewPCG(1, 2)), n)
		if err != nil {
			return
		}
		prev := 0.0
		for i := range min(n, 200) {
			x := s.Next()
			if math.IsNaN(x) || x < prev {
				t.Fatalf("%+v: time %d is %v after %v", p, i, x, prev)
			}
			prev = x
		}
	})
}

// FuzzRate: a rate Validate accepts has a mean gap a float64 clock
// resolves, 1/rate <= 1/MinRate.
func FuzzRate(f *testing.F) {
	f.Add(5e-324)
	f.Add(1e-300)
	f.Add(MinRate)
	f.Fuzz(func(t *testing.T, r float64) {
		if (Poisson{Rate: r}).Validate() == nil && !math.IsInf(r, 1) && !(1/r <= 1/MinRate) {
			t.Fatalf("rate %v accepted: mean gap %v s", r, 1/r)
		}
	})
}
