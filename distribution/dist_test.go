package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
)

// The statistical tests draw n values per case from a fixed seed, so they
// are deterministic; their thresholds are those at which a correct
// implementation fails with a small, stated probability on a random seed.
const (
	// n is the number of draws per case.
	n = 20_000
	// ksCritical bounds √n·D, D the Kolmogorov–Smirnov distance between the
	// empirical CDF of n draws and the true CDF. It is the α = 0.001 critical
	// value of the limiting Kolmogorov distribution, P(K > 1.9495) = 0.001;
	// at n = 20,000 the finite-n correction is below 0.1%.
	ksCritical = 1.95
	// seTol is the tolerance of a moment check in standard errors; a
	// normally distributed estimate strays further with probability 6e-5.
	seTol = 4
)

// draw returns n values of d from a generator seeded with seed.
func draw(d Dist, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x5e57))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Sample(r)
	}
	return xs
}

// ksDistance returns √n·D with D = sup |Fₙ(x) − F(x)|, the Kolmogorov–Smirnov
// distance between the empirical CDF of xs and the continuous CDF F. It sorts
// xs.
func ksDistance(xs []float64, cdf func(float64) float64) float64 {
	slices.Sort(xs)
	nf := float64(len(xs))
	var d float64
	for i, x := range xs {
		f := cdf(x)
		d = max(d, float64(i+1)/nf-f, f-float64(i)/nf)
	}
	return d * math.Sqrt(nf)
}

// sampleMoments returns the sample mean, the unbiased sample variance and the
// sample fourth central moment of xs.
func sampleMoments(xs []float64) (mean, variance, m4 float64) {
	for _, x := range xs {
		mean += x
	}
	nf := float64(len(xs))
	mean /= nf
	for _, x := range xs {
		d2 := (x - mean) * (x - mean)
		variance += d2
		m4 += d2 * d2
	}
	return mean, variance / (nf - 1), m4 / nf
}

// Reference CDFs, written from the textbook definitions independently of
// the package (which takes its CDFs from distuv).
func expCDF(rate float64) func(float64) float64 {
	return func(x float64) float64 { return 1 - math.Exp(-rate*x) }
}

func uniformCDF(lo, hi float64) func(float64) float64 {
	return func(x float64) float64 { return min(max((x-lo)/(hi-lo), 0), 1) }
}

func lognormalCDF(mu, sigma float64) func(float64) float64 {
	return func(x float64) float64 { return 0.5 * math.Erfc(-(math.Log(x)-mu)/(sigma*math.Sqrt2)) }
}

// gammaHalfCDF is Gamma(1/2, rate): X = Z²/(2·rate), so P(X ≤ x) = erf(√(rate·x)).
func gammaHalfCDF(rate float64) func(float64) float64 {
	return func(x float64) float64 { return math.Erf(math.Sqrt(rate * x)) }
}

// gammaThreeHalvesCDF is Gamma(3/2, rate): P(3/2, y) = erf(√y) − 2√(y/π)·e^(−y).
func gammaThreeHalvesCDF(rate float64) func(float64) float64 {
	return func(x float64) float64 {
		y := rate * x
		return math.Erf(math.Sqrt(y)) - 2*math.Sqrt(y/math.Pi)*math.Exp(-y)
	}
}

// erlang4CDF is Gamma(4, rate): 1 − e^(−y)·(1 + y + y²/2 + y³/6).
func erlang4CDF(rate float64) func(float64) float64 {
	return func(x float64) float64 {
		y := rate * x
		return 1 - math.Exp(-y)*(1+y+y*y/2+y*y*y/6)
	}
}

// gammaIncCDF is Gamma(shape, rate) through the regularised incomplete gamma
// function, for shapes with no elementary form. It is independent of the
// sampler (distuv's rejection method), though not of Gamma.CDF.
func gammaIncCDF(shape, rate float64) func(float64) float64 {
	return func(x float64) float64 { return mathext.GammaIncReg(shape, rate*x) }
}

