package fleet

import (
	"fmt"
	"math"
)

// PolicyKind names how a pool's replica count is chosen.
type PolicyKind string

// Policies.
const (
	// Fixed keeps Policy.Replicas replicas all day.
	Fixed PolicyKind = "fixed"
	// Scheduled sets the count to each Policy.Schedule step's Replicas at
	// its time (a cron-style schedule, as KEDA's cron scaler).
	Scheduled PolicyKind = "schedule"
	// TargetTracking is the Kubernetes HPA's rule on a vLLM metric (as
	// KEDA's Prometheus scaler feeds it): every Period seconds, with S the
	// metric summed over the pool's ready replicas, the recommendation is
	//
	//	desired = ⌈S / Target⌉
	//
	// (the HPA's ⌈current × average / target⌉ with starting replicas
	// counted at 0), or the current count when S / (Target × current) is
	// within Tolerance of 1. A rise takes the smallest recommendation of
	// the last UpWindow seconds, a fall the largest of the last
	// DownWindow seconds (the HPA's stabilisation windows), and the result
	// is clamped to [Min, Max]. The HPA's rate limits (pods or percent
	// per period) are not modelled.
	TargetTracking PolicyKind = "target"
)

// Metric names what TargetTracking tracks, per ready replica.
type Metric string

// Metrics, after vLLM's Prometheus gauges.
const (
	// Running is vllm:num_requests_running.
	Running Metric = "running"
	// Waiting is vllm:num_requests_waiting.
	Waiting Metric = "waiting"
	// InFlight is running plus waiting.
	InFlight Metric = "in-flight"
	// KVUsage is vllm:kv_cache_usage_perc, as a fraction in [0, 1].
	KVUsage Metric = "kv-usage"
	// QueueTime is the mean time, seconds, the pool's requests that ended
	// in the last period waited before their first step (the mean of
	// vllm:request_queue_time_seconds over the period).
	QueueTime Metric = "queue-time"
)

// HPA defaults (Kubernetes horizontal pod autoscaler): a 15 s sync
// period, a 10% tolerance, no scale-up stabilisation and 300 s of
// scale-down stabilisation.
const (
	DefaultPeriod     = 15.0
	DefaultTolerance  = 0.1
	DefaultUpWindow   = 0.0
	DefaultDownWindow = 300.0
)

// Step is one step of a schedule: Replicas from At seconds on.
type Step struct {
	At       float64 `json:"at" yaml:"at"`
	Replicas int     `json:"replicas" yaml:"replicas"`
}

// Policy chooses a pool's replica count over the day. Fields apply to the
// kind that names them.
type Policy struct {
	Kind PolicyKind `json:"kind" yaml:"kind"`
	// Replicas is Fixed's count.
	Replicas int `json:"replicas,omitempty" yaml:"replicas,omitempty"`
	// Schedule is Scheduled's steps, by time; the first must be at 0.
	Schedule []Step `json:"schedule,omitempty" yaml:"schedule,omitempty"`
	// TargetTracking: the metric, its target per replica, the period and
	// windows in seconds, the tolerance, and the limits. The pool starts
	// the day with Min replicas ready.
	Metric     Metric  `json:"metric,omitempty" yaml:"metric,omitempty"`
	Target     float64 `json:"target,omitempty" yaml:"target,omitempty"`
	Period     float64 `json:"period,omitempty" yaml:"period,omitempty"`
	Tolerance  float64 `json:"tolerance,omitempty" yaml:"tolerance,omitempty"`
	UpWindow   float64 `json:"up_window,omitempty" yaml:"up_window,omitempty"`
	DownWindow float64 `json:"down_window,omitempty" yaml:"down_window,omitempty"`
	Min        int     `json:"min,omitempty" yaml:"min,omitempty"`
	Max        int     `json:"max,omitempty" yaml:"max,omitempty"`
}

// MaxReplicas bounds any pool's replica count.
const MaxReplicas = 10_000

// Target returns a TargetTracking policy on metric m at target per
// replica, with the HPA's defaults and limits [min, max].
func Target(m Metric, target float64, min, max int) Policy {
	return Policy{Kind: TargetTracking, Metric: m, Target: target, Period: DefaultPeriod,
		Tolerance: DefaultTolerance, UpWindow: DefaultUpWindow, DownWindow: DefaultDownWindow, Min: min, Max: max}
}

