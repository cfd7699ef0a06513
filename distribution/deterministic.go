package distribution

import "math/rand/v2"

// Deterministic is the point mass at Value. It consumes no random numbers.
type Deterministic struct {
	Value float64 `json:"value" yaml:"value"`
}

// Sample returns Value.
func (d Deterministic) Sample(*rand.Rand) float64 { return d.Value }

// Mean returns Value.
func (d Deterministic) Mean() float64 { return d.Value }

// Var returns 0.
func (d Deterministic) Var() float64 { return 0 }

// Validate requires a finite Value ≥ 0.
func (d Deterministic) Validate() error { return nonNegative("deterministic", "value", d.Value) }
