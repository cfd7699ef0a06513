package distribution

import (
	"fmt"
	"math/rand/v2"
)

// Uniform is the continuous uniform distribution on [Min, Max).
type Uniform struct {
	Min float64 `json:"min" yaml:"min"`
	Max float64 `json:"max" yaml:"max"`
}

// Sample draws one value.
func (u Uniform) Sample(r *rand.Rand) float64 { return u.Min + (u.Max-u.Min)*r.Float64() }

// Mean returns (Min+Max)/2.
func (u Uniform) Mean() float64 { return (u.Min + u.Max) / 2 }

// Var returns (Max−Min)²/12.
func (u Uniform) Var() float64 { w := u.Max - u.Min; return w * w / 12 }

// Validate requires 0 ≤ Min ≤ Max < ∞.
func (u Uniform) Validate() error {
	if err := nonNegative("uniform", "min", u.Min); err != nil {
		return err
	}
	if err := nonNegative("uniform", "max", u.Max); err != nil {
		return err
	}
	if u.Max < u.Min {
		return fmt.Errorf("%w: uniform max %v must be >= min %v", ErrInvalid, u.Max, u.Min)
	}
	return nil
}
