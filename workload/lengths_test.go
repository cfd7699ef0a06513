package workload

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFixed(t *testing.T) {
	t.Parallel()
	f := Fixed{Input: 2048, Output: 128}
	require.NoError(t, f.Validate())
	for i := range 10 {
		in, out := f.Sample(nil, i) // consumes no random numbers
		require.Equal(t, 2048, in)
		require.Equal(t, 128, out)
	}
	in, out := f.Mean()
	assert.Equal(t, 2048.0, in)
	assert.Equal(t, 128.0, out)
}

func TestRandom(t *testing.T) {
	t.Parallel()
	// vLLM's `random`: L and O independent and uniform over the integers
	// [⌊n(1−r)⌋, ⌈n(1+r)⌉], the output low end raised to 1. With the
	// bounds written out by hand, every draw must lie inside, both ends must
	// be hit (a width-w range misses an end in 20,000 draws with probability
	// about 2·e^(−20000/w), negligible for w ≤ 520), and the sample means
	// must be within 4 SE of the midpoints (SE = √((w²−1)/12)/√n).
	const n = 20_000
	tests := []struct {
		name         string
		r            Random
		inLo, inHi   int
		outLo, outHi int
	}{
		{"output 1 ratio 0.5", Random{InputLen: 100, OutputLen: 1, RangeRatio: 0.5}, 50, 150, 1, 2},
		{"1024/128 ratio 0.25", Random{InputLen: 1024, OutputLen: 128, RangeRatio: 0.25}, 768, 1280, 96, 160},
		{"ratio 0 is fixed", Random{InputLen: 10, OutputLen: 7}, 10, 10, 7, 7},
		{"input 0", Random{InputLen: 0, OutputLen: 3, RangeRatio: 0.5}, 0, 0, 1, 5},
		{"fractional ends", Random{InputLen: 7, OutputLen: 5, RangeRatio: 0.3}, 4, 10, 3, 7},
		{"ratio 0.9", Random{InputLen: 1, OutputLen: 1, RangeRatio: 0.9}, 0, 2, 1, 2},
	}
	for ti, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.r.Validate())
			ins, outs := sampleLengths(tt.r, uint64(300+ti), n)
			assert.Equal(t, float64(tt.inLo), minOf(ins), "input low end")
			assert.Equal(t, float64(tt.inHi), maxOf(ins), "input high end")
			assert.Equal(t, float64(tt.outLo), minOf(outs), "output low end")
			assert.Equal(t, float64(tt.outHi), maxOf(outs), "output high end")
			wantIn, wantOut := tt.r.Mean()
			assert.Equal(t, float64(tt.inLo+tt.inHi)/2, wantIn)
			assert.Equal(t, float64(tt.outLo+tt.outHi)/2, wantOut)
			mIn, _ := meanVar(ins)
			mOut, _ := meanVar(outs)
			assert.InDelta(t, wantIn, mIn, zTol*uniformIntSE(tt.inLo, tt.inHi, n)+1e-12, "input mean")
			assert.InDelta(t, wantOut, mOut, zTol*uniformIntSE(tt.outLo, tt.outHi, n)+1e-12, "output mean")
		})
	}
}

func TestRandomIndependent(t *testing.T) {
	t.Parallel()
	// L and O are drawn independently: their sample correlation is within
	// 4 SE (1/√n) of 0.
	const n = 50_000
	rl := Random{InputLen: 1000, OutputLen: 100, RangeRatio: 0.5}
	ins, outs := sampleLengths(rl, 350, n)
	assert.InDelta(t, 0, correlation(ins, outs), zTol/math.Sqrt(n))
}

