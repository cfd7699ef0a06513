package capacity

import (
	"fmt"

	"github.com/servesim/servesim/workload"
)

// WithRate returns p with its rate set to rate (requests per second). It
// supports the stationary processes whose rate is one number: Poisson,
// Gamma and Constant.
func WithRate(p workload.Process, rate float64) (workload.Process, error) {
	switch a := p.(type) {
	case workload.Poisson:
		a.Rate = rate
		return a, nil
	case workload.Gamma:
		a.Rate = rate
		return a, nil
	case workload.Constant:
		a.Rate = rate
		return a, nil
	case nil:
		return nil, fmt.Errorf("%w: the workload has no arrival process: a capacity search needs an open loop", ErrInvalid)
	default:
		return nil, fmt.Errorf("%w: cannot set the rate of a %T arrival process (want Poisson, Gamma or Constant)", ErrInvalid, p)
	}
}
