package distribution

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// LogNormal is the distribution of exp(Mu + Sigma·Z) with Z standard normal:
// median e^Mu. Sample uses the inverse normal CDF: one uniform per draw.
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

// Sample draws one value.
func (l LogNormal) Sample(r *rand.Rand) float64 {
	return math.Exp(l.Mu + l.Sigma*mathext.NormalQuantile(uniformOpen(r)))
}

// Mean returns exp(Mu + Sigma²/2).
func (l LogNormal) Mean() float64 { return math.Exp(l.Mu + l.Sigma*l.Sigma/2) }

// Var returns (exp(Sigma²) − 1)·exp(2Mu + Sigma²).
func (l LogNormal) Var() float64 {
	s2 := l.Sigma * l.Sigma
	return math.Expm1(s2) * math.Exp(2*l.Mu+s2)
}

// Validate requires a finite Mu and a finite Sigma ≥ 0.
func (l LogNormal) Validate() error {
	if math.IsNaN(l.Mu) || math.IsInf(l.Mu, 0) {
		return fmt.Errorf("%w: lognormal mu %v must be finite", ErrInvalid, l.Mu)
	}
	return nonNegative("lognormal", "sigma", l.Sigma)
}
