package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuantileTableMarginals: draws reproduce the tabulated quantiles (up
// to rounding and sampling error) and the table mean.
func TestQuantileTableMarginals(t *testing.T) {
	for name, q := range map[string]QuantileTable{"conversation": AzureConversation(), "code": AzureCode()} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, q.Validate())
			r := rand.New(rand.NewPCG(1, 2))
			const n = 200_000
			in, out := make([]float64, n), make([]float64, n)
			var sin, sout float64
			for i := range n {
				l, o := q.Sample(r, i)
				in[i], out[i] = float64(l), float64(o)
				sin += in[i]
				sout += out[i]
			}
			slices.Sort(in)
			slices.Sort(out)
			for _, p := range []int{4, 10, 18, 19, 21} { // 20%, 50%, 90%, 95%, 99%
				prob := q.Probs[p]
				k := int(prob * (n - 1))
				// The empirical quantile lies between the table's values at
				// prob ± 4 standard errors of a sample quantile.
				se := 4 * math.Sqrt(prob*(1-prob)/n)
				lo, hi := q.at(q.Input, prob-se)-1, q.at(q.Input, prob+se)+1
				assert.True(t, in[k] >= lo && in[k] <= hi, "L p%v: %v not in [%v, %v]", prob*100, in[k], lo, hi)
				lo, hi = q.at(q.Output, prob-se)-1, q.at(q.Output, prob+se)+1
				assert.True(t, out[k] >= lo && out[k] <= hi, "O p%v: %v not in [%v, %v]", prob*100, out[k], lo, hi)
			}
			mi, mo := q.Mean()
			assert.InDelta(t, mi, sin/n, 0.01*mi)
			assert.InDelta(t, mo, sout/n, 0.01*mo)
		})
	}
	mi, mo := AzureConversation().Mean()
	assert.InDelta(t, 1155, mi, 0.03*1155, "table mean near the trace mean")
	assert.InDelta(t, 211, mo, 0.03*211)
}

func TestQuantileTableCorrelation(t *testing.T) {
	q := QuantileTable{Probs: []float64{0, 1}, Input: []float64{0, 1000}, Output: []float64{1, 1001}, Correlation: 0.8}
	r := rand.New(rand.NewPCG(3, 4))
	const n = 100_000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		l, o := q.Sample(r, i)
		xs[i], ys[i] = float64(l), float64(o)
	}
	// Uniform marginals under a Gaussian copula: Spearman ρ_s = (6/π)·asin(ρ/2).
	want := 6 / math.Pi * math.Asin(0.4)
	assert.InDelta(t, want, correlation(xs, ys), 0.01)
}

func TestQuantileTableValidate(t *testing.T) {
	good := AzureCode()
	tests := []struct {
		name   string
		mutate func(*QuantileTable)
		want   string
	}{
		{"short", func(q *QuantileTable) { q.Probs = q.Probs[:1] }, "at least 2 probs"},
		{"lengths", func(q *QuantileTable) { q.Input = q.Input[:3] }, "but 3 input"},
		{"ends", func(q *QuantileTable) { q.Probs = append([]float64{}, q.Probs...); q.Probs[0] = 0.01 }, "from 0 to 1"},
		{"order", func(q *QuantileTable) { q.Probs = append([]float64{}, q.Probs...); q.Probs[2] = 0.01 }, "probs[2] 0.01"},
		{"decreasing", func(q *QuantileTable) { q.Input = append([]float64{}, q.Input...); q.Input[5] = 1 }, "input[5] 1 is below"},
		{"negative", func(q *QuantileTable) { q.Output = append([]float64{}, q.Output...); q.Output[0] = -1 }, "output[0] -1"},
		{"correlation", func(q *QuantileTable) { q.Correlation = 2 }, "correlation 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := good
			tt.mutate(&q)
			assert.ErrorContains(t, q.Validate(), tt.want)
		})
	}
}
