package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
)

// TestQuantileTableMarginals: a table entry x at probability p is the
// p-quantile of the draws. Draws are whole numbers (the quantile rounded),
// so with F the fraction of n draws, F(< x) ≤ p ≤ F(≤ x), each side up to
// 4 standard errors √(p(1−p)/n) of a proportion. A hand-made table checks
// the interpolation between its entries against its quantile function
// written out by hand; the built-in tables are checked at every tabulated
// probability. The sample means are checked within 4 standard errors
// σ/√n, plus 0.5 for the rounding, of the means of the piecewise-uniform
// marginals (each table interval [xᵢ₋₁, xᵢ] holds mass pᵢ − pᵢ₋₁ spread
// evenly): worked by hand for the small table, and for the built-in ones
// Σ (pᵢ−pᵢ₋₁)(xᵢ+xᵢ₋₁)/2 and σ² = Σ (pᵢ−pᵢ₋₁)(xᵢ²+xᵢxᵢ₋₁+xᵢ₋₁²)/3 − mean²
// computed outside Go (Python) from the tables.
func TestQuantileTableMarginals(t *testing.T) {
	t.Parallel()
	const n = 200_000
	type point struct{ x, p float64 }
	// tabulated lists a table's own entries as quantile points.
	tabulated := func(probs, xs []float64) []point {
		ps := make([]point, len(probs))
		for i := range probs {
			ps[i] = point{xs[i], probs[i]}
		}
		return ps
	}
	// The hand-made table: L uniform on [0, 1000] with mass 1/2 and on
	// [1000, 3000] with mass 1/2, so P(L ≤ x) = x/2000 up to 1000 and
	// 1/2 + (x−1000)/4000 beyond; mean ½·500 + ½·2000 = 1250, E[L²] =
	// ½·1000²/3 + ½·(1000²+1000·3000+3000²)/3 = 2,333,333, σ = √(2,333,333 −
	// 1250²) = 878.0. O on [1, 101] and [101, 501]: P(O ≤ o) = (o−1)/200,
	// then 1/2 + (o−101)/800; mean ½·51 + ½·301 = 176, E[O²] =
	// ½·(1+101+101²)/3 + ½·(101²+101·501+501²)/3 = 53,684.3, σ = √(53,684.3
	// − 176²) = 150.7.
	hand := QuantileTable{Probs: []float64{0, 0.5, 1}, Input: []float64{0, 1000, 3000}, Output: []float64{1, 101, 501}}
	conv, code := AzureConversation(), AzureCode()
	tests := []struct {
		name           string
		q              QuantileTable
		in, out        []point
		meanIn, sdIn   float64
		meanOut, sdOut float64
	}{
		{"hand-made", hand,
			[]point{{250, 0.125}, {500, 0.25}, {1000, 0.5}, {2000, 0.75}, {2800, 0.95}},
			[]point{{26, 0.125}, {51, 0.25}, {101, 0.5}, {301, 0.75}, {461, 0.95}},
			1250, 878.0, 176, 150.7},
		{"conversation", conv, tabulated(conv.Probs, conv.Input), tabulated(conv.Probs, conv.Output),
			1148.8265, 1097.21, 210.7595, 164.91},
		{"code", code, tabulated(code.Probs, code.Input), tabulated(code.Probs, code.Output),
			2061.373, 1991.17, 29.8615, 73.87},
	}
	for ti, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.q.Validate())
			mi, mo := tt.q.Mean()
			assert.InEpsilon(t, tt.meanIn, mi, 1e-9, "Mean input")
			assert.InEpsilon(t, tt.meanOut, mo, 1e-9, "Mean output")
			in, out := sampleLengths(tt.q, uint64(700+ti), n)
			sin, _ := meanVar(in)
			sout, _ := meanVar(out)
			assert.InDelta(t, tt.meanIn, sin, zTol*tt.sdIn/math.Sqrt(n)+0.5, "sample mean input")
			assert.InDelta(t, tt.meanOut, sout, zTol*tt.sdOut/math.Sqrt(n)+0.5, "sample mean output")
			slices.Sort(in)
			slices.Sort(out)
			for _, c := range []struct {
				what   string
				sorted []float64
				points []point
			}{{"L", in, tt.in}, {"O", out, tt.out}} {
				for _, pt := range c.points {
					tol := zTol * math.Sqrt(pt.p*(1-pt.p)/n)
					below := float64(sort.SearchFloat64s(c.sorted, pt.x)) / n
					atMost := float64(sort.SearchFloat64s(c.sorted, pt.x+0.5)) / n
					assert.LessOrEqual(t, below, pt.p+tol, "%s: fraction below %v", c.what, pt.x)
					assert.GreaterOrEqual(t, atMost, pt.p-tol, "%s: fraction at most %v", c.what, pt.x)
				}
			}
		})
	}
	mi, mo := AzureConversation().Mean()
	assert.InDelta(t, 1155, mi, 0.03*1155, "table mean near the trace mean")
	assert.InDelta(t, 211, mo, 0.03*211)
}

