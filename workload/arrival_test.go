package workload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var inf = math.Inf(1)

// drawTimes returns the first n times of a fresh stream of p.
func drawTimes(t *testing.T, p Process, seed uint64, n int) []float64 {
	t.Helper()
	s, err := p.Stream(newRand(seed), n)
	require.NoError(t, err)
	ts := make([]float64, n)
	for i := range ts {
		ts[i] = s.Next()
	}
	return ts
}

func TestGapMoments(t *testing.T) {
	t.Parallel()
	// Gaps ~ Gamma(k, 1/(λk)): mean 1/λ, CV² = 1/k. The mean's standard
	// error is (1/λ)·√(1/k)/√n; CV²'s comes from the delta method
	// (cv2WithSE), and CV's from it by CV = √CV²: se(CV) = se(CV²)/(2·CV).
	const n = 200_000
	tests := []struct {
		name string
		p    Process
		rate float64
		cv2  float64
	}{
		{"poisson", Poisson{Rate: 5}, 5, 1},
		{"gamma k=0.25", Gamma{Rate: 5, Burstiness: 0.25}, 5, 4},
		{"gamma k=1", Gamma{Rate: 0.5, Burstiness: 1}, 0.5, 1},
		{"gamma k=4", Gamma{Rate: 20, Burstiness: 4}, 20, 0.25},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gs := gaps(t, tt.p, newRand(uint64(100+i)), n)
			assert.GreaterOrEqual(t, minOf(gs), 0.0, "gaps must be >= 0")
			mean, _ := meanVar(gs)
			seMean := math.Sqrt(tt.cv2) / tt.rate / math.Sqrt(n)
			assert.InDelta(t, 1/tt.rate, mean, zTol*seMean, "mean gap")
			cv2, se := cv2WithSE(gs)
			assert.InDelta(t, tt.cv2, cv2, zTol*se, "CV²")
			assert.InDelta(t, math.Sqrt(tt.cv2), math.Sqrt(cv2), zTol*se/(2*math.Sqrt(cv2)), "CV")
			assert.Equal(t, tt.rate, tt.p.MeanRate())
		})
	}
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func TestDeterministicGaps(t *testing.T) {
	t.Parallel()
	// Burstiness +Inf and Constant send one request every 1/λ, the first at
	// 1/λ, and consume no random numbers (a nil generator must do).
	tests := []struct {
		name string
		p    Process
		rate float64
	}{
		{"gamma k=+Inf", Gamma{Rate: 3, Burstiness: inf}, 3},
		{"constant", Constant{Rate: 3}, 3},
		{"constant 0.25", Constant{Rate: 0.25}, 0.25},
		{"ramp k=+Inf flat", Ramp{Start: 3, End: 3, Strategy: RampLinear, Burstiness: inf}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.p.Stream(nil, 1000)
			require.NoError(t, err)
			got, want := make([]float64, 1000), make([]float64, 1000)
			for i := range got {
				got[i] = s.Next()
				want[i] = float64(i+1) / tt.rate
			}
			// 1000 sums of 1/rate drift from (i+1)/rate by a few ulps.
			assertAllClose(t, want, got, 1e-12, "time i is (i+1)/rate")
			assert.Equal(t, tt.rate, tt.p.MeanRate())
		})
	}
}

