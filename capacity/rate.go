package capacity

import (
	"fmt"

	"github.com/servesim/servesim/workload"
)

// WithRate returns p with its rate set to rate (requests per second). The
// process must implement workload.RateSetter, as Poisson, Gamma and
// Constant do; a user's own process opts in the same way.
func WithRate(p workload.Process, rate float64) (workload.Process, error) {
	switch a := p.(type) {
	case nil:
		return nil, fmt.Errorf("%w: the workload has no arrival process: a capacity search needs an open loop", ErrInvalid)
	case workload.RateSetter:
		return a.WithRate(rate), nil
	default:
		return nil, fmt.Errorf("%w: cannot set the rate of a %T arrival process: it does not implement workload.RateSetter (Poisson, Gamma and Constant do)", ErrInvalid, p)
	}
}
