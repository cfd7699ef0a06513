package distribution

import (
	"math"
	"math/rand/v2"
)

// Exponential is the exponential distribution with the given Rate (1/mean).
// Sample uses the inverse transform −ln(U)/Rate: one uniform per draw.
type Exponential struct {
	Rate float64 `json:"rate" yaml:"rate"`
}

// Sample draws one value.
func (e Exponential) Sample(r *rand.Rand) float64 { return -math.Log(uniformOpen(r)) / e.Rate }

// Mean returns 1/Rate.
func (e Exponential) Mean() float64 { return 1 / e.Rate }

// Var returns 1/Rate².
func (e Exponential) Var() float64 { return 1 / (e.Rate * e.Rate) }

// Validate requires a finite Rate > 0.
func (e Exponential) Validate() error { return positive("exponential", "rate", e.Rate) }
