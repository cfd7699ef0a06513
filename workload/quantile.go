package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// QuantileTable draws (L, O) from tabulated marginal quantiles joined by a
// Gaussian copula: two standard normals with correlation Correlation are
// mapped to probabilities u, v, and L, O are the tables' piecewise-linear
// quantiles at u and v, rounded (O at least 1). It reproduces published
// length percentiles exactly at the tabulated probabilities and keeps the
// rank dependence between L and O. Each draw takes two uniforms.
type QuantileTable struct {
	// Probs are increasing probabilities from 0 to 1.
	Probs []float64 `json:"probs" yaml:"probs"`
	// Input and Output are the quantiles of L and O at Probs, non-decreasing.
	Input  []float64 `json:"input" yaml:"input"`
	Output []float64 `json:"output" yaml:"output"`
	// Correlation is the copula's normal-scores correlation, in [−1, 1].
	Correlation float64 `json:"correlation" yaml:"correlation"`
}

// Sample draws one request's lengths. L is the input table's quantile at
// the first uniform u itself, since Φ(Φ⁻¹(u)) = u (the copula's first
// normal is needed only for O's); with no correlation O's normal is the
// second uniform's own, so O is the output table's quantile at that
// uniform and no normal is computed at all.
func (q QuantileTable) Sample(r *rand.Rand, _ int) (int, int) {
	u1, u2 := openUnit(r), openUnit(r)
	v := u2
	if q.Correlation != 0 {
		z1, z2 := mathext.NormalQuantile(u1), mathext.NormalQuantile(u2)
		v = normalCDF(q.Correlation*z1 + math.Sqrt(1-q.Correlation*q.Correlation)*z2)
	}
	in := math.Round(q.at(q.Input, u1))
	out := math.Max(1, math.Round(q.at(q.Output, v)))
	return int(in), int(out)
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// at interpolates the table xs linearly in probability at u.
func (q QuantileTable) at(xs []float64, u float64) float64 {
	// i is the first index with Probs[i] ≥ u: sort.SearchFloat64s written
	// out (its closure call a comparison was a tenth of a draw's time).
	i, j := 0, len(q.Probs)
	for i < j {
		h := int(uint(i+j) >> 1)
		if q.Probs[h] < u {
			i = h + 1
		} else {
			j = h
		}
	}
	switch {
	case i == 0:
		return xs[0]
	case i >= len(q.Probs):
		return xs[len(xs)-1]
	}
	p0, p1 := q.Probs[i-1], q.Probs[i]
	return xs[i-1] + (u-p0)/(p1-p0)*(xs[i]-xs[i-1])
}

// Bounds returns the rounded first and last quantiles (output at least 1).
func (q QuantileTable) Bounds() (int, int, int, int) {
	r := func(x float64) int { return int(math.Round(x)) }
	return r(q.Input[0]), r(q.Input[len(q.Input)-1]), max(r(q.Output[0]), 1), max(r(q.Output[len(q.Output)-1]), 1)
}

// Mean returns the means of the piecewise-linear marginals (before
// rounding): Σ over table intervals of width × midpoint.
func (q QuantileTable) Mean() (float64, float64) {
	mean := func(xs []float64) float64 {
		var m float64
		for i := 1; i < len(q.Probs); i++ {
			m += (q.Probs[i] - q.Probs[i-1]) * (xs[i] + xs[i-1]) / 2
		}
		return m
	}
	return mean(q.Input), mean(q.Output)
}

// Validate requires at least two probabilities rising from 0 to 1, tables
// of the same length that never decrease, input ≥ 0, output ≥ 0, and a
// correlation in [−1, 1].
func (q QuantileTable) Validate() error {
	n := len(q.Probs)
	switch {
	case n < 2:
		return fieldErr("quantile_table.probs", n, "probabilities are too few: a quantile table needs at least 2")
	case len(q.Input) != n || len(q.Output) != n:
		return fieldErr("quantile_table.probs", n, "probs but %d input and %d output quantiles: give one of each per prob", len(q.Input), len(q.Output))
	case q.Probs[0] != 0 || q.Probs[n-1] != 1:
		return fieldErr("quantile_table.probs", nil, "must run from 0 to 1, got %v to %v", q.Probs[0], q.Probs[n-1])
	case !(q.Correlation >= -1 && q.Correlation <= 1):
		return fieldErr("quantile_table.correlation", q.Correlation, "must be in [-1, 1]")
	}
	for i := 1; i < n; i++ {
		if !(q.Probs[i] > q.Probs[i-1]) {
			return fieldErr(fmt.Sprintf("quantile_table.probs[%d]", i), q.Probs[i], "must exceed probs[%d] %v", i-1, q.Probs[i-1])
		}
	}
	for _, col := range []struct {
		name string
		xs   []float64
	}{{"input", q.Input}, {"output", q.Output}} {
		for i, x := range col.xs {
			if !(x >= 0 && x <= MaxTokens) {
				return fieldErr(fmt.Sprintf("quantile_table.%s[%d]", col.name, i), x, "must be in [0, MaxTokens %d]", MaxTokens)
			}
			if i > 0 && x < col.xs[i-1] {
				return fieldErr(fmt.Sprintf("quantile_table.%s[%d]", col.name, i), x, "is below %s[%d] %v: quantiles never decrease", col.name, i-1, col.xs[i-1])
			}
		}
	}
	return nil
}

// tracePercentiles are the probabilities of the built-in tables: every 5%,
// then the tail.
var tracePercentiles = []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99, 0.999, 1}

// AzureConversation returns the joint length distribution of the Azure LLM
// inference trace of a conversation service (19,366 requests, 2023-11-16;
// Azure/AzurePublicDataset, data/AzureLLMInferenceTrace_conv.csv,
// CC-BY-4.0): context and generated-token quantiles computed from the file
// (numpy-linear), and their normal-scores correlation. L mean ≈ 1155,
// p50 1020, p99 4142; O mean ≈ 211, p50 129, p99 601.
func AzureConversation() QuantileTable {
	return QuantileTable{
		Probs:       tracePercentiles,
		Input:       []float64{2, 181, 207, 372, 387, 396, 403, 414, 703, 984, 1020, 1045, 1071, 1097, 1130, 1189, 1315, 1876, 2734, 4083, 4092, 4142, 6179, 14050},
		Output:      []float64{7, 41, 54, 67, 77, 85, 91, 96, 103, 113, 129, 151, 177, 217, 384, 395, 400, 411, 424, 451, 522, 601, 954, 1000},
		Correlation: 0.014,
	}
}

// AzureCode returns the same for the code-completion service of the same
// trace release (8,819 requests; data/AzureLLMInferenceTrace_code.csv): long
// prompts, short answers. L mean ≈ 2048, p50 1469; O mean ≈ 28, p50 13.
func AzureCode() QuantileTable {
	return QuantileTable{
		Probs:       tracePercentiles,
		Input:       []float64{3, 75, 147, 232, 386, 578, 770, 939, 1075, 1261, 1469, 1690, 1909, 2164, 2433, 2744, 3192, 3920, 5188, 7303, 7435, 7436, 7437, 7437},
		Output:      []float64{6, 6, 7, 7, 8, 9, 9, 10, 11, 12, 13, 14, 16, 18, 20, 24, 29, 39, 55, 90, 145, 251, 825, 1899},
		Correlation: -0.013,
	}
}
