package distribution

import (
	"fmt"
	"math/rand/v2"
)

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

// CDF returns 1 for x ≥ Value and 0 below.
func (d Deterministic) CDF(x float64) float64 {
	if x >= d.Value {
		return 1
	}
	return 0
}

// Validate requires a finite Value ≥ 0 whose square is finite.
func (d Deterministic) Validate() error {
	if err := nonNegative("deterministic", "value", d.Value); err != nil {
		return err
	}
	return finiteMoments(d, "deterministic", fmt.Sprintf("value %v", d.Value))
}
