package workload

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/distribution"
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("invalid workload")

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
			return fmt.Errorf("%w: clients %d must be > 0", ErrInvalid, w.Clients)
		}
		return fmt.Errorf("%w: neither arrivals (open loop) nor clients (closed loop) is set", ErrInvalid)
	case w.Arrivals != nil && w.Clients != 0:
		return fmt.Errorf("%w: both arrivals and clients %d are set; choose open or closed loop", ErrInvalid, w.Clients)
	}
	if w.Clients > MaxClients {
		return fmt.Errorf("%w: clients %d exceeds MaxClients %d (a run holds an event per client from time 0)", ErrInvalid, w.Clients, MaxClients)
	}
	if w.MaxConcurrency < 0 {
		return fmt.Errorf("%w: max_concurrency %d must be >= 0", ErrInvalid, w.MaxConcurrency)
	}
	if w.Arrivals != nil {
		if err := w.Arrivals.Validate(); err != nil {
			return err
		}
	}
	if w.Clients > 0 && w.MaxConcurrency != 0 {
		return fmt.Errorf("%w: max_concurrency %d applies to open loops; a closed loop's concurrency is clients %d", ErrInvalid, w.MaxConcurrency, w.Clients)
	}
	if w.Think != nil {
		if w.Clients == 0 {
			return fmt.Errorf("%w: think time applies to closed loops only", ErrInvalid)
		}
		if err := w.Think.Validate(); err != nil {
			return fmt.Errorf("%w: think: %w", ErrInvalid, err)
		}
	}
	if w.Lengths == nil {
		return fmt.Errorf("%w: lengths are not set", ErrInvalid)
	}
	if w.Sessions != nil {
		switch {
		case w.Arrivals == nil:
			return fmt.Errorf("%w: sessions need arrivals (session starts, an open loop)", ErrInvalid)
		case w.MaxConcurrency != 0:
			return fmt.Errorf("%w: max_concurrency %d does not apply to sessions (each session is its own closed loop)", ErrInvalid, w.MaxConcurrency)
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
		return fmt.Errorf("%w: %s %s %v must be a finite number > 0", ErrInvalid, kind, field, r)
	}
	if r < MinRate {
		return fmt.Errorf("%w: %s %s %v requests/s is below %v (one request in %.0f days): its gaps reach times where the clock's float64 seconds lose the resolution of a step; give a rate >= %v", ErrInvalid, kind, field, r, MinRate, 1/MinRate/86400, MinRate)
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
