package workload

import (
	"errors"
	"math"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
)

// ErrInvalid is matched (errors.Is) by every validation error of this
// package. Those of the Validate methods are *fielderr.Errors: Workload's
// at its own fields (clients, arrivals, max_concurrency, think, lengths,
// sessions), an arrival process's or a length law's at kind.parameter
// ("poisson.rate", "fixed.output", "empirical.pairs[3].input").
var ErrInvalid = errors.New("invalid workload")

// fieldErr returns an ErrInvalid *fielderr.Error rejecting field's value.
func fieldErr(field string, value any, limit string, args ...any) error {
	fe := fielderr.New(field, value, limit, args...)
	fe.Class = ErrInvalid
	return fe
}

// fieldIn places a lower layer's error (a distribution's) under field,
// marked ErrInvalid.
func fieldIn(field string, err error) error {
	return errmark.With(ErrInvalid, fielderr.In(field, err))
}

// Workload is a request stream: open loop when Arrivals is set, closed loop
// when Clients > 0. Exactly one of the two must be chosen.
type Workload struct {
	// Arrivals is the open-loop arrival process.
	Arrivals Process
	// MaxConcurrency caps the requests in flight of an open loop (vLLM's
	// --max-concurrency); excess requests wait in the client, FIFO, and
	// that wait is reported as client queue time. 0 means no cap.
	MaxConcurrency int
	// Clients is the number of closed-loop clients (fixed concurrency C),
	// at most MaxClients.
	Clients int
	// Think is the closed-loop think time between a completion and the
	// client's next request, seconds; nil means none.
	Think distribution.Dist
	// Lengths draws each request's (input, output) token counts (with
	// Sessions, each turn's new input tokens and output tokens).
	Lengths Lengths
	// Sessions, when set, makes the open loop one of multi-turn sessions:
	// Arrivals gives session start times and each session sends its turns
	// as a closed loop (see Sessions).
	Sessions *Sessions
}

// MaxClients is the most closed-loop clients a workload may have: every
// client's first request is an event from time 0, so a run holds one
// event per client (about 50 MB at the limit).
const MaxClients = 1_000_000

// Closed reports whether w is a closed loop.
func (w Workload) Closed() bool { return w.Clients > 0 }

// Validate checks that exactly one loop kind is chosen and that its parts
// are valid.
func (w Workload) Validate() error {
	switch {
	case w.Arrivals == nil && w.Clients <= 0:
		if w.Clients < 0 {
			return fieldErr("clients", w.Clients, "must be > 0")
		}
		return fieldErr("arrivals", nil, "neither arrivals (open loop) nor clients (closed loop) is set")
	case w.Arrivals != nil && w.Clients != 0:
		return fieldErr("clients", w.Clients, "is set beside arrivals: both arrivals and clients are set; choose open or closed loop")
	}
	if w.Clients > MaxClients {
		return fieldErr("clients", w.Clients, "exceeds MaxClients %d (a run holds an event per client from time 0)", MaxClients)
	}
	if w.MaxConcurrency < 0 {
		return fieldErr("max_concurrency", w.MaxConcurrency, "must be >= 0")
	}
	if w.Arrivals != nil {
		if err := w.Arrivals.Validate(); err != nil {
			return err
		}
	}
	if w.Clients > 0 && w.MaxConcurrency != 0 {
		return fieldErr("max_concurrency", w.MaxConcurrency, "applies to open loops; a closed loop's concurrency is clients %d", w.Clients)
	}
	if w.Think != nil {
		if w.Clients == 0 {
			return fieldErr("think", nil, "think time applies to closed loops only")
		}
		if err := w.Think.Validate(); err != nil {
			return fieldIn("think", err)
		}
	}
	if w.Lengths == nil {
		return fieldErr("lengths", nil, "are not set")
	}
	if w.Sessions != nil {
		switch {
		case w.Arrivals == nil:
			return fieldErr("sessions", nil, "need arrivals (session starts, an open loop)")
		case w.MaxConcurrency != 0:
			return fieldErr("max_concurrency", w.MaxConcurrency, "does not apply to sessions (each session is its own closed loop)")
		}
		if err := w.Sessions.Validate(); err != nil {
			return err
		}
	}
	return w.Lengths.Validate()
}

// rate checks that r is a rate in requests per second: > 0, not NaN; +Inf
// is allowed where inf is (all requests at time 0).
func rate(kind, field string, r float64, infOK bool) error {
	if !(r > 0) || (!infOK && math.IsInf(r, 1)) {
		return fieldErr(kind+"."+field, r, "must be a finite number > 0")
	}
	if r < MinRate {
		return fieldErr(kind+"."+field, r, "requests/s is below %v (one request in %.0f days): its gaps reach times where the clock's float64 seconds lose the resolution of a step; give a rate >= %v", MinRate, 1/MinRate/86400, MinRate)
	}
	return nil
}

// MinRate is the smallest arrival rate a process accepts, requests per
// second: a mean gap of 10^6 s (11.6 days). Slower rates put arrivals at
// times where float64 seconds no longer resolve a decode step (at
// 10^13 s one ulp is 2 ms), which would turn latencies into zeros.
const MinRate = 1e-6

// MaxTime is the latest simulated time, seconds: 2^32 s (136 years),
// where one float64 ulp is 2^-20 s (about 1 µs), still far below a step.
// A run whose arrivals reach past it is an input error.
const MaxTime = 1 << 32
