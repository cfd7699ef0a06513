package metrics

import (
	"errors"
	"math"

	"github.com/servesim/servesim/fielderr"
)

// SLO is a per-request service-level objective: every configured bound must
// hold (≤ passes) for the request to count as good. A zero bound is not
// configured. Bounds are in seconds.
//
// Requests with one output token have no TPOT; they pass the TPOT bound, as
// in vLLM's --goodput (which scores their TPOT as 0). Failed and rejected
// requests never pass.
//
// By default TTFT and E2E are measured from the send, as vLLM measures
// them. IncludeClientQueue measures them from the scheduled arrival
// instead, so the time a max_concurrency cap held a request in the client
// counts against the bounds: the user's view behind backpressure.
type SLO struct {
	TTFT               float64 `json:"ttft,omitempty" yaml:"ttft,omitempty"`
	TPOT               float64 `json:"tpot,omitempty" yaml:"tpot,omitempty"`
	E2E                float64 `json:"e2el,omitempty" yaml:"e2el,omitempty"`
	IncludeClientQueue bool    `json:"include_client_queue,omitempty" yaml:"include_client_queue,omitempty"`
}

// ErrInvalidSLO is matched (errors.Is) by SLO.Validate's errors, each a
// *fielderr.Error at the bound's field (ttft, tpot, e2el).
var ErrInvalidSLO = errors.New("invalid slo")

// Set reports whether any bound is configured.
func (s SLO) Set() bool { return s.TTFT > 0 || s.TPOT > 0 || s.E2E > 0 }

// Validate requires each bound to be a finite number ≥ 0.
func (s SLO) Validate() error {
	for _, b := range []struct {
		name string
		v    float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2el", s.E2E}} {
		if !(b.v >= 0) || math.IsInf(b.v, 1) {
			fe := fielderr.New(b.name, b.v, "must be a finite number of seconds >= 0")
			fe.Class = ErrInvalidSLO
			return fe
		}
	}
	return nil
}

// Passes reports whether a completed request meets every configured bound.
func (s SLO) Passes(r *Request) bool {
	if r.Status != Completed {
		return false
	}
	var cq float64
	if s.IncludeClientQueue {
		cq = r.ClientQueueTime()
	}
	if s.TTFT > 0 && r.TTFT()+cq > s.TTFT {
		return false
	}
	if s.E2E > 0 && r.E2E()+cq > s.E2E {
		return false
	}
	if s.TPOT > 0 {
		if tpot, ok := r.TPOT(); ok && tpot > s.TPOT {
			return false
		}
	}
	return true
}

// ViolatedBy reports whether a request still in flight when the run
// stopped at time now has already missed a bound, so that it is a certain
// miss: its TTFT and E2E can only grow past their current age (every event
// at or before now has fired, so it ends after now), and its TPOT is at
// least (now − FirstToken)/(Output − 1).
func (s SLO) ViolatedBy(r *Request, now float64) bool {
	start := s.Origin(r)
	if start < 0 {
		return false
	}
	age := now - start
	switch {
	case s.E2E > 0 && age >= s.E2E:
		return true
	case s.TTFT > 0 && r.FirstToken < 0 && age >= s.TTFT:
		return true
	case s.TPOT > 0 && r.FirstToken >= 0 && r.Output > 1:
		return (now-r.FirstToken)/float64(r.Output-1) > s.TPOT
	}
	return false
}

// Origin returns the time TTFT and E2E bounds are measured from.
func (s SLO) Origin(r *Request) float64 {
	if s.IncludeClientQueue {
		return r.Arrival
	}
	return r.Sent
}