func TestInfiniteRate(t *testing.T) {
	t.Parallel()
	// Rate +Inf (vLLM's --request-rate inf) sends every request at time 0,
	// even with Normalize and no request count.
	tests := []struct {
		name string
		p    Process
		n    int
	}{
		{"poisson", Poisson{Rate: inf}, 100},
		{"poisson normalized, n unknown", Poisson{Rate: inf, Normalize: true}, 0},
		{"gamma k=0.5", Gamma{Rate: inf, Burstiness: 0.5}, 100},
		{"gamma k=+Inf", Gamma{Rate: inf, Burstiness: inf}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.p.Validate())
			s, err := tt.p.Stream(newRand(1), tt.n)
			require.NoError(t, err)
			got := make([]float64, 1000)
			for i := range got {
				got[i] = s.Next()
			}
			assertAllClose(t, make([]float64, len(got)), got, 0, "every time is 0")
			assert.True(t, math.IsInf(tt.p.MeanRate(), 1))
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	// vLLM's mode multiplies the cumulative times by (n/λ)/cₙ: the n-th time
	// is n/λ, the times keep their order and are one common multiple of the
	// unnormalized times drawn from the same seed, which end elsewhere.
	const n = 1000
	tests := []struct {
		name string
		raw  Gamma
	}{
		{"poisson", Gamma{Rate: 8, Burstiness: 1}},
		{"gamma k=0.25", Gamma{Rate: 8, Burstiness: 0.25}},
		{"gamma k=4", Gamma{Rate: 0.3, Burstiness: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			norm := tt.raw
			norm.Normalize = true
			raw := drawTimes(t, tt.raw, 7, n)
			s, err := norm.Stream(newRand(7), n)
			require.NoError(t, err)
			got := make([]float64, n)
			for i := range got {
				got[i] = s.Next()
			}
			end := n / tt.raw.Rate
			assert.InEpsilon(t, end, got[n-1], 1e-9, "last time is n/rate")
			assert.IsNonDecreasing(t, got)
			assert.Greater(t, got[0], 0.0, "first request after one gap")
			factor := got[n-1] / raw[n-1]
			scaled := make([]float64, n)
			for i := range raw {
				scaled[i] = factor * raw[i]
			}
			assertAllClose(t, scaled, got, 1e-12, "the times are one common multiple of the raw times")
			assert.Greater(t, math.Abs(raw[n-1]-end)/end, 1e-4, "without Normalize the last time is random")
			assert.True(t, math.IsInf(s.Next(), 1), "exhausted after n")
			assert.True(t, math.IsInf(s.Next(), 1), "stays exhausted")
			assert.Equal(t, tt.raw.Rate, norm.MeanRate())
		})
	}
}

func TestNormalizeNeedsCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Process
		n    int
		want string
	}{
		{"poisson n=0", Poisson{Rate: 1, Normalize: true}, 0, "got 0"},
		{"gamma n=-3", Gamma{Rate: 1, Burstiness: 2, Normalize: true}, -3, "got -3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.p.Stream(newRand(1), tt.n)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), "normalized arrivals need the request count")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestRampDeterministicGaps(t *testing.T) {
	t.Parallel()
	// With k = +Inf the gap before request i is exactly 1/rateᵢ, rateᵢ at
	// progress x = i/(n−1): request 0 is sent at Start and request n−1 at
	// End. The rates are written out by hand for n = 11 (x = i/10): a
	// falling linear ramp 10 → 1 runs at 10 − 0.9i, an exponential ramp
	// 1 → 1024 at 1024^(i/10) = 2^i. Times stay in order, and the stream is
	// exhausted after n (it used to extrapolate past End, to negative rates
	// on a falling linear ramp).
	const n = 11
	tests := []struct {
		name  string
		p     Ramp
		rates []float64
	}{
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear, Burstiness: inf},
			[]float64{10, 9.1, 8.2, 7.3, 6.4, 5.5, 4.6, 3.7, 2.8, 1.9, 1}},
		{"exponential up", Ramp{Start: 1, End: 1024, Strategy: RampExponential, Burstiness: inf},
			[]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
		{"linear up", Ramp{Start: 2, End: 7, Strategy: RampLinear, Burstiness: inf},
			[]float64{2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.p.Stream(nil, n)
			require.NoError(t, err)
			gs := make([]float64, n)
			prev := 0.0
			for i := range gs {
				tm := s.Next()
				gs[i], prev = tm-prev, tm
			}
			want := make([]float64, n)
			for i, r := range tt.rates {
				want[i] = 1 / r
			}
			assertAllClose(t, want, gs, 1e-12, "gap before each request")
			after := 0
			for range 3 * n {
				after += b2i(!math.IsInf(s.Next(), 1))
			}
			assert.Zero(t, after, "times after the n-th request; want +Inf")
		})
	}
	one, err := Ramp{Start: 4, End: 9, Strategy: RampLinear, Burstiness: inf}.Stream(nil, 1)
	require.NoError(t, err)
	assert.Equal(t, 0.25, one.Next(), "a one-request ramp runs at Start")
	assert.True(t, math.IsInf(one.Next(), 1))
}

