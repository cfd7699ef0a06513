package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Statistical helpers shared by the tests of this package. Every statistical
// check compares an estimate with its theoretical value within 4 standard
// errors (two-sided, about 6e-5 false-alarm probability per check for a
// normal estimate); seeds are fixed, so a run is reproducible.

const zTol = 4 // standard errors allowed between an estimate and theory

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// meanVar returns the sample mean and the unbiased sample variance of xs.
func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := x - mean
		variance += d * d
	}
	return mean, variance / float64(len(xs)-1)
}

// cv2WithSE returns the sample squared coefficient of variation v/m² of xs
// and its standard error by the delta method: the plug-in influence
// function of v/m² at x is ((x−m)² − v)/m² − 2v(x−m)/m³, and the standard
// error is the sample standard deviation of the influence values over √n.
// It needs a finite fourth moment, which Gamma gaps have.
func cv2WithSE(xs []float64) (cv2, se float64) {
	m, v := meanVar(xs)
	cv2 = v / (m * m)
	infl := make([]float64, len(xs))
	for i, x := range xs {
		d := x - m
		infl[i] = (d*d-v)/(m*m) - 2*v*d/(m*m*m)
	}
	_, iv := meanVar(infl)
	return cv2, math.Sqrt(iv / float64(len(xs)))
}

// correlation returns the Pearson correlation of xs and ys.
func correlation(xs, ys []float64) float64 {
	mx, vx := meanVar(xs)
	my, vy := meanVar(ys)
	var c float64
	for i := range xs {
		c += (xs[i] - mx) * (ys[i] - my)
	}
	c /= float64(len(xs) - 1)
	return c / math.Sqrt(vx*vy)
}

// median returns the sample median of xs (xs is not modified).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// gaps draws n times from a fresh stream of p and returns the gaps between
// consecutive times, the first measured from 0.
func gaps(t *testing.T, p Process, r *rand.Rand, n int) []float64 {
	t.Helper()
	s, err := p.Stream(r, n)
	require.NoError(t, err)
	gs := make([]float64, n)
	prev := 0.0
	for i := range gs {
		tm := s.Next()
		gs[i] = tm - prev
		prev = tm
	}
	return gs
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	// The helpers are oracles for everything else, so check them on data
	// with known answers.
	m, v := meanVar([]float64{1, 2, 3, 4})
	require.InDelta(t, 2.5, m, 1e-15)
	require.InDelta(t, 5.0/3, v, 1e-15)
	require.InDelta(t, 1, correlation([]float64{1, 2, 3}, []float64{2, 4, 6}), 1e-15)
	require.InDelta(t, -1, correlation([]float64{1, 2, 3}, []float64{6, 4, 2}), 1e-15)
	require.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
	require.Equal(t, 3.0, median([]float64{5, 1, 3}))
	// The delta-method standard error of CV² for Exp(1) samples is
	// √(Var of the influence function / n); for Exp(1) (central moments
	// μ₂ = 1, μ₃ = 2, μ₄ = 9) that variance is E[(D² − 1 − 2D)²] with
	// D = X − 1, which is (μ₄ − 2μ₂ + 1) − 4μ₃ + 4μ₂ = 8 − 8 + 4 = 4.
	r := newRand(99)
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = r.ExpFloat64()
	}
	cv2, se := cv2WithSE(xs)
	require.InDelta(t, math.Sqrt(4.0/float64(len(xs))), se, 0.1*se)
	require.InDelta(t, 1, cv2, zTol*se)
}

// assertAllClose checks a whole slice with one assertion: got must have
// want's length and every element within tol·max(1, |want[i]|) of want[i]
// (tol 0: equal). It reports the first element that is not.
func assertAllClose(t *testing.T, want, got []float64, tol float64, msg string) bool {
	t.Helper()
	if !assert.Len(t, got, len(want), msg) {
		return false
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*max(1, math.Abs(want[i]))) {
			return assert.Failf(t, msg, "element %d of %d: got %v, want %v (tolerance %v)", i, len(want), got[i], want[i], tol)
		}
	}
	return true
}