// Validate checks the fields of the policy's kind.
func (p Policy) Validate() error {
	count := func(field string, n int) error {
		if n < 0 || n > MaxReplicas {
			return invalidf("policy %s %d must be in [0, %d]", field, n, MaxReplicas)
		}
		return nil
	}
	seconds := func(field string, v float64, positive bool) error {
		if !(v >= 0) || math.IsInf(v, 1) || (positive && v == 0) {
			lim := ">= 0"
			if positive {
				lim = "> 0"
			}
			return invalidf("policy %s %v s must be a finite number %s", field, v, lim)
		}
		return nil
	}
	switch p.Kind {
	case Fixed:
		if p.Replicas < 1 {
			return invalidf("policy replicas %d must be >= 1 for a fixed fleet", p.Replicas)
		}
		return count("replicas", p.Replicas)
	case Scheduled:
		if len(p.Schedule) == 0 || p.Schedule[0].At != 0 {
			return invalidf("policy schedule must start with a step at 0 s")
		}
		for i, s := range p.Schedule {
			if err := count(fmt.Sprintf("schedule[%d] replicas", i), s.Replicas); err != nil {
				return err
			}
			if err := seconds(fmt.Sprintf("schedule[%d] at", i), s.At, false); err != nil {
				return err
			}
			if i > 0 && !(s.At > p.Schedule[i-1].At) {
				return invalidf("policy schedule[%d] at %v s must be after schedule[%d] at %v s", i, s.At, i-1, p.Schedule[i-1].At)
			}
		}
		return nil
	case TargetTracking:
		switch p.Metric {
		case Running, Waiting, InFlight, KVUsage, QueueTime:
		default:
			return invalidf("policy metric %q must be %q, %q, %q, %q or %q", p.Metric, Running, Waiting, InFlight, KVUsage, QueueTime)
		}
		if !(p.Target > 0) || math.IsInf(p.Target, 1) {
			return invalidf("policy target %v must be a finite number > 0", p.Target)
		}
		if p.Metric == KVUsage && p.Target > 1 {
			return invalidf("policy target %v for %q must be a fraction in (0, 1]", p.Target, KVUsage)
		}
		for _, f := range []struct {
			name string
			v    float64
			pos  bool
		}{{"period", p.Period, true}, {"up_window", p.UpWindow, false}, {"down_window", p.DownWindow, false}} {
			if err := seconds(f.name, f.v, f.pos); err != nil {
				return err
			}
		}
		if !(p.Tolerance >= 0 && p.Tolerance < 1) {
			return invalidf("policy tolerance %v must be in [0, 1)", p.Tolerance)
		}
		if p.Min < 1 {
			return invalidf("policy min %d must be >= 1", p.Min)
		}
		if err := count("max", p.Max); err != nil {
			return err
		}
		if p.Max < p.Min {
			return invalidf("policy max %d must be >= min %d", p.Max, p.Min)
		}
		return nil
	}
	return invalidf("policy kind %q must be %q, %q or %q", p.Kind, Fixed, Scheduled, TargetTracking)
}

// initial returns the replicas the pool starts the day with, ready.
func (p Policy) initial() int {
	switch p.Kind {
	case Fixed:
		return p.Replicas
	case Scheduled:
		return p.Schedule[0].Replicas
	}
	return p.Min
}

// rec is one recommendation of a target-tracking policy.
type rec struct {
	t float64
	n int
}

// tracker is a target-tracking policy's state: its recommendations of
// the last max(UpWindow, DownWindow) seconds.
type tracker struct {
	p    Policy
	hist []rec
}

// decide returns the new count from the metric sum s over the ready
// replicas at time t, with current replicas (ready and starting), and
// the reason.
func (k *tracker) decide(t, s float64, ready, current int) (int, string) {
	p := k.p
	n := current
	if ready > 0 {
		ratio := s / (p.Target * float64(current))
		if math.Abs(ratio-1) > p.Tolerance {
			n = int(math.Ceil(s/p.Target - 1e-9))
		}
	}
	n = min(max(n, p.Min), p.Max)
	k.hist = append(k.hist, rec{t, n})
	keep := max(p.UpWindow, p.DownWindow)
	i := 0
	for i < len(k.hist) && k.hist[i].t < t-keep {
		i++
	}
	k.hist = k.hist[i:]
	out := n
	switch {
	case n > current:
		out = n
		for _, r := range k.hist {
			if r.t >= t-p.UpWindow {
				out = min(out, r.n)
			}
		}
		out = max(out, current)
	case n < current:
		out = n
		for _, r := range k.hist {
			if r.t >= t-p.DownWindow {
				out = max(out, r.n)
			}
		}
		out = min(out, current)
	}
	return out, fmt.Sprintf("%s %.4g over %d ready (target %.4g each): recommend %d, stabilised %d", p.Metric, s, ready, p.Target, n, out)
}