func TestRampGapMeans(t *testing.T) {
	t.Parallel()
	// With a finite burstiness k the gap before request i has mean
	// 1/rateᵢ. The rates at i = 0, 1, 5, 9, 10 of n = 11 (x = 0, 0.1, 0.5,
	// 0.9, 1) are written out by hand:
	//   linear 1 → 10:         1 + 9x       = 1, 1.9, 5.5, 9.1, 10
	//   linear 10 → 1:         10 − 9x      = 10, 9.1, 5.5, 1.9, 1
	//   exponential 0.5 → 50:  0.5·100^x    = 0.5, 0.5·10^0.2 = 0.79245, 5,
	//                                         0.5·10^1.8 = 31.548, 50
	//   exponential 20 → 2:    20·10^(−x)   = 20, 15.887, 6.3246, 2.5179, 2
	//   linear 2 → 6, k = 0.5: 2 + 4x       = 2, 2.4, 4, 5.6, 6
	// Averaged over m streams, each estimate has standard error
	// (1/rateᵢ)·(1/√k)/√m; 4 standard errors are allowed (2.8% of the mean
	// at k = 1), which catches a progress of i/n for i/(n−1) (4.3% off at
	// i = 1, 8% at i = 5).
	const (
		n = 11
		m = 20_000
	)
	idx := []int{0, 1, 5, 9, 10}
	tests := []struct {
		name  string
		p     Ramp
		k     float64   // the burstiness in effect
		rates []float64 // at idx
	}{
		{"linear up", Ramp{Start: 1, End: 10, Strategy: RampLinear}, 1, []float64{1, 1.9, 5.5, 9.1, 10}},
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear}, 1, []float64{10, 9.1, 5.5, 1.9, 1}},
		{"exponential up", Ramp{Start: 0.5, End: 50, Strategy: RampExponential}, 1, []float64{0.5, 0.7924466, 5, 31.547867, 50}},
		{"exponential down k=4", Ramp{Start: 20, End: 2, Strategy: RampExponential, Burstiness: 4}, 4, []float64{20, 15.886565, 6.3245553, 2.5178508, 2}},
		{"linear up k=0.5", Ramp{Start: 2, End: 6, Strategy: RampLinear, Burstiness: 0.5}, 0.5, []float64{2, 2.4, 4, 5.6, 6}},
	}
	for ti, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRand(uint64(200 + ti))
			sums := make([]float64, n)
			exhausted := 0
			for range m {
				s, err := tt.p.Stream(r, n)
				if err != nil {
					t.Fatal(err) // not require: it costs a t.Helper call per stream
				}
				prev := 0.0
				for i := range n {
					tm := s.Next()
					sums[i] += tm - prev
					prev = tm
				}
				exhausted += b2i(math.IsInf(s.Next(), 1))
			}
			assert.Equal(t, m, exhausted, "streams exhausted after n")
			for j, i := range idx {
				want := 1 / tt.rates[j]
				se := want / math.Sqrt(tt.k*m)
				assert.InDelta(t, want, sums[i]/m, zTol*se, "mean gap of request %d", i)
			}
		})
	}
}

func TestRampNeedsCount(t *testing.T) {
	t.Parallel()
	_, err := Ramp{Start: 1, End: 2, Strategy: RampLinear}.Stream(newRand(1), 0)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "ramp arrivals need the request count, got 0")
}

func TestRampMeanRate(t *testing.T) {
	t.Parallel()
	// MeanRate is the long-ramp limit of n/Σ 1/rateᵢ, the harmonic mean of
	// the rate over progress x ∈ [0, 1]: 1/∫₀¹ dx/rate(x). By hand:
	//   linear a → b:      (b − a)/ln(b/a)
	//     1 → 10 and 10 → 1: 9/ln 10 = 9/2.302585 = 3.908650
	//     5 → 6: 1/ln 1.2 = 1/0.1823216 = 5.484815
	//   exponential a → b: ln(b/a)/(1/a − 1/b)
	//     1 → 10: ln 10/0.9 = 2.302585/0.9 = 2.558428
	//     40 → 0.5: ln 0.0125/(0.025 − 2) = −4.382027/−1.975 = 2.218748
	//   flat: the rate itself.
	// The values are checked to 1e-6 (relative). A k = +Inf stream of
	// n = 200,001 requests ends at exactly Σ 1/rateᵢ (its gaps are checked
	// one by one in TestRampDeterministicGaps), so n over its last time is
	// the finite-n harmonic mean: a Riemann sum within about 1e-5
	// (relative) of the integral; 1e-4 is allowed.
	const n = 200_001
	tests := []struct {
		name string
		p    Ramp
		want float64
	}{
		{"linear up", Ramp{Start: 1, End: 10, Strategy: RampLinear}, 3.908650},
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear}, 3.908650},
		{"linear gentle", Ramp{Start: 5, End: 6, Strategy: RampLinear}, 5.484815},
		{"exponential up", Ramp{Start: 1, End: 10, Strategy: RampExponential}, 2.558428},
		{"exponential down", Ramp{Start: 40, End: 0.5, Strategy: RampExponential}, 2.218748},
		{"linear flat", Ramp{Start: 3, End: 3, Strategy: RampLinear}, 3},
		{"exponential flat", Ramp{Start: 3, End: 3, Strategy: RampExponential}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InEpsilon(t, tt.want, tt.p.MeanRate(), 1e-6, "closed form")
			det := tt.p
			det.Burstiness = inf
			s, err := det.Stream(nil, n)
			require.NoError(t, err)
			var last float64
			for range n {
				last = s.Next()
			}
			assert.InEpsilon(t, tt.p.MeanRate(), n/last, 1e-4, "n over the time of the n-th request")
		})
	}
}

