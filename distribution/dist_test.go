package distribution

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkMoments draws n samples and asserts that the sample mean lies within
// 4 standard errors of d.Mean() and the sample variance within 4 standard
// errors of d.Var() (the variance's standard error uses the fourth moment
// estimated from the same samples).
func checkMoments(t *testing.T, d Dist, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	var sum float64
	for i := range xs {
		xs[i] = d.Sample(r)
		require.GreaterOrEqual(t, xs[i], 0.0)
		sum += xs[i]
	}
	mean := sum / float64(n)
	var m2, m4 float64
	for _, x := range xs {
		dx := x - mean
		m2 += dx * dx
		m4 += dx * dx * dx * dx
	}
	m2 /= float64(n - 1)
	m4 /= float64(n)
	seMean := math.Sqrt(d.Var() / float64(n))
	assert.InDelta(t, d.Mean(), mean, 4*seMean+1e-12, "mean")
	seVar := math.Sqrt(math.Max(m4-m2*m2, 0) / float64(n))
	assert.InDelta(t, d.Var(), m2, 4*seVar+1e-12, "variance")
}

func TestMoments(t *testing.T) {
	tests := []struct {
		name string
		d    Dist
	}{
		{"deterministic", Deterministic{Value: 0.05}},
		{"exponential", Exponential{Rate: 20}},
		{"uniform", Uniform{Min: 0.01, Max: 0.09}},
		{"gamma shape 0.25", Gamma{Shape: 0.25, Rate: 5}},
		{"gamma shape 1", Gamma{Shape: 1, Rate: 2}},
		{"gamma shape 4", Gamma{Shape: 4, Rate: 40}},
		{"gamma mean cv", GammaMeanCV(0.05, 0.5)},
		{"lognormal", LogNormal{Mu: -3, Sigma: 0.5}},
		{"lognormal mean cv", LogNormalMeanCV(0.05, 1)},
		{"discrete 80/20", Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})},
		{"mixture", Mixture{Weights: []float64{0.5, 0.5}, Components: []Dist{Exponential{Rate: 10}, Deterministic{Value: 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.d.Validate())
			checkMoments(t, tt.d, 200_000)
		})
	}
}

func TestClosedForms(t *testing.T) {
	m := Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})
	assert.InDelta(t, 0.052, m.Mean(), 1e-15)
	assert.InDelta(t, 0.8*0.0004+0.2*0.0324, SecondMoment(m), 1e-15)
	g := GammaMeanCV(2, 0.5)
	assert.InDelta(t, 2, g.Mean(), 1e-12)
	assert.InDelta(t, 0.25, CV2(g), 1e-12)
	l := LogNormalMeanCV(2, 0.5)
	assert.InDelta(t, 2, l.Mean(), 1e-12)
	assert.InDelta(t, 0.25, CV2(l), 1e-12)
}

func TestValidate(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		d    Dist
		want string
	}{
		{"deterministic negative", Deterministic{Value: -1}, "deterministic value -1"},
		{"deterministic NaN", Deterministic{Value: nan}, "deterministic value NaN"},
		{"exponential zero", Exponential{Rate: 0}, "exponential rate 0"},
		{"exponential NaN", Exponential{Rate: nan}, "exponential rate NaN"},
		{"exponential inf", Exponential{Rate: math.Inf(1)}, "exponential rate +Inf"},
		{"gamma shape", Gamma{Shape: -1, Rate: 1}, "gamma shape -1"},
		{"gamma rate", Gamma{Shape: 1, Rate: 0}, "gamma rate 0"},
		{"lognormal sigma", LogNormal{Mu: 0, Sigma: -0.1}, "lognormal sigma -0.1"},
		{"lognormal mu", LogNormal{Mu: nan, Sigma: 1}, "lognormal mu NaN"},
		{"uniform order", Uniform{Min: 2, Max: 1}, "uniform max 1 must be >= min 2"},
		{"mixture sum", Discrete([]float64{1, 2}, []float64{0.5, 0.4}), "sum to 0.9"},
		{"mixture lengths", Mixture{Weights: []float64{1}}, "1 weights but 0 components"},
		{"mixture empty", Mixture{}, "weights must not be empty"},
		{"mixture negative", Discrete([]float64{1, 2}, []float64{1.5, -0.5}), "weights[1] -0.5"},
		{"mixture component", Discrete([]float64{-1}, []float64{1}), "components[0]: invalid distribution: deterministic value -1"},
		{"mixture nil", Mixture{Weights: []float64{1}, Components: []Dist{nil}}, "components[0] is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestInverseTransformUsesOneUniform(t *testing.T) {
	// Two generators in lock step stay in lock step after one draw each from
	// an inverse-transform distribution: common random numbers stay aligned.
	for _, d := range []Dist{Exponential{Rate: 3}, LogNormal{Sigma: 1}, Uniform{Max: 1}} {
		a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
		d.Sample(a)
		b.Float64()
		assert.Equal(t, a.Uint64(), b.Uint64())
	}
}

func BenchmarkSample(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, d := range []struct {
		name string
		d    Dist
	}{
		{"exponential", Exponential{Rate: 1}},
		{"gamma", Gamma{Shape: 0.5, Rate: 1}},
		{"lognormal", LogNormal{Sigma: 1}},
		{"discrete", Discrete([]float64{0.02, 0.18}, []float64{0.8, 0.2})},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			var s float64
			for b.Loop() {
				s += d.d.Sample(r)
			}
			_ = s
		})
	}
}
