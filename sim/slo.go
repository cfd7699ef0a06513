package sim

import (
	"fmt"
	"math"
)

// SLO is a per-request service-level objective: every configured bound must
// hold (≤ passes) for the request to count as good. A zero bound is not
// configured. Bounds are in seconds.
//
// Requests with one output token have no TPOT; they pass the TPOT bound, as
// in vLLM's --goodput (which scores their TPOT as 0). Failed and rejected
// requests never pass.
type SLO struct {
	TTFT float64 `json:"ttft,omitempty" yaml:"ttft,omitempty"`
	TPOT float64 `json:"tpot,omitempty" yaml:"tpot,omitempty"`
	E2E  float64 `json:"e2el,omitempty" yaml:"e2el,omitempty"`
}

// Set reports whether any bound is configured.
func (s SLO) Set() bool { return s.TTFT > 0 || s.TPOT > 0 || s.E2E > 0 }

// Validate requires each bound to be a finite number ≥ 0.
func (s SLO) Validate() error {
	for _, b := range []struct {
		name string
		v    float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2el", s.E2E}} {
		if !(b.v >= 0) || math.IsInf(b.v, 1) {
			return fmt.Errorf("%w: slo %s %v must be a finite number of seconds >= 0", ErrInvalidConfig, b.name, b.v)
		}
	}
	return nil
}

// Passes reports whether a completed request meets every configured bound.
func (s SLO) Passes(r *Request) bool {
	if r.Status != Completed {
		return false
	}
	if s.TTFT > 0 && r.TTFT() > s.TTFT {
		return false
	}
	if s.E2E > 0 && r.E2E() > s.E2E {
		return false
	}
	if s.TPOT > 0 {
		if tpot, ok := r.TPOT(); ok && tpot > s.TPOT {
			return false
		}
	}
	return true
}

// violatedBy reports whether a request still in flight at time now has
// already missed a bound, so that it is a certain miss: its TTFT or E2E
// can only grow.
func (s SLO) violatedBy(r *Request, now float64) bool {
	if r.Sent < 0 {
		return false
	}
	age := now - r.Sent
	if s.E2E > 0 && age > s.E2E {
		return true
	}
	return s.TTFT > 0 && r.FirstToken < 0 && age > s.TTFT
}
