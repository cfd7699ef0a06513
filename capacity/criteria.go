package capacity

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// ErrInvalid is wrapped by every configuration error of this package.
var ErrInvalid = errors.New("invalid capacity config")

// Criteria is the acceptance rule for one run at a target rate: joint SLO
// attainment ≥ Target (failed and rejected requests count as misses), the
// failure rate ≤ MaxFailureRate, the actual send rate within RateTolerance
// of the target, and no sustained queue growth.
type Criteria struct {
	// SLO holds the per-request bounds (any subset of TTFT, TPOT, E2E).
	SLO metrics.SLO `json:"slo" yaml:"slo"`
	// Target is the attainment q a run must reach, in (0, 1].
	Target float64 `json:"target" yaml:"target"`
	// MaxFailureRate is ε: the largest share of failed or rejected requests
	// a passing run may have, in [0, 1].
	MaxFailureRate float64 `json:"max_failure_rate" yaml:"max_failure_rate"`
	// RateTolerance is the largest relative gap between the actual send
	// rate and the rate the arrival process realised in the run that a
	// passing run may have. Random arrivals of any burstiness never fail
	// it; a client that could not keep up — a max_concurrency cap holding
	// requests back — does.
	RateTolerance float64 `json:"rate_tolerance" yaml:"rate_tolerance"`
}

// DefaultCriteria returns q = target, ε = 0.1% and a 5% rate tolerance for
// the given SLO.
func DefaultCriteria(slo metrics.SLO, target float64) Criteria {
	return Criteria{SLO: slo, Target: target, MaxFailureRate: 0.001, RateTolerance: 0.05}
}

// Validate checks the fields and names the first bad one.
func (c Criteria) Validate() error {
	if err := c.SLO.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	switch {
	case !c.SLO.Set():
		return fmt.Errorf("%w: slo sets no bound; set ttft, tpot or e2el", ErrInvalid)
	case !(c.Target > 0 && c.Target <= 1):
		return fmt.Errorf("%w: target %v must be in (0, 1]", ErrInvalid, c.Target)
	case !(c.MaxFailureRate >= 0 && c.MaxFailureRate <= 1):
		return fmt.Errorf("%w: max_failure_rate %v must be in [0, 1]", ErrInvalid, c.MaxFailureRate)
	case !(c.RateTolerance >= 0) || math.IsInf(c.RateTolerance, 1):
		return fmt.Errorf("%w: rate_tolerance %v must be a finite number >= 0", ErrInvalid, c.RateTolerance)
	}
	return nil
}

// Verdict is the judgement of one run.
type Verdict struct {
	// Seed and Replication identify the run.
	Seed        uint64 `json:"seed"`
	Replication int    `json:"replication"`
	// Pass is true when every criterion holds.
	Pass bool `json:"pass"`
	// Attainment, FailureRate and SendRate are the run's measurements.
	Attainment  float64 `json:"attainment"`
	FailureRate float64 `json:"failure_rate"`
	SendRate    float64 `json:"send_rate"`
	// Unstable is the run's queue-growth verdict.
	Unstable bool `json:"unstable"`
	// StoppedBy is the run's early-stop reason, if any.
	StoppedBy sim.StopReason `json:"stopped_by,omitempty"`
	// Requests is the number of requests the run simulated.
	Requests int `json:"requests"`
	// Reasons lists each failed criterion, empty when Pass.
	Reasons []string `json:"reasons,omitempty"`
}

// Judge applies the criteria to a run whose target rate was rate
// (requests per second). It is the one acceptance rule: servesim run,
// capacity, plan and the report all judge a run by it (JudgeRecord for a
// run read back from its JSON).
func (c Criteria) Judge(res *sim.Result, rate float64) Verdict {
	return c.judge(RecordOf(res), rate)
}

func (c Criteria) judge(res Record, rate float64) Verdict {
	v := Verdict{
		Seed: res.Seed, Replication: res.Replication,
		Attainment: res.Attainment, FailureRate: res.FailureRate(), SendRate: res.SendRate,
		Unstable: res.Stability.Unstable, StoppedBy: res.StoppedBy, Requests: res.Injected,
	}
	var why []string
	if res.StoppedBy == sim.StopSLOMisses {
		why = append(why, fmt.Sprintf("more than %.4g%% of requests missed the SLO (stopped early)", 100*(1-c.Target)))
	} else if res.Attainment < c.Target {
		why = append(why, fmt.Sprintf("attainment %.4f < target %.4f", res.Attainment, c.Target))
	}
	if v.FailureRate > c.MaxFailureRate {
		why = append(why, fmt.Sprintf("failure rate %.4f > %.4f", v.FailureRate, c.MaxFailureRate))
	}
	if a := res.ArrivalRate; a > 0 && !math.IsInf(rate, 1) && res.StoppedBy == sim.StopNone {
		if gap := math.Abs(res.SendRate-a) / a; gap > c.RateTolerance {
			why = append(why, fmt.Sprintf("send rate %.4g req/s falls %.1f%% short of the arrival rate %.4g (target %.4g) > %.1f%%: the client held requests back",
				res.SendRate, 100*gap, a, rate, 100*c.RateTolerance))
		}
	}
	if res.Stability.Unstable {
		why = append(why, "unstable: "+res.Stability.Reason)
	}
	v.Pass = len(why) == 0
	v.Reasons = why
	return v
}

// String returns "PASS" or "FAIL (reasons)".
func (v Verdict) String() string {
	if v.Pass {
		return "PASS"
	}
	return "FAIL (" + strings.Join(v.Reasons, "; ") + ")"
}