func TestQuantileTableCorrelation(t *testing.T) {
	t.Parallel()
	q := QuantileTable{Probs: []float64{0, 1}, Input: []float64{0, 1000}, Output: []float64{1, 1001}, Correlation: 0.8}
	r := rand.New(rand.NewPCG(3, 4))
	const n = 100_000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		l, o := q.Sample(r, i)
		xs[i], ys[i] = float64(l), float64(o)
	}
	// Uniform marginals under a Gaussian copula: the correlation of L and O
	// is Spearman's ρ_s = (6/π)·asin(ρ/2) = 0.78594. Within 4 standard
	// deviations of the sample correlation at n = 100,000: 0.0014 (measured
	// over 30 seeds; the normal-theory (1−ρ_s²)/√n gives 0.0012).
	want := 6 / math.Pi * math.Asin(0.4)
	assert.InDelta(t, want, correlation(xs, ys), zTol*0.0014)
}

func TestQuantileTableValidate(t *testing.T) {
	t.Parallel()
	good := AzureCode()
	tests := []struct {
		name   string
		mutate func(*QuantileTable)
		want   string
	}{
		{"short", func(q *QuantileTable) { q.Probs = q.Probs[:1] }, "quantile_table.probs: 1 probabilities are too few: a quantile table needs at least 2"},
		{"lengths", func(q *QuantileTable) { q.Input = q.Input[:3] }, "but 3 input"},
		{"ends", func(q *QuantileTable) { q.Probs = append([]float64{}, q.Probs...); q.Probs[0] = 0.01 }, "from 0 to 1"},
		{"order", func(q *QuantileTable) { q.Probs = append([]float64{}, q.Probs...); q.Probs[2] = 0.01 }, "quantile_table.probs[2]: 0.01 must exceed probs[1] 0.05"},
		{"decreasing", func(q *QuantileTable) { q.Input = append([]float64{}, q.Input...); q.Input[5] = 1 }, "quantile_table.input[5]: 1 is below input[4] 386: quantiles never decrease"},
		{"negative", func(q *QuantileTable) { q.Output = append([]float64{}, q.Output...); q.Output[0] = -1 }, "quantile_table.output[0]: -1 must be in [0, MaxTokens 1073741824]"},
		{"correlation", func(q *QuantileTable) { q.Correlation = 2 }, "quantile_table.correlation: 2 must be in [-1, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := good
			tt.mutate(&q)
			assert.ErrorContains(t, q.Validate(), tt.want)
		})
	}
}

// TestQuantileTableSampleDefinition: Sample takes shortcuts (L at the
// first uniform itself, and with no correlation O at the second's), so its
// draws are checked against the copula's definition written out in full:
// z₁ = Φ⁻¹(u₁), z₂ = Φ⁻¹(u₂), L = Q_L(Φ(z₁)), O = Q_O(Φ(ρz₁ + √(1−ρ²)z₂)),
// on the same uniforms. Φ(Φ⁻¹(u)) differs from u by rounding only, so a
// draw may differ by one token where the quantile falls within 1e-9 of a
// half; none may differ otherwise.
func TestQuantileTableSampleDefinition(t *testing.T) {
	t.Parallel()
	const n = 300_000
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	quantile := func(probs, xs []float64, u float64) float64 {
		i := sort.SearchFloat64s(probs, u)
		if i == 0 {
			return xs[0]
		}
		if i == len(probs) {
			return xs[len(xs)-1]
		}
		return xs[i-1] + (u-probs[i-1])/(probs[i]-probs[i-1])*(xs[i]-xs[i-1])
	}
	conv := AzureConversation()
	uncorrelated := conv
	uncorrelated.Correlation = 0
	negative := AzureCode()
	strong := conv
	strong.Correlation = 0.9
	for _, tt := range []struct {
		name string
		q    QuantileTable
	}{{"conversation", conv}, {"no correlation", uncorrelated}, {"code (negative)", negative}, {"correlation 0.9", strong}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := tt.q
			got, ref := rand.New(rand.NewPCG(11, 12)), rand.New(rand.NewPCG(11, 12))
			for i := range n {
				in, out := q.Sample(got, i)
				u1, u2 := openUnit(ref), openUnit(ref)
				z1, z2 := mathext.NormalQuantile(u1), mathext.NormalQuantile(u2)
				wantIn := quantile(q.Probs, q.Input, phi(z1))
				wantOut := max(1, quantile(q.Probs, q.Output, phi(q.Correlation*z1+math.Sqrt(1-q.Correlation*q.Correlation)*z2)))
				for _, c := range []struct {
					what string
					got  int
					want float64
				}{{"input", in, wantIn}, {"output", out, wantOut}} {
					if float64(c.got) == math.Round(c.want) {
						continue
					}
					if half := math.Abs(c.want - math.Floor(c.want) - 0.5); half > 1e-9 || math.Abs(float64(c.got)-c.want) > 1 {
						t.Fatalf("draw %d: %s %d, the definition gives %v", i, c.what, c.got, c.want)
					}
				}
			}
		})
	}
}

// BenchmarkQuantileTableSample draws Azure-conversation lengths (a
// correlated table: three normal functions a draw) and the same table
// without correlation (none), reporting draws per second.
func BenchmarkQuantileTableSample(b *testing.B) {
	conv := AzureConversation()
	uncorrelated := conv
	uncorrelated.Correlation = 0
	for _, bb := range []struct {
		name string
		q    QuantileTable
	}{{"conversation", conv}, {"uncorrelated", uncorrelated}} {
		b.Run(bb.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var sum int
			for b.Loop() {
				in, out := bb.q.Sample(r, 0)
				sum += in + out
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "draws/s")
			if sum <= 0 {
				b.Fatal("no lengths drawn")
			}
		})
	}
}