// continuous lists distributions with a continuous CDF, with their mean and
// variance worked out by hand and an independent reference CDF.
var continuous = []struct {
	name           string
	d              Dist
	mean, variance float64
	cdf            func(float64) float64
}{
	{"exponential", Exponential{Rate: 20}, 0.05, 0.0025, expCDF(20)},
	{"uniform", Uniform{Min: 1, Max: 4}, 2.5, 0.75, uniformCDF(1, 4)},
	{"gamma shape 0.1", Gamma{Shape: 0.1, Rate: 2}, 0.05, 0.025, gammaIncCDF(0.1, 2)},
	{"gamma shape 0.5", Gamma{Shape: 0.5, Rate: 10}, 0.05, 0.005, gammaHalfCDF(10)},
	{"gamma shape 1", Gamma{Shape: 1, Rate: 2}, 0.5, 0.25, expCDF(2)},
	{"gamma shape 1.5", Gamma{Shape: 1.5, Rate: 0.5}, 3, 6, gammaThreeHalvesCDF(0.5)},
	{"gamma mean 0.05 cv 0.5", GammaMeanCV(0.05, 0.5), 0.05, 0.000625, erlang4CDF(80)},
	{"lognormal", LogNormal{Mu: 0, Sigma: 0.5}, math.Exp(0.125), math.Expm1(0.25) * math.Exp(0.25), lognormalCDF(0, 0.5)},
	{"lognormal sigma 1", LogNormal{Mu: -3, Sigma: 1}, math.Exp(-2.5), math.Expm1(1) * math.Exp(-5), lognormalCDF(-3, 1)},
	// mean 0.25·1 + 0.75·3; E[X²] = 0.25·2 + 0.75·(9 + 4/12) = 7.5.
	{"mixture exponential+uniform",
		Mixture{Weights: []float64{0.25, 0.75}, Components: []Dist{Exponential{Rate: 1}, Uniform{Min: 2, Max: 4}}},
		2.5, 7.5 - 2.5*2.5,
		func(x float64) float64 { return 0.25*expCDF(1)(x) + 0.75*uniformCDF(2, 4)(x) }},
}

// TestGoodnessOfFit checks n draws of each continuous distribution against
// its reference CDF and against its own CDF method with the
// Kolmogorov–Smirnov test at α = 0.001.
func TestGoodnessOfFit(t *testing.T) {
	t.Parallel()
	for i, tt := range continuous {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			xs := draw(tt.d, uint64(i))
			assert.Less(t, ksDistance(xs, tt.cdf), ksCritical, "√n·D against the reference CDF")
			assert.Less(t, ksDistance(xs, tt.d.CDF), ksCritical, "√n·D against the CDF method")
		})
	}
}

// TestMoments checks Mean and Var against hand-worked values, and the
// sample mean and variance of n draws against them within seTol standard
// errors: the sample mean's is √(σ²/n) with σ² the true variance; the
// sample variance's is √((m₄ − s⁴)/n), with the fourth central moment m₄
// and the variance s² estimated from the same draws.
func TestMoments(t *testing.T) {
	t.Parallel()
	type moments struct {
		name           string
		d              Dist
		mean, variance float64
	}
	tests := []moments{
		// E[X²] = 0.8·0.02² + 0.2·0.18² = 0.0068.
		{"discrete 80/20", Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2}), 0.052, 0.0068 - 0.052*0.052},
		// E[X²] = 0.5·2/10² + 0.5·1 = 0.51.
		{"exponential or 1", Mixture{Weights: []float64{0.5, 0.5}, Components: []Dist{Exponential{Rate: 10}, Deterministic{Value: 1}}}, 0.55, 0.51 - 0.55*0.55},
		{"lognormal mean 0.05 cv 1", LogNormalMeanCV(0.05, 1), 0.05, 0.0025},
		{"lognormal mean 2 cv 0.5", LogNormalMeanCV(2, 0.5), 2, 1},
		{"gamma mean 2 cv 0.5", GammaMeanCV(2, 0.5), 2, 1},
	}
	for _, c := range continuous {
		tests = append(tests, moments{c.name, c.d, c.mean, c.variance})
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InEpsilon(t, tt.mean, tt.d.Mean(), 1e-12, "Mean")
			assert.InEpsilon(t, tt.variance, tt.d.Var(), 1e-12, "Var")
			mean, variance, m4 := sampleMoments(draw(tt.d, 100+uint64(i)))
			assert.InDelta(t, tt.mean, mean, seTol*math.Sqrt(tt.variance/n), "sample mean")
			assert.InDelta(t, tt.variance, variance, seTol*math.Sqrt((m4-variance*variance)/n), "sample variance")
		})
	}
}