func TestReplay(t *testing.T) {
	t.Parallel()
	times := []float64{0, 0.5, 0.5, 2}
	tests := []struct {
		name     string
		p        Replay
		want     []float64
		meanRate float64
	}{
		{"as recorded", Replay{Times: times}, []float64{0, 0.5, 0.5, 2}, 1.5},
		{"speedup 1", Replay{Times: times, Speedup: 1}, []float64{0, 0.5, 0.5, 2}, 1.5},
		{"speedup 2", Replay{Times: times, Speedup: 2}, []float64{0, 0.25, 0.25, 1}, 3},
		{"speedup 0.5", Replay{Times: times, Speedup: 0.5}, []float64{0, 1, 1, 4}, 0.75},
		{"late start", Replay{Times: []float64{10, 12}}, []float64{10, 12}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := tt.p.Stream(nil, 0) // consumes no random numbers
			require.NoError(t, err)
			got := make([]float64, len(tt.want))
			for i := range got {
				got[i] = s.Next()
			}
			assert.Equal(t, tt.want, got)
			assert.True(t, math.IsInf(s.Next(), 1), "exhausted")
			assert.True(t, math.IsInf(s.Next(), 1), "stays exhausted")
			assert.InEpsilon(t, tt.meanRate, tt.p.MeanRate(), 1e-15)
		})
	}
	assert.True(t, math.IsInf(Replay{Times: []float64{3}}.MeanRate(), 1), "one request")
	assert.True(t, math.IsInf(Replay{Times: []float64{3, 3}}.MeanRate(), 1), "all at once")
	assert.Equal(t, []float64{0, 0.5, 0.5, 2}, times, "the replay must not modify its times")
}

func TestCommonRandomNumbers(t *testing.T) {
	t.Parallel()
	// Inverse-transform gaps scale with 1/λ: the same seed at rates λ and
	// 2λ gives times in exact ratio 2, so two configurations compared side
	// by side see the same arrival pattern.
	const n = 5000
	tests := []struct {
		name string
		slow Process
		fast Process
	}{
		{"poisson", Poisson{Rate: 3}, Poisson{Rate: 6}},
		{"poisson normalized", Poisson{Rate: 3, Normalize: true}, Poisson{Rate: 6, Normalize: true}},
		{"gamma k=0.5", Gamma{Rate: 3, Burstiness: 0.5}, Gamma{Rate: 6, Burstiness: 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			slow := drawTimes(t, tt.slow, 11, n)
			fast := drawTimes(t, tt.fast, 11, n)
			for i := range fast {
				fast[i] *= 2
			}
			assertAllClose(t, slow, fast, 0, "twice the fast times are the slow times")
		})
	}
}

