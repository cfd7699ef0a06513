package distribution

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential is the exponential distribution with the given Rate (1/mean).
//
// Sample is the inverse transform −ln(1−U)/Rate (distuv's Quantile): one
// uniform per draw, which keeps common random numbers aligned. distuv's own
// Rand uses the ziggurat ExpFloat64, which consumes a variable number.
type Exponential struct {
	Rate float64 `json:"rate" yaml:"rate"`
}

// gonum returns the distuv Exponential with the same parameters and no source.
func (e Exponential) gonum() distuv.Exponential { return distuv.Exponential{Rate: e.Rate} }

// Sample draws one value.
func (e Exponential) Sample(r *rand.Rand) float64 { return e.gonum().Quantile(openUnit(r)) }

// Mean returns 1/Rate.
func (e Exponential) Mean() float64 { return e.gonum().Mean() }

// Var returns 1/Rate².
func (e Exponential) Var() float64 { return e.gonum().Variance() }

// CDF returns 1 − e^(−Rate·x) for x ≥ 0.
func (e Exponential) CDF(x float64) float64 { return e.gonum().CDF(x) }

// Validate requires a finite Rate > 0 large enough for a finite variance.
func (e Exponential) Validate() error {
	if err := positive("exponential", "rate", e.Rate); err != nil {
		return err
	}
	return finiteMoments(e, "exponential", fmt.Sprintf("rate %v", e.Rate))
}
