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
			s, err := tt.p.Stream(nil, 1000)
			require.NoError(t, err)
			want := 0.0
			for i := range 1000 {
				got := s.Next()
				want += 1 / tt.rate
				require.Equal(t, want, got, "time %d", i)
				require.InDelta(t, float64(i+1)/tt.rate, got, 1e-9, "time %d", i)
			}
			assert.Equal(t, tt.rate, tt.p.MeanRate())
		})
	}
}

func TestInfiniteRate(t *testing.T) {
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
			require.NoError(t, tt.p.Validate())
			s, err := tt.p.Stream(newRand(1), tt.n)
			require.NoError(t, err)
			for i := range 1000 {
				require.Zero(t, s.Next(), "time %d", i)
			}
			assert.True(t, math.IsInf(tt.p.MeanRate(), 1))
		})
	}
}

func TestNormalize(t *testing.T) {
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
			for i := range got {
				require.InEpsilon(t, factor, got[i]/raw[i], 1e-12, "time %d is not the common multiple", i)
			}
			assert.Greater(t, math.Abs(raw[n-1]-end)/end, 1e-4, "without Normalize the last time is random")
			assert.True(t, math.IsInf(s.Next(), 1), "exhausted after n")
			assert.True(t, math.IsInf(s.Next(), 1), "stays exhausted")
			assert.Equal(t, tt.raw.Rate, norm.MeanRate())
		})
	}
}

func TestNormalizeNeedsCount(t *testing.T) {
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
			_, err := tt.p.Stream(newRand(1), tt.n)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), "normalized arrivals need the request count")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// rampRate is the rate of request i of n, written from the definition.
func rampRate(p Ramp, i, n int) float64 {
	x := float64(i) / float64(n-1)
	if p.Strategy == RampExponential {
		return p.Start * math.Pow(p.End/p.Start, x)
	}
	return p.Start + (p.End-p.Start)*x
}

func TestRampGapMeans(t *testing.T) {
	// The gap before request i has mean 1/rateᵢ. Averaging the gap of a
	// first, a middle and a last request over m streams, each estimate has
	// standard error (1/rateᵢ)·(1/√k)/√m.
	const (
		n = 40
		m = 20_000
	)
	tests := []struct {
		name string
		p    Ramp
		k    float64 // the burstiness in effect
	}{
		{"linear up", Ramp{Start: 1, End: 10, Strategy: RampLinear}, 1},
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear}, 1},
		{"exponential up", Ramp{Start: 0.5, End: 50, Strategy: RampExponential}, 1},
		{"exponential down k=4", Ramp{Start: 20, End: 2, Strategy: RampExponential, Burstiness: 4}, 4},
		{"linear up k=0.5", Ramp{Start: 2, End: 6, Strategy: RampLinear, Burstiness: 0.5}, 0.5},
	}
	idx := []int{0, 1, n / 2, n - 2, n - 1}
	for ti, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRand(uint64(200 + ti))
			sums := make([]float64, n)
			for range m {
				s, err := tt.p.Stream(r, n)
				require.NoError(t, err)
				prev := 0.0
				for i := range n {
					tm := s.Next()
					sums[i] += tm - prev
					prev = tm
				}
				require.True(t, math.IsInf(s.Next(), 1), "exhausted after n")
			}
			for _, i := range idx {
				want := 1 / rampRate(tt.p, i, n)
				se := want / math.Sqrt(tt.k*m)
				assert.InDelta(t, want, sums[i]/m, zTol*se, "mean gap of request %d", i)
			}
		})
	}
}

func TestRampEndpoints(t *testing.T) {
	// Request 0 is sent at Start and request n−1 at End: with k = +Inf the
	// gaps are exactly 1/rateᵢ. A falling linear ramp keeps its times in
	// order, and the stream is exhausted after n (it used to extrapolate
	// past End, to negative rates on a falling linear ramp).
	const n = 11
	tests := []struct {
		name string
		p    Ramp
	}{
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear, Burstiness: inf}},
		{"exponential up", Ramp{Start: 1, End: 1024, Strategy: RampExponential, Burstiness: inf}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.p.Stream(nil, n)
			require.NoError(t, err)
			ts := make([]float64, n)
			for i := range ts {
				ts[i] = s.Next()
			}
			assert.InEpsilon(t, 1/tt.p.Start, ts[0], 1e-12)
			assert.InEpsilon(t, 1/tt.p.End, ts[n-1]-ts[n-2], 1e-12)
			assert.InEpsilon(t, 1/rampRate(tt.p, 5, n), ts[5]-ts[4], 1e-12)
			assert.IsIncreasing(t, ts)
			for range 3 * n {
				require.True(t, math.IsInf(s.Next(), 1), "exhausted after n")
			}
		})
	}
	one, err := Ramp{Start: 4, End: 9, Strategy: RampLinear, Burstiness: inf}.Stream(nil, 1)
	require.NoError(t, err)
	assert.Equal(t, 0.25, one.Next(), "a one-request ramp runs at Start")
	assert.True(t, math.IsInf(one.Next(), 1))
}

func TestRampNeedsCount(t *testing.T) {
	_, err := Ramp{Start: 1, End: 2, Strategy: RampLinear}.Stream(newRand(1), 0)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "ramp arrivals need the request count, got 0")
}

