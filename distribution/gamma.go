package distribution

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Gamma is the gamma distribution with the given Shape k and Rate β, so
// mean k/β and variance k/β². Shape 1 is the exponential distribution;
// shape < 1 is burstier (CV > 1), shape > 1 more regular.
//
// Sample is distuv's Gamma.Rand: Marsaglia and Tsang's rejection method
// for k ≥ 0.2 and Liu, Martin and Syring's for smaller k, exponential
// variates for k = 1. It consumes a variable number of random numbers.
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

// gonum returns the distuv Gamma with the same parameters and no source.
func (g Gamma) gonum() distuv.Gamma { return distuv.Gamma{Alpha: g.Shape, Beta: g.Rate} }

// Sample draws one value, passing r to distuv as its source; like
// distuv, it panics if Shape or Rate is ≤ 0.
func (g Gamma) Sample(r *rand.Rand) float64 {
	d := g.gonum()
	d.Src = r
	return d.Rand()
}

// StandardGamma draws from Gamma(shape, 1) as Gamma.Sample does. shape
// must be a finite number > 0.
func StandardGamma(r *rand.Rand, shape float64) float64 {
	return distuv.Gamma{Alpha: shape, Beta: 1, Src: r}.Rand()
}

// Mean returns Shape/Rate.
func (g Gamma) Mean() float64 { return g.gonum().Mean() }

// Var returns Shape/Rate².
func (g Gamma) Var() float64 { return g.gonum().Variance() }

// CDF returns the regularised lower incomplete gamma function P(Shape, Rate·x),
// clamped to [0, 1]: gonum's exceeds 1 for shapes below about 1e-300
// (2.5e14 at Shape 4.4e-323, x = 1), where the true value is 1 within
// rounding.
func (g Gamma) CDF(x float64) float64 { return min(max(g.gonum().CDF(x), 0), 1) }

// Validate requires finite Shape > 0 and Rate > 0 that give a finite mean
// and variance.
func (g Gamma) Validate() error {
	if err := positive("gamma", "shape", g.Shape); err != nil {
		return err
	}
	if err := positive("gamma", "rate", g.Rate); err != nil {
		return err
	}
	return finiteMoments(g, "gamma", fmt.Sprintf("shape %v with rate %v", g.Shape, g.Rate))
}
