package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/fielderr"
)

// Mixture draws component i with probability Weights[i], then samples it.
// A discrete distribution such as "80% take 20 ms, 20% take 180 ms" is a
// Mixture of Deterministic components; Discrete builds one. distuv has no
// mixture, so this one is written here.
//
// Weights must be non-negative and sum to 1 within 1e-9. The component is
// chosen by one uniform compared against the cumulative weights, so the
// choice itself consumes exactly one random number.
type Mixture struct {
	Weights    []float64 `json:"weights" yaml:"weights"`
	Components []Dist    `json:"components" yaml:"components"`
}

// Discrete returns the Mixture that takes values[i] with probability probs[i].
func Discrete(values, probs []float64) Mixture {
	comps := make([]Dist, len(values))
	for i, v := range values {
		comps[i] = Deterministic{Value: v}
	}
	return Mixture{Weights: probs, Components: comps}
}

// Sample draws one value.
func (m Mixture) Sample(r *rand.Rand) float64 {
	u := r.Float64()
	last := len(m.Weights) - 1
	for i, w := range m.Weights[:last] {
		if u < w {
			return m.Components[i].Sample(r)
		}
		u -= w
	}
	return m.Components[last].Sample(r)
}

// Mean returns Σ wᵢ·E[Xᵢ].
func (m Mixture) Mean() float64 {
	var s float64
	for i, w := range m.Weights {
		s += w * m.Components[i].Mean()
	}
	return s
}

// Var returns Σ wᵢ·(Var[Xᵢ] + (E[Xᵢ] − Mean)²), the law of total variance,
// which unlike E[X²] − Mean² cannot cancel to a negative number.
func (m Mixture) Var() float64 {
	mean := m.Mean()
	var v float64
	for i, w := range m.Weights {
		c := m.Components[i]
		d := c.Mean() - mean
		v += w * (c.Var() + d*d)
	}
	return v
}

// CDF returns Σ wᵢ·Fᵢ(x), at most 1: weights that sum to 1 + 1e-9 would
// give 1 + 1e-9 above the largest atom.
func (m Mixture) CDF(x float64) float64 {
	var p float64
	for i, w := range m.Weights {
		p += w * m.Components[i].CDF(x)
	}
	return min(p, 1)
}

// Validate requires matching, non-empty Weights and Components, weights
// ≥ 0 summing to 1, valid components, and a finite mean and variance.
func (m Mixture) Validate() error {
	if len(m.Weights) == 0 {
		return fieldErr("mixture.weights", nil, "must not be empty")
	}
	if len(m.Weights) != len(m.Components) {
		return fieldErr("mixture.weights", len(m.Weights), "weights but %d components: give one weight per component", len(m.Components))
	}
	var sum float64
	for i, w := range m.Weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return fieldErr(fmt.Sprintf("mixture.weights[%d]", i), w, "must be a finite number >= 0")
		}
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		return fieldErr("mixture.weights", nil, "sum to %v, must sum to 1", sum)
	}
	for i, c := range m.Components {
		if c == nil {
			return fieldErr(fmt.Sprintf("mixture.components[%d]", i), nil, "is nil")
		}
		if err := c.Validate(); err != nil {
			return fielderr.In(fmt.Sprintf("mixture.components[%d]", i), err)
		}
	}
	return finiteMoments(m, "mixture", fmt.Sprintf("of %d components", len(m.Components)))
}
