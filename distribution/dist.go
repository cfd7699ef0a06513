package distribution

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("invalid distribution")

// A Dist is a distribution over the non-negative reals.
type Dist interface {
	// Sample draws one value using r.
	Sample(r *rand.Rand) float64
	// Mean returns the expectation.
	Mean() float64
	// Var returns the variance.
	Var() float64
	// Validate reports whether the parameters describe a distribution.
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

// uniformOpen returns a uniform variate in (0, 1), suitable for inverse
// transforms that take a logarithm or a normal quantile.
func uniformOpen(r *rand.Rand) float64 {
	// Float64 is in [0, 1); 1-u is in (0, 1].  Reject the single value 1.
	for {
		u := 1 - r.Float64()
		if u < 1 {
			return u
		}
	}
}

// positive reports an error unless v is a finite number > 0.
func positive(kind, field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%w: %s %s %v must be a finite number > 0", ErrInvalid, kind, field, v)
	}
	return nil
}

// nonNegative reports an error unless v is a finite number ≥ 0.
func nonNegative(kind, field string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%w: %s %s %v must be a finite number >= 0", ErrInvalid, kind, field, v)
	}
	return nil
}