// TestCDF checks CDF methods at points where the value is known exactly,
// including the edges that distuv leaves undefined (x ≤ 0 for the
// log-normal, point masses).
func TestCDF(t *testing.T) {
	t.Parallel()
	discrete := Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})
	tests := []struct {
		name string
		d    Dist
		x    float64
		want float64
	}{
		{"exponential median", Exponential{Rate: 2}, math.Ln2 / 2, 0.5},
		{"exponential below 0", Exponential{Rate: 2}, -1, 0},
		{"uniform third", Uniform{Min: 1, Max: 4}, 2, 1.0 / 3},
		{"uniform above", Uniform{Min: 1, Max: 4}, 5, 1},
		{"uniform point mass at", Uniform{Min: 2, Max: 2}, 2, 1},
		{"uniform point mass below", Uniform{Min: 2, Max: 2}, 1.9, 0},
		{"gamma shape 1 median", Gamma{Shape: 1, Rate: 2}, math.Ln2 / 2, 0.5},
		{"gamma below 0", Gamma{Shape: 2, Rate: 2}, -1, 0},
		{"lognormal median", LogNormal{Mu: 1, Sigma: 2}, math.E, 0.5},
		{"lognormal at 0", LogNormal{Mu: 1, Sigma: 2}, 0, 0},
		{"lognormal below 0", LogNormal{Mu: 1, Sigma: 2}, -1, 0},
		{"lognormal sigma 0 at", LogNormal{Mu: 0, Sigma: 0}, 1, 1},
		{"lognormal sigma 0 below", LogNormal{Mu: 0, Sigma: 0}, 0.999, 0},
		{"deterministic at", Deterministic{Value: 3}, 3, 1},
		{"deterministic below", Deterministic{Value: 3}, 2.999, 0},
		{"discrete below", discrete, 0.019, 0},
		{"discrete first atom", discrete, 0.020, 0.8},
		{"discrete between", discrete, 0.1, 0.8},
		{"discrete last atom", discrete, 0.180, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, tt.d.CDF(tt.x), 1e-15)
		})
	}
}

func TestDeterministicDrawsItsValue(t *testing.T) {
	t.Parallel()
	xs := draw(Deterministic{Value: 0.05}, 1)
	assert.Equal(t, n, countEqual(xs, 0.05), "draws equal to Value")
}

func countEqual(xs []float64, v float64) int {
	k := 0
	for _, x := range xs {
		if x == v {
			k++
		}
	}
	return k
}

// TestUniformsPerDraw checks how many uniforms one draw consumes: two
// generators in lock step stay in lock step after one draw from a and that
// many Float64 calls on b, so common random numbers stay aligned.
func TestUniformsPerDraw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		d        Dist
		uniforms int
	}{
		{"deterministic", Deterministic{Value: 1}, 0},
		{"exponential", Exponential{Rate: 3}, 1},
		{"lognormal", LogNormal{Sigma: 1}, 1},
		{"uniform", Uniform{Max: 1}, 1},
		{"discrete", Discrete([]float64{1, 2}, []float64{0.5, 0.5}), 1},
		{"mixture of exponentials", Mixture{Weights: []float64{0.5, 0.5}, Components: []Dist{Exponential{Rate: 1}, Exponential{Rate: 2}}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
			tt.d.Sample(a)
			for range tt.uniforms {
				b.Float64()
			}
			assert.Equal(t, b.Uint64(), a.Uint64())
		})
	}
}

