package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// LogNormal is the distribution of exp(Mu + Sigma·Z) with Z standard normal:
// median e^Mu.
//
// Sample is the inverse transform exp(Mu + Sigma·Φ⁻¹(1−U)) (distuv's
// Quantile at 1−U): one uniform per draw. distuv's own Rand uses the
// ziggurat NormFloat64, which consumes a variable number. A larger U gives
// a smaller draw, the opposite of Exponential; the direction is kept so that
// seeded runs reproduce earlier results.
type LogNormal struct {
	Mu    float64 `json:"mu" yaml:"mu"`
	Sigma float64 `json:"sigma" yaml:"sigma"`
}

// LogNormalMeanCV returns the LogNormal with the given mean and coefficient
// of variation.
func LogNormalMeanCV(mean, cv float64) LogNormal {
	s2 := math.Log1p(cv * cv)
	return LogNormal{Mu: math.Log(mean) - s2/2, Sigma: math.Sqrt(s2)}
}

// gonum returns the distuv LogNormal with the same parameters and no source.
func (l LogNormal) gonum() distuv.LogNormal { return distuv.LogNormal{Mu: l.Mu, Sigma: l.Sigma} }

// Sample draws one value.
func (l LogNormal) Sample(r *rand.Rand) float64 { return l.gonum().Quantile(1 - openUnit(r)) }

// Mean returns exp(Mu + Sigma²/2).
func (l LogNormal) Mean() float64 { return l.gonum().Mean() }

// Var returns (exp(Sigma²) − 1)·exp(2Mu + Sigma²). It is computed here with
// Expm1, not by distuv, whose exp(Sigma²) − 1 loses the digits of a small
// Sigma.
func (l LogNormal) Var() float64 {
	s2 := l.Sigma * l.Sigma
	return math.Expm1(s2) * math.Exp(2*l.Mu+s2)
}

// CDF returns Φ((ln x − Mu)/Sigma) for x > 0 and 0 for x ≤ 0; with Sigma
// 0 it is the step at e^Mu.
func (l LogNormal) CDF(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case l.Sigma == 0:
		return Deterministic{Value: math.Exp(l.Mu)}.CDF(x)
	}
	return l.gonum().CDF(x)
}

// Validate requires a finite Mu and a finite Sigma ≥ 0 that give a finite
// mean and variance.
func (l LogNormal) Validate() error {
	if err := finite("lognormal", "mu", l.Mu); err != nil {
		return err
	}
	if err := nonNegative("lognormal", "sigma", l.Sigma); err != nil {
		return err
	}
	return finiteMoments(l, "lognormal", fmt.Sprintf("mu %v with sigma %v", l.Mu, l.Sigma))
}
