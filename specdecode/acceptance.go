package specdecode

import "github.com/servesim/servesim/internal/mix"

// Acceptance is the acceptance model of one configuration: the
// unconditional per-position rates r_i = P(the first i draft tokens are
// all accepted), non-increasing in i. A verification that proposed d
// tokens accepts a of them with P(a ≥ i) = r_i for i ≤ d, and emits 1 + a
// tokens (the accepted drafts and the target's own next token).
type Acceptance struct {
	rates []float64
}

// NewAcceptance returns the model of rates r (vLLM's per-position
// acceptance rates); it checks them as Config.Validate does.
func NewAcceptance(r []float64) (Acceptance, error) {
	a := 0.0
	c := Config{Method: Eagle, NumSpeculativeTokens: max(1, len(r)), AcceptanceRates: r}
	if len(r) == 0 {
		c.AcceptanceRates, c.AcceptanceRate = nil, &a
	}
	return c.Acceptance()
}

// K returns the number of positions, num_speculative_tokens.
func (a Acceptance) K() int { return len(a.rates) }

// Rates returns a copy of the per-position rates r_1..r_k.
func (a Acceptance) Rates() []float64 { return append([]float64(nil), a.rates...) }

// MeanLength returns the expected tokens a verification of k drafts
// emits, 1 + Σ r_i: vLLM's "mean acceptance length".
func (a Acceptance) MeanLength() float64 {
	s := 1.0
	for _, r := range a.rates {
		s += r
	}
	return s
}

// Accepted returns the draft tokens accepted, of d ≤ K proposed, for the
// uniform u in [0, 1): the number of leading positions i with u < r_i.
// One uniform per verification makes P(a ≥ i) = r_i exactly.
func (a Acceptance) Accepted(u float64, d int) int {
	n := 0
	for n < d && n < len(a.rates) && u < a.rates[n] {
		n++
	}
	return n
}

// Uniform returns the uniform in [0, 1) of the verification of request
// id's draft after its emitted-th output token under seed: a hash, so a
// request's acceptances do not depend on what else runs beside it (common
// random numbers across configurations and batch compositions).
func Uniform(seed uint64, id int64, emitted int) float64 {
	h := mix.Mix64(seed ^ mix.Mix64(uint64(id)*0x9e3779b97f4a7c15^uint64(emitted)+0x632be59bd9b4e019))
	return float64(h>>11) / (1 << 53)
}

// AlphaForLength returns the i.i.d. rate α in [0, 1] whose mean
// acceptance length (1 − α^(k+1)) / (1 − α) at k drafts is length
// (clamped to [1, k+1]), by bisection.
func AlphaForLength(length float64, k int) float64 {
	if length <= 1 {
		return 0
	}
	if length >= float64(k+1) {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 100 {
		mid := (lo + hi) / 2
		l, p := 1.0, 1.0
		for range k {
			p *= mid
			l += p
		}
		if l < length {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