// uniformIntSE is the standard error of the mean of n draws uniform over
// the integers lo..hi.
func uniformIntSE(lo, hi, n int) float64 {
	w := float64(hi - lo + 1)
	return math.Sqrt((w*w-1)/12) / math.Sqrt(float64(n))
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func TestLogNormalMediansAndCorrelation(t *testing.T) {
	t.Parallel()
	// ln L and ln O are normal with means ln(median) and correlation ρ.
	// The sample median of ln L has standard error σ·√(π/2)/√n; rounding
	// to integers moves ln L by at most ln(1+0.5/median), added to the
	// tolerance. The sample correlation has standard error (1−ρ²)/√n;
	// rounding adds noise of about 1/(median·√12) to ln O (< 0.002 of
	// σ_O), so 0.005 is added to its tolerance.
	const n = 50_000
	tests := []struct {
		name string
		l    LogNormal
	}{
		{"independent", LogNormal{InputMedian: 1000, InputSigma: 0.8, OutputMedian: 200, OutputSigma: 0.6, Correlation: 0}},
		{"positively correlated", LogNormal{InputMedian: 1500, InputSigma: 1, OutputMedian: 300, OutputSigma: 0.5, Correlation: 0.6}},
		{"negatively correlated", LogNormal{InputMedian: 800, InputSigma: 0.5, OutputMedian: 150, OutputSigma: 0.7, Correlation: -0.5}},
	}
	for ti, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.l.Validate())
			lnIn, lnOut := sampleLengths(tt.l, uint64(400+ti), n)
			require.GreaterOrEqual(t, minOf(lnIn), 1.0)
			require.GreaterOrEqual(t, minOf(lnOut), 1.0)
			for i := range n {
				lnIn[i], lnOut[i] = math.Log(lnIn[i]), math.Log(lnOut[i])
			}
			medTol := func(sigma, med float64) float64 {
				return zTol*sigma*math.Sqrt(math.Pi/2)/math.Sqrt(n) + math.Log1p(0.5/med)
			}
			assert.InDelta(t, math.Log(tt.l.InputMedian), median(lnIn), medTol(tt.l.InputSigma, tt.l.InputMedian), "input median")
			assert.InDelta(t, math.Log(tt.l.OutputMedian), median(lnOut), medTol(tt.l.OutputSigma, tt.l.OutputMedian), "output median")
			rho := tt.l.Correlation
			assert.InDelta(t, rho, correlation(lnIn, lnOut), zTol*(1-rho*rho)/math.Sqrt(n)+0.005, "correlation of ln L and ln O")
		})
	}
}

func TestLogNormalMean(t *testing.T) {
	t.Parallel()
	// Without caps and with large medians, E[L] = median·e^(σ²/2) within 4
	// SE, SE = median·√((e^(σ²)−1)e^(σ²))/√n; rounding adds at most 0.5.
	const n = 200_000
	l := LogNormal{InputMedian: 1000, InputSigma: 0.5, OutputMedian: 200, OutputSigma: 0.4, Correlation: 0.3}
	wantIn, wantOut := l.Mean()
	assert.InEpsilon(t, 1000*math.Exp(0.125), wantIn, 1e-15)
	assert.InEpsilon(t, 200*math.Exp(0.08), wantOut, 1e-15)
	ins, outs := sampleLengths(l, 450, n)
	se := func(med, sigma float64) float64 {
		s2 := sigma * sigma
		return med * math.Sqrt(math.Expm1(s2)*math.Exp(s2)) / math.Sqrt(n)
	}
	mIn, _ := meanVar(ins)
	mOut, _ := meanVar(outs)
	assert.InDelta(t, wantIn, mIn, zTol*se(1000, 0.5)+0.5)
	assert.InDelta(t, wantOut, mOut, zTol*se(200, 0.4)+0.5)
}

// sampleLengths draws n requests' lengths from l.
func sampleLengths(l Lengths, seed uint64, n int) (ins, outs []float64) {
	r := newRand(seed)
	ins, outs = make([]float64, n), make([]float64, n)
	for i := range n {
		in, out := l.Sample(r, i)
		ins[i], outs[i] = float64(in), float64(out)
	}
	return ins, outs
}

func TestLogNormalCaps(t *testing.T) {
	t.Parallel()
	// Caps bound every draw and are reached: an output is 300 when the
	// unrounded draw is ≥ 299.5, probability 1 − Φ(ln(299.5/200)/1.5) =
	// 0.39389, checked within 4 SE.
	const n = 20_000
	l := LogNormal{InputMedian: 1000, InputSigma: 1.5, OutputMedian: 200, OutputSigma: 1.5, Correlation: 0.5, InputMax: 1500, OutputMax: 300}
	require.NoError(t, l.Validate())
	ins, outs := sampleLengths(l, 500, n)
	assert.Equal(t, 1500.0, maxOf(ins))
	assert.Equal(t, 300.0, maxOf(outs))
	assert.GreaterOrEqual(t, minOf(ins), 1.0)
	assert.GreaterOrEqual(t, minOf(outs), 1.0)
	hits := 0
	for i := range outs {
		hits += b2i(outs[i] == 300)
	}
	const p = 0.39389
	assert.InDelta(t, p, float64(hits)/n, zTol*math.Sqrt(p*(1-p)/n), "fraction at the output cap")
}