// TestSameSeedSameDraws checks that draws depend on the generator alone.
func TestSameSeedSameDraws(t *testing.T) {
	t.Parallel()
	for _, tt := range continuous {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, draw(tt.d, 42), draw(tt.d, 42))
		})
	}
}

// TestSampleDoesNotAllocate guards the distuv values built per draw (Gamma
// passes the generator to distuv as its rand.Source). Not parallel:
// AllocsPerRun panics while parallel tests run.
func TestSampleDoesNotAllocate(t *testing.T) {
	for _, tt := range continuous {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 1))
			assert.Zero(t, testing.AllocsPerRun(1000, func() { tt.d.Sample(r) }))
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name  string
		d     Dist
		field string // kind.parameter, or the kind for its moments
		value string // fmt.Sprint of the value (NaN compares unequal to itself)
		want  string
	}{
		{"deterministic negative", Deterministic{Value: -1}, "deterministic.value", "-1", "deterministic.value: -1 must be a finite number >= 0"},
		{"deterministic NaN", Deterministic{Value: nan}, "deterministic.value", "NaN", "deterministic.value: NaN"},
		{"deterministic inf", Deterministic{Value: inf}, "deterministic.value", "+Inf", "deterministic.value: +Inf"},
		{"deterministic overflowing square", Deterministic{Value: 1e200}, "deterministic", "<nil>", "deterministic: value 1e+200 gives second moment E[X²] +Inf, which must be finite"},
		{"exponential zero", Exponential{Rate: 0}, "exponential.rate", "0", "exponential.rate: 0 must be a finite number > 0"},
		{"exponential negative", Exponential{Rate: -2}, "exponential.rate", "-2", "exponential.rate: -2"},
		{"exponential NaN", Exponential{Rate: nan}, "exponential.rate", "NaN", "exponential.rate: NaN"},
		{"exponential inf", Exponential{Rate: inf}, "exponential.rate", "+Inf", "exponential.rate: +Inf"},
		{"exponential infinite variance", Exponential{Rate: 1e-200}, "exponential", "<nil>", "exponential: rate 1e-200 gives variance +Inf, which must be finite"},
		{"exponential infinite mean", Exponential{Rate: 1e-320}, "exponential", "<nil>", "exponential: rate 1e-320 gives mean +Inf"},
		{"gamma shape negative", Gamma{Shape: -1, Rate: 1}, "gamma.shape", "-1", "gamma.shape: -1 must be a finite number > 0"},
		{"gamma shape NaN", Gamma{Shape: nan, Rate: 1}, "gamma.shape", "NaN", "gamma.shape: NaN"},
		{"gamma shape inf", Gamma{Shape: inf, Rate: 1}, "gamma.shape", "+Inf", "gamma.shape: +Inf"},
		{"gamma rate zero", Gamma{Shape: 1, Rate: 0}, "gamma.rate", "0", "gamma.rate: 0 must be a finite number > 0"},
		{"gamma rate inf", Gamma{Shape: 1, Rate: inf}, "gamma.rate", "+Inf", "gamma.rate: +Inf"},
		{"gamma infinite mean", Gamma{Shape: 1e300, Rate: 1e-10}, "gamma", "<nil>", "gamma: shape 1e+300 with rate 1e-10 gives mean +Inf"},
		{"gamma infinite variance", Gamma{Shape: 1, Rate: 1e-160}, "gamma", "<nil>", "gamma: shape 1 with rate 1e-160 gives variance +Inf"},
		{"gamma mean cv overflow", GammaMeanCV(1, 1e-160), "gamma.shape", "+Inf", "gamma.shape: +Inf must be a finite number > 0"},
		{"lognormal mu NaN", LogNormal{Mu: nan, Sigma: 1}, "lognormal.mu", "NaN", "lognormal.mu: NaN must be a finite number"},
		{"lognormal mu inf", LogNormal{Mu: -inf, Sigma: 1}, "lognormal.mu", "-Inf", "lognormal.mu: -Inf"},
		{"lognormal sigma negative", LogNormal{Mu: 0, Sigma: -0.1}, "lognormal.sigma", "-0.1", "lognormal.sigma: -0.1 must be a finite number >= 0"},
		{"lognormal sigma inf", LogNormal{Mu: 0, Sigma: inf}, "lognormal.sigma", "+Inf", "lognormal.sigma: +Inf"},
		{"lognormal infinite mean", LogNormal{Mu: 800, Sigma: 1}, "lognormal", "<nil>", "lognormal: mu 800 with sigma 1 gives mean +Inf"},
		{"lognormal infinite variance", LogNormal{Mu: 0, Sigma: 27}, "lognormal", "<nil>", "lognormal: mu 0 with sigma 27 gives"},
		{"uniform min negative", Uniform{Min: -1, Max: 1}, "uniform.min", "-1", "uniform.min: -1 must be a finite number >= 0"},
		{"uniform max NaN", Uniform{Min: 0, Max: nan}, "uniform.max", "NaN", "uniform.max: NaN"},
		{"uniform max inf", Uniform{Min: 0, Max: inf}, "uniform.max", "+Inf", "uniform.max: +Inf"},
		{"uniform order", Uniform{Min: 2, Max: 1}, "uniform.max", "1", "uniform.max: 1 must be >= min 2"},
		{"uniform infinite variance", Uniform{Min: 0, Max: 1e200}, "uniform", "<nil>", "uniform: max 1e+200 with min 0 gives variance +Inf, which must be finite"},
		{"mixture sum", Discrete([]float64{1, 2}, []float64{0.5, 0.4}), "mixture.weights", "<nil>", "mixture.weights: sum to 0.9, must sum to 1"},
		{"mixture lengths", Mixture{Weights: []float64{1}}, "mixture.weights", "1", "mixture.weights: 1 weights but 0 components: give one weight per component"},
		{"mixture empty", Mixture{}, "mixture.weights", "<nil>", "mixture.weights: must not be empty"},
		{"mixture negative", Discrete([]float64{1, 2}, []float64{1.5, -0.5}), "mixture.weights[1]", "-0.5", "mixture.weights[1]: -0.5 must be a finite number >= 0"},
		{"mixture NaN weight", Discrete([]float64{1, 2}, []float64{nan, 1}), "mixture.weights[0]", "NaN", "mixture.weights[0]: NaN must be a finite number >= 0"},
		{"mixture component", Discrete([]float64{-1}, []float64{1}), "mixture.components[0].deterministic.value", "-1", "mixture.components[0].deterministic.value: -1 must be a finite number >= 0"},
		{"mixture nil", Mixture{Weights: []float64{1}, Components: []Dist{nil}}, "mixture.components[0]", "<nil>", "mixture.components[0]: is nil"},
		{"mixture overflowing component", Discrete([]float64{0, 1.5e154}, []float64{0.5, 0.5}), "mixture.components[1].deterministic", "<nil>", "mixture.components[1].deterministic: value 1.5e+154 gives second moment E[X²] +Inf, which must be finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.d.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.value, fmt.Sprint(fe.Value))
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	for _, tt := range continuous {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.d.Validate())
		})
	}
}

func BenchmarkSample(b *testing.B) {
	for _, bb := range []struct {
		name string
		d    Dist
	}{
		{"exponential", Exponential{Rate: 1}},
		{"uniform", Uniform{Max: 1}},
		{"gamma shape 0.1", Gamma{Shape: 0.1, Rate: 1}},
		{"gamma shape 0.5", Gamma{Shape: 0.5, Rate: 1}},
		{"gamma shape 4", Gamma{Shape: 4, Rate: 1}},
		{"lognormal", LogNormal{Sigma: 1}},
		{"discrete", Discrete([]float64{0.02, 0.18}, []float64{0.8, 0.2})},
	} {
		b.Run(bb.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			b.ReportAllocs()
			var s float64
			for b.Loop() {
				s += bb.d.Sample(r)
			}
			b.ReportMetric(s/float64(b.N), "mean")
		})
	}
}
