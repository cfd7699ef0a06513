package distribution

import (
	"math"
	"math/rand/v2"
)

// Gamma is the gamma distribution with the given Shape k and Rate β, so
// mean k/β and variance k/β². Shape 1 is the exponential distribution;
// shape < 1 is burstier (CV > 1), shape > 1 more regular.
//
// Sample uses Marsaglia and Tsang's method ("A simple method for generating
// gamma variables", ACM TOMS 26(3), 2000), boosted by U^(1/k) for k < 1.
type Gamma struct {
	Shape float64 `json:"shape" yaml:"shape"`
	Rate  float64 `json:"rate" yaml:"rate"`
}

// GammaMeanCV returns the Gamma distribution with the given mean and
// coefficient of variation (CV² = 1/Shape).
func GammaMeanCV(mean, cv float64) Gamma {
	k := 1 / (cv * cv)
	return Gamma{Shape: k, Rate: k / mean}
}

// Sample draws one value.
func (g Gamma) Sample(r *rand.Rand) float64 {
	return StandardGamma(r, g.Shape) / g.Rate
}

// StandardGamma draws from Gamma(shape, 1). shape must be > 0.
func StandardGamma(r *rand.Rand, shape float64) float64 {
	boost := 1.0
	if shape < 1 {
		// X·U^(1/k) ~ Gamma(k) when X ~ Gamma(k+1).
		boost = math.Pow(uniformOpen(r), 1/shape)
		shape++
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := uniformOpen(r)
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}

// Mean returns Shape/Rate.
func (g Gamma) Mean() float64 { return g.Shape / g.Rate }

// Var returns Shape/Rate².
func (g Gamma) Var() float64 { return g.Shape / (g.Rate * g.Rate) }

// Validate requires finite Shape > 0 and Rate > 0.
func (g Gamma) Validate() error {
	if err := positive("gamma", "shape", g.Shape); err != nil {
		return err
	}
	return positive("gamma", "rate", g.Rate)
}
