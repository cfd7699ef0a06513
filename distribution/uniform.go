package distribution

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Uniform is the continuous uniform distribution on [Min, Max).
//
// Sample is the inverse transform Min + (Max−Min)·U (distuv's Quantile):
// one uniform per draw.
type Uniform struct {
	Min float64 `json:"min" yaml:"min"`
	Max float64 `json:"max" yaml:"max"`
}

// gonum returns the distuv Uniform with the same parameters and no source.
func (u Uniform) gonum() distuv.Uniform { return distuv.Uniform{Min: u.Min, Max: u.Max} }

// Sample draws one value.
func (u Uniform) Sample(r *rand.Rand) float64 { return u.gonum().Quantile(r.Float64()) }

// Mean returns (Min+Max)/2.
func (u Uniform) Mean() float64 { return u.gonum().Mean() }

// Var returns (Max−Min)²/12.
func (u Uniform) Var() float64 { return u.gonum().Variance() }

// CDF returns (x−Min)/(Max−Min) clamped to [0, 1]; with Min = Max it is the
// step at Min.
func (u Uniform) CDF(x float64) float64 {
	if x >= u.Max {
		return 1
	}
	return u.gonum().CDF(x)
}

// Validate requires 0 ≤ Min ≤ Max < ∞ with a finite variance.
func (u Uniform) Validate() error {
	if err := nonNegative("uniform", "min", u.Min); err != nil {
		return err
	}
	if err := nonNegative("uniform", "max", u.Max); err != nil {
		return err
	}
	if u.Max < u.Min {
		return fieldErr("uniform.max", u.Max, "must be >= min %v", u.Min)
	}
	return finiteMoments(u, "uniform", fmt.Sprintf("max %v with min %v", u.Max, u.Min))
}
