package distribution

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/fielderr"
)

// ErrInvalid is matched (errors.Is) by every validation error of this
// package, each a *fielderr.Error at kind.parameter ("exponential.rate",
// "mixture.weights[1]"), or at the kind alone for a whole distribution
// whose moments overflow.
var ErrInvalid = errors.New("invalid distribution")

// fieldErr returns an ErrInvalid *fielderr.Error at field (kind.parameter)
// rejecting value.
func fieldErr(field string, value any, limit string, args ...any) error {
	fe := fielderr.New(field, value, limit, args...)
	fe.Class = ErrInvalid
	return fe
}

// A Dist is a distribution over the non-negative reals.
type Dist interface {
	// Sample draws one value using r. The parameters must be valid
	// (Validate returns nil).
	Sample(r *rand.Rand) float64
	// Mean returns the expectation.
	Mean() float64
	// Var returns the variance.
	Var() float64
	// CDF returns P(X ≤ x).
	CDF(x float64) float64
	// Validate reports whether the parameters describe a distribution whose
	// mean, variance and second moment are finite.
	Validate() error
}

// SecondMoment returns E[X²] = Var + Mean² of d.
func SecondMoment(d Dist) float64 {
	m := d.Mean()
	return d.Var() + m*m
}

// CV2 returns the squared coefficient of variation Var/Mean² of d.
func CV2(d Dist) float64 {
	m := d.Mean()
	return d.Var() / (m * m)
}

// openUnit returns a uniform variate in (0, 1), suitable for inverse
// transforms that take a logarithm or a normal quantile of U or 1−U.
// It consumes one Float64, or more with probability 2⁻⁵³.
func openUnit(r *rand.Rand) float64 {
	for {
		if u := r.Float64(); u > 0 {
			return u
		}
	}
}

// positive reports an error unless v is a finite number > 0.
func positive(kind, field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fieldErr(kind+"."+field, v, "must be a finite number > 0")
	}
	return nil
}

// nonNegative reports an error unless v is a finite number ≥ 0.
func nonNegative(kind, field string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 1) {
		return fieldErr(kind+"."+field, v, "must be a finite number >= 0")
	}
	return nil
}

// finite reports an error unless v is a finite number.
func finite(kind, field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fieldErr(kind+"."+field, v, "must be a finite number")
	}
	return nil
}

// finiteMoments reports an error unless the mean, the variance and the
// second moment E[X²] of d are finite numbers, so that queueing formulas
// (Pollaczek–Khinchine needs E[X²]) never see an overflow. params names the
// parameters for the message, such as "rate 1e-200" or "mu 800 with sigma 1".
func finiteMoments(d Dist, kind, params string) error {
	m, v := d.Mean(), d.Var()
	for _, q := range [...]struct {
		name string
		v    float64
	}{{"mean", m}, {"variance", v}, {"second moment E[X²]", v + m*m}} {
		if math.IsNaN(q.v) || math.IsInf(q.v, 0) {
			return fieldErr(kind, nil, "%s gives %s %v, which must be finite", params, q.name, q.v)
		}
	}
	return nil
}
