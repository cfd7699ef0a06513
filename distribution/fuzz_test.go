package distribution

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// fuzzDist builds the distribution of kind k (mod 10) from the parameters a,
// b and the weight w.
func fuzzDist(k uint8, a, b, w float64) Dist {
	switch k % 10 {
	case 0:
		return Exponential{Rate: a}
	case 1:
		return Gamma{Shape: a, Rate: b}
	case 2:
		return Uniform{Min: a, Max: b}
	case 3:
		return LogNormal{Mu: a, Sigma: b}
	case 4:
		return Deterministic{Value: a}
	case 5:
		return GammaMeanCV(a, b)
	case 6:
		return LogNormalMeanCV(a, b)
	case 7:
		return Mixture{Weights: []float64{w, 1 - w}, Components: []Dist{Gamma{Shape: a, Rate: 1}, LogNormal{Mu: 0, Sigma: b}}}
	case 8:
		return Discrete([]float64{a, b}, []float64{w, 1 - w})
	default:
		return Discrete([]float64{a, 2 * a}, []float64{w, b})
	}
}

// FuzzDist checks every distribution over its numeric parameters: when
// Validate accepts them, the mean, the variance and the second moment are
// finite numbers >= 0, and 200 draws are finite numbers >= 0 at which the
// CDF lies in [0, 1]; otherwise Validate returns an ErrInvalid.
func FuzzDist(f *testing.F) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	for _, c := range []struct {
		k       uint8
		a, b, w float64
	}{
		{0, 20, 0, 0}, {0, 1e-200, 0, 0}, {0, 1e-154, 0, 0}, {0, 5e-324, 0, 0}, {0, inf, 0, 0}, {0, nan, 0, 0}, {0, 1e308, 0, 0},
		{1, 0.1, 2, 0}, {1, 0.5, 10, 0}, {1, 1, 1, 0}, {1, 1e-300, 1, 0}, {1, 1e300, 1e300, 0}, {1, 1e300, 1e-10, 0}, {1, 1, 1e-160, 0},
		{1, 5e-324, 5e-324, 0}, {1, 0.19999999999999998, 1e-150, 0}, {1, -1, 1, 0},
		{2, 0, 1, 0}, {2, 1, 1, 0}, {2, 2, 1, 0}, {2, 0, 1e200, 0}, {2, 1e154, 1.3e154, 0}, {2, negZero, 0, 0},
		{3, 0, 0.5, 0}, {3, -3, 1, 0}, {3, 800, 1, 0}, {3, 0, 27, 0}, {3, -900, 28.28, 0}, {3, -1e300, 1, 0}, {3, 354, 0, 0}, {3, 0, 18.8, 0},
		{4, 0, 0, 0}, {4, 1.3e154, 0, 0}, {4, negZero, 0, 0}, {4, -1, 0, 0},
		{5, 0.05, 2, 0}, {5, 1, 1e-160, 0}, {5, 1, 1e154, 0}, {5, 1e-300, 1e150, 0}, {5, 1e150, 1e-5, 0},
		{6, 0.05, 1, 0}, {6, 1e-300, 1e100, 0}, {6, 1e150, 0.1, 0}, {6, 0, 1, 0},
		{7, 0.5, 1, 0.25}, {7, 1e-300, 26, 0.5}, {7, 1, 1, 1 + 1e-10}, {7, 1, 1, -1e-10},
		{8, 0.02, 0.18, 0.8}, {8, 0, 1.5e154, 0.5}, {8, 1, 2, nan},
		{9, 1, 0.5, 0.5}, {9, 1, 0.5, 0.5 + 9e-10}, {9, 1, 0.5 - 9e-10, 0.5},
	} {
		f.Add(c.k, c.a, c.b, c.w)
	}
	f.Fuzz(func(t *testing.T, k uint8, a, b, w float64) {
		d := fuzzDist(k, a, b, w)
		if err := d.Validate(); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%#v: Validate error %q is not an ErrInvalid", d, err)
			}
			return
		}
		m, v := d.Mean(), d.Var()
		if !finiteNonNegative(m) || !finiteNonNegative(v) || !finiteNonNegative(SecondMoment(d)) {
			t.Fatalf("%#v is valid but has mean %v, variance %v, second moment %v: want finite numbers >= 0", d, m, v, SecondMoment(d))
		}
		r := rand.New(rand.NewPCG(uint64(k), 7))
		for i := range 200 {
			x := d.Sample(r)
			if !finiteNonNegative(x) {
				t.Fatalf("%#v is valid but draw %d is %v, want a finite number >= 0", d, i, x)
			}
			if p := d.CDF(x); !(p >= 0 && p <= 1) {
				t.Fatalf("%#v: CDF(%v) = %v, want a probability", d, x, p)
			}
		}
	})
}

func finiteNonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