func TestRampMeanRate(t *testing.T) {
	// MeanRate is the long-ramp limit of n/Σ 1/rateᵢ, the harmonic mean of
	// the per-request rates. With n = 200,001 the Riemann sum is within
	// about 1e-5 (relative) of the integral; 1e-4 is allowed.
	const n = 200_001
	tests := []struct {
		name string
		p    Ramp
	}{
		{"linear up", Ramp{Start: 1, End: 10, Strategy: RampLinear}},
		{"linear down", Ramp{Start: 10, End: 1, Strategy: RampLinear}},
		{"linear gentle", Ramp{Start: 5, End: 6, Strategy: RampLinear}},
		{"exponential up", Ramp{Start: 1, End: 10, Strategy: RampExponential}},
		{"exponential down", Ramp{Start: 40, End: 0.5, Strategy: RampExponential}},
		{"linear flat", Ramp{Start: 3, End: 3, Strategy: RampLinear}},
		{"exponential flat", Ramp{Start: 3, End: 3, Strategy: RampExponential}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var total float64
			for i := range n {
				total += 1 / rampRate(tt.p, i, n)
			}
			assert.InEpsilon(t, n/total, tt.p.MeanRate(), 1e-4)
		})
	}
}

func TestReplay(t *testing.T) {
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
			slow := drawTimes(t, tt.slow, 11, n)
			fast := drawTimes(t, tt.fast, 11, n)
			for i := range slow {
				require.Equal(t, slow[i], 2*fast[i], "time %d", i)
			}
		})
	}
}

func TestProcessValidate(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		p    Process
		want string
	}{
		{"poisson rate 0", Poisson{Rate: 0}, "poisson rate 0"},
		{"poisson rate negative", Poisson{Rate: -2}, "poisson rate -2"},
		{"poisson rate NaN", Poisson{Rate: nan}, "poisson rate NaN"},
		{"poisson rate -Inf", Poisson{Rate: math.Inf(-1)}, "poisson rate -Inf"},
		{"gamma rate 0", Gamma{Rate: 0, Burstiness: 1}, "gamma rate 0"},
		{"gamma rate NaN", Gamma{Rate: nan, Burstiness: 1}, "gamma rate NaN"},
		{"gamma burstiness 0", Gamma{Rate: 1, Burstiness: 0}, "gamma burstiness 0"},
		{"gamma burstiness NaN", Gamma{Rate: 1, Burstiness: nan}, "gamma burstiness NaN"},
		{"gamma burstiness negative", Gamma{Rate: 1, Burstiness: -1}, "gamma burstiness -1"},
		{"constant rate 0", Constant{Rate: 0}, "constant rate 0"},
		{"constant rate +Inf", Constant{Rate: inf}, "constant rate +Inf"},
		{"ramp start 0", Ramp{Start: 0, End: 1, Strategy: RampLinear}, "ramp start 0"},
		{"ramp end NaN", Ramp{Start: 1, End: nan, Strategy: RampLinear}, "ramp end NaN"},
		{"ramp end +Inf", Ramp{Start: 1, End: inf, Strategy: RampExponential}, "ramp end +Inf"},
		{"ramp strategy unknown", Ramp{Start: 1, End: 2, Strategy: "cubic"}, `ramp strategy "cubic"`},
		{"ramp strategy empty", Ramp{Start: 1, End: 2}, `ramp strategy ""`},
		{"ramp burstiness negative", Ramp{Start: 1, End: 2, Strategy: RampLinear, Burstiness: -0.5}, "ramp burstiness -0.5"},
		{"ramp burstiness NaN", Ramp{Start: 1, End: 2, Strategy: RampLinear, Burstiness: nan}, "ramp burstiness NaN"},
		{"replay empty", Replay{}, "replay times must not be empty"},
		{"replay decreasing", Replay{Times: []float64{0, 2, 1}}, "replay times[2] 1"},
		{"replay negative", Replay{Times: []float64{-1, 2}}, "replay times[0] -1"},
		{"replay NaN", Replay{Times: []float64{0, nan}}, "replay times[1] NaN"},
		{"replay +Inf", Replay{Times: []float64{0, inf}}, "replay times[1] +Inf"},
		{"replay speedup negative", Replay{Times: []float64{0}, Speedup: -2}, "replay speedup -2"},
		{"replay speedup +Inf", Replay{Times: []float64{0}, Speedup: inf}, "replay speedup +Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
	tests := []struct {
		name string
		p    Process
	}{
		{"poisson", Poisson{Rate: 0.01}},
		{"poisson +Inf", Poisson{Rate: inf}},
		{"gamma +Inf +Inf", Gamma{Rate: inf, Burstiness: inf}},
		{"constant", Constant{Rate: 1e6}},
		{"ramp burstiness 0 means Poisson", Ramp{Start: 1, End: 2, Strategy: RampExponential}},
		{"ramp burstiness +Inf", Ramp{Start: 2, End: 1, Strategy: RampLinear, Burstiness: inf}},
		{"replay speedup 0 means 1", Replay{Times: []float64{0, 0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.p.Validate())
			_, err := tt.p.Stream(newRand(1), 3)
			require.NoError(t, err)
		})
	}
}
