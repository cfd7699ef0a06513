package workload

import "math/rand/v2"

// Oversampled gives request i the row Pairs[i] while i < len(Pairs) and,
// past the rows, a row drawn uniformly at random (one uniform from r
// each), as vLLM's maybe_oversample_requests fills --num-prompts from a
// dataset with fewer rows. Nothing is sized by the request count: a run
// of 10^9 requests over 100 rows holds 100 pairs.
type Oversampled struct {
	Pairs []Pair `json:"pairs" yaml:"pairs"`
}

// Sample returns row i, or a random row past the last.
func (o Oversampled) Sample(r *rand.Rand, i int) (int, int) {
	k := i
	if k < 0 || k >= len(o.Pairs) {
		k = r.IntN(len(o.Pairs))
	}
	p := o.Pairs[k]
	return p.Input, p.Output
}

// Mean returns the row means (the expectation of every draw).
func (o Oversampled) Mean() (float64, float64) { return meanPairs(o.Pairs) }

// Bounds returns the smallest and largest input and output of the rows.
func (o Oversampled) Bounds() (int, int, int, int) { return boundsPairs(o.Pairs) }

// Validate requires at least one row, each with input >= 0 and output >= 1.
func (o Oversampled) Validate() error { return checkPairs("oversampled", o.Pairs) }