func TestProcessValidate(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		p    Process
		want string
	}{
		{"poisson rate 0", Poisson{Rate: 0}, "poisson.rate: 0 must be a finite number > 0"},
		{"poisson rate negative", Poisson{Rate: -2}, "poisson.rate: -2 must be a finite number > 0"},
		{"poisson rate NaN", Poisson{Rate: nan}, "poisson.rate: NaN must be a finite number > 0"},
		{"poisson rate -Inf", Poisson{Rate: math.Inf(-1)}, "poisson.rate: -Inf must be a finite number > 0"},
		{"gamma rate 0", Gamma{Rate: 0, Burstiness: 1}, "gamma.rate: 0 must be a finite number > 0"},
		{"gamma rate NaN", Gamma{Rate: nan, Burstiness: 1}, "gamma.rate: NaN must be a finite number > 0"},
		{"gamma burstiness 0", Gamma{Rate: 1, Burstiness: 0}, "gamma.burstiness: 0 must be > 0"},
		{"gamma burstiness NaN", Gamma{Rate: 1, Burstiness: nan}, "gamma.burstiness: NaN must be > 0"},
		{"gamma burstiness negative", Gamma{Rate: 1, Burstiness: -1}, "gamma.burstiness: -1 must be > 0"},
		{"constant rate 0", Constant{Rate: 0}, "constant.rate: 0 must be a finite number > 0"},
		{"constant rate +Inf", Constant{Rate: inf}, "constant.rate: +Inf must be a finite number > 0"},
		{"ramp start 0", Ramp{Start: 0, End: 1, Strategy: RampLinear}, "ramp.start: 0 must be a finite number > 0"},
		{"ramp end NaN", Ramp{Start: 1, End: nan, Strategy: RampLinear}, "ramp.end: NaN must be a finite number > 0"},
		{"ramp end +Inf", Ramp{Start: 1, End: inf, Strategy: RampExponential}, "ramp.end: +Inf must be a finite number > 0"},
		{"ramp strategy unknown", Ramp{Start: 1, End: 2, Strategy: "cubic"}, `ramp.strategy: "cubic" must be "linear" or "exponential"`},
		{"ramp strategy empty", Ramp{Start: 1, End: 2}, `ramp.strategy: "" must be`},
		{"ramp burstiness negative", Ramp{Start: 1, End: 2, Strategy: RampLinear, Burstiness: -0.5}, "ramp.burstiness: -0.5 must be >= 0"},
		{"ramp burstiness NaN", Ramp{Start: 1, End: 2, Strategy: RampLinear, Burstiness: nan}, "ramp.burstiness: NaN must be >= 0"},
		{"replay empty", Replay{}, "replay.times: must not be empty"},
		{"replay decreasing", Replay{Times: []float64{0, 2, 1}}, "replay.times[2]: 1 must be finite and >= the previous time 2"},
		{"replay negative", Replay{Times: []float64{-1, 2}}, "replay.times[0]: -1 must be finite and >= the previous time 0"},
		{"replay NaN", Replay{Times: []float64{0, nan}}, "replay.times[1]: NaN must be finite and >= the previous time 0"},
		{"replay +Inf", Replay{Times: []float64{0, inf}}, "replay.times[1]: +Inf must be finite and >= the previous time 0"},
		{"replay speedup negative", Replay{Times: []float64{0}, Speedup: -2}, "replay.speedup: -2 must be a finite number >= 0"},
		{"replay speedup +Inf", Replay{Times: []float64{0}, Speedup: inf}, "replay.speedup: +Inf must be a finite number >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.p.Validate()
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
			// Stream validates too, with the same message (Poisson and
			// Constant used to report a "gamma" field, and Constant at
			// +Inf used to stream zeros).
			_, serr := tt.p.Stream(newRand(1), 10)
			require.ErrorIs(t, serr, ErrInvalid)
			assert.Equal(t, err.Error(), serr.Error())
		})
	}
}

func TestProcessValidateAccepts(t *testing.T) {
	t.Parallel()
	// Each accepted process streams what its documentation promises: its
	// first three times from seed 1 equal those of a reference process, a
	// Replay of hand-computed times where the process is deterministic.
	tests := []struct {
		name string
		p    Process
		ref  Process
	}{
		{"poisson is gamma k=1", Poisson{Rate: 0.01}, Gamma{Rate: 0.01, Burstiness: 1}},
		{"poisson +Inf sends at 0", Poisson{Rate: inf}, Replay{Times: []float64{0, 0, 0}}},
		{"gamma +Inf +Inf sends at 0", Gamma{Rate: inf, Burstiness: inf}, Replay{Times: []float64{0, 0, 0}}},
		{"constant every 1/rate", Constant{Rate: 1000}, Replay{Times: []float64{0.001, 0.002, 0.003}}},
		{"ramp burstiness 0 means Poisson", Ramp{Start: 1, End: 2, Strategy: RampExponential}, Ramp{Start: 1, End: 2, Strategy: RampExponential, Burstiness: 1}},
		// Rates 2, 1.5, 1: times 1/2, 1/2 + 2/3, 1/2 + 2/3 + 1.
		{"ramp burstiness +Inf", Ramp{Start: 2, End: 1, Strategy: RampLinear, Burstiness: inf}, Replay{Times: []float64{0.5, 7.0 / 6, 13.0 / 6}}},
		{"replay speedup 0 means 1", Replay{Times: []float64{0, 0, 1}}, Replay{Times: []float64{0, 0, 1}, Speedup: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.p.Validate())
			assertAllClose(t, drawTimes(t, tt.ref, 1, 3), drawTimes(t, tt.p, 1, 3), 1e-12, "first three times")
		})
	}
}