func TestLogNormalFloor(t *testing.T) {
	t.Parallel()
	// Draws that round to 0 are raised to 1, so nothing is below 1 and an
	// output is 1 when the unrounded draw is < 1.5: with median 0.3 and
	// σ = 1 that is Φ(ln(1.5/0.3)) = 0.94624, checked within 4 SE.
	const n = 20_000
	l := LogNormal{InputMedian: 0.3, InputSigma: 1, OutputMedian: 0.3, OutputSigma: 1, Correlation: -1}
	require.NoError(t, l.Validate())
	ins, outs := sampleLengths(l, 510, n)
	assert.Equal(t, 1.0, minOf(ins))
	assert.Equal(t, 1.0, minOf(outs))
	ones := 0
	for i := range outs {
		ones += b2i(outs[i] == 1)
	}
	const p = 0.94624
	assert.InDelta(t, p, float64(ones)/n, zTol*math.Sqrt(p*(1-p)/n), "fraction at 1")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestEmpiricalKeepsJointDistribution(t *testing.T) {
	t.Parallel()
	// Rows are resampled whole: every draw is a row of the table (never a
	// mix of one row's input and another's output), and a row present k
	// times in m is drawn with frequency k/m within 4 SE (√(p(1−p)/n)).
	const n = 100_000
	pairs := []Pair{{100, 10}, {200, 20}, {200, 20}, {300, 5}, {200, 20}, {100, 40}}
	e := Empirical{Pairs: pairs}
	require.NoError(t, e.Validate())
	r := newRand(600)
	counts := map[Pair]int{}
	for i := range n {
		in, out := e.Sample(r, i)
		counts[Pair{in, out}]++
	}
	want := map[Pair]float64{{100, 10}: 1.0 / 6, {200, 20}: 3.0 / 6, {300, 5}: 1.0 / 6, {100, 40}: 1.0 / 6}
	require.Len(t, counts, len(want), "draws outside the table: %v", counts)
	for p, freq := range want {
		se := math.Sqrt(freq * (1 - freq) / n)
		assert.InDelta(t, freq, float64(counts[p])/n, zTol*se, "frequency of %v", p)
	}
	in, out := e.Mean()
	assert.InDelta(t, 1100.0/6, in, 1e-12)
	assert.InDelta(t, 115.0/6, out, 1e-12)
}

func TestSequence(t *testing.T) {
	t.Parallel()
	pairs := []Pair{{1, 2}, {3, 4}, {5, 6}}
	s := Sequence{Pairs: pairs}
	require.NoError(t, s.Validate())
	var got []Pair
	for i := range 8 {
		in, out := s.Sample(nil, i) // consumes no random numbers
		got = append(got, Pair{in, out})
	}
	assert.Equal(t, []Pair{{1, 2}, {3, 4}, {5, 6}, {1, 2}, {3, 4}, {5, 6}, {1, 2}, {3, 4}}, got)
	in, out := s.Mean()
	assert.Equal(t, 3.0, in)
	assert.Equal(t, 4.0, out)
}

func TestLengthsValidate(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	ok := LogNormal{InputMedian: 100, InputSigma: 1, OutputMedian: 10, OutputSigma: 1}
	with := func(f func(*LogNormal)) LogNormal { l := ok; f(&l); return l }
	tests := []struct {
		name string
		l    Lengths
		want string
	}{
		{"fixed input negative", Fixed{Input: -1, Output: 1}, "fixed.input: -1 must be >= 0"},
		{"fixed output 0", Fixed{Input: 1, Output: 0}, "fixed.output: 0 must be >= 1"},
		{"random range_ratio 1", Random{InputLen: 10, OutputLen: 10, RangeRatio: 1}, "random.range_ratio: 1 must be in [0, 1)"},
		{"random range_ratio negative", Random{InputLen: 10, OutputLen: 10, RangeRatio: -0.1}, "random.range_ratio: -0.1 must be in [0, 1)"},
		{"random range_ratio NaN", Random{InputLen: 10, OutputLen: 10, RangeRatio: nan}, "random.range_ratio: NaN must be in [0, 1)"},
		{"random input negative", Random{InputLen: -5, OutputLen: 10}, "random.input: -5 must be >= 0"},
		{"random output 0", Random{InputLen: 5, OutputLen: 0}, "random.output: 0 must be >= 1"},
		{"lognormal input_median 0", with(func(l *LogNormal) { l.InputMedian = 0 }), "lognormal.input_median: 0 must be a finite number > 0"},
		{"lognormal output_median +Inf", with(func(l *LogNormal) { l.OutputMedian = math.Inf(1) }), "lognormal.output_median: +Inf must be a finite number > 0"},
		{"lognormal input_sigma negative", with(func(l *LogNormal) { l.InputSigma = -1 }), "lognormal.input_sigma: -1 must be a finite number >= 0"},
		{"lognormal output_sigma NaN", with(func(l *LogNormal) { l.OutputSigma = nan }), "lognormal.output_sigma: NaN must be a finite number >= 0"},
		{"lognormal correlation", with(func(l *LogNormal) { l.Correlation = 1.5 }), "lognormal.correlation: 1.5 must be in [-1, 1]"},
		{"lognormal correlation NaN", with(func(l *LogNormal) { l.Correlation = nan }), "lognormal.correlation: NaN must be in [-1, 1]"},
		{"lognormal cap", with(func(l *LogNormal) { l.OutputMax = -1 }), "lognormal.output_max: -1 must be in [0, MaxTokens 1073741824] (0: MaxTokens)"},
		{"empirical empty", Empirical{}, "empirical.pairs: must not be empty"},
		{"empirical output 0", Empirical{Pairs: []Pair{{1, 1}, {2, 0}}}, "empirical.pairs[1].output: 0 must be >= 1"},
		{"sequence empty", Sequence{}, "sequence.pairs: must not be empty"},
		{"sequence input negative", Sequence{Pairs: []Pair{{-3, 1}}}, "sequence.pairs[0].input: -3 must be >= 0"},
		{"fixed input above MaxTokens", Fixed{Input: MaxTokens + 1, Output: 1}, "fixed.input: 1073741825 exceeds MaxTokens 1073741824"},
		{"random input above MaxTokens/2", Random{InputLen: MaxTokens/2 + 1, OutputLen: 1}, "must be <= MaxTokens/2 536870912"},
		{"lognormal cap above MaxTokens", with(func(l *LogNormal) { l.InputMax = MaxTokens + 1 }), "lognormal.input_max: 1073741825 must be in [0, MaxTokens 1073741824] (0: MaxTokens)"},
		{"empirical output above MaxTokens", Empirical{Pairs: []Pair{{1, MaxTokens + 1}}}, "empirical.pairs[0].output: 1073741825 exceeds MaxTokens 1073741824"},
		{"quantile above MaxTokens", QuantileTable{Probs: []float64{0, 1}, Input: []float64{1, 2e9}, Output: []float64{1, 2}}, "quantile_table.input[1]: 2e+09 must be in [0, MaxTokens 1073741824]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.l.Validate()
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestBounds: every draw falls within Bounds, and a log-normal without
// caps saturates at MaxTokens instead of overflowing an int.
func TestBounds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range []Lengths{
		Fixed{Input: 7, Output: 3},
		Random{InputLen: 100, OutputLen: 20, RangeRatio: 0.5},
		LogNormal{InputMedian: 100, InputSigma: 2, OutputMedian: 10, OutputSigma: 1, InputMax: 500},
		LogNormal{InputMedian: 1e6, InputSigma: 30, OutputMedian: 10},
		Empirical{Pairs: []Pair{{5, 1}, {50, 9}, {20, 30}}},
		Sequence{Pairs: []Pair{{5, 1}, {50, 9}}},
		AzureConversation(),
	} {
		inLo, inHi, outLo, outHi := l.(Bounded).Bounds()
		for i := range 2000 {
			in, out := l.Sample(r, i)
			if in < inLo || in > inHi || out < outLo || out > outHi {
				t.Fatalf("%T: draw (%d, %d) outside bounds [%d, %d] x [%d, %d]", l, in, out, inLo, inHi, outLo, outHi)
			}
		}
	}
}
