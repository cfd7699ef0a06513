package sim

import (
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// Env is a run's world as a server sees it: the clock and the event
// queue, random streams, and the calls that record a request's
// milestones. It holds only the run's engine and the rest of the run,
// which a server reaches through these methods alone.
type Env struct {
	eng *event.Engine // the run's clock and event queue
	run *run
}

// Now returns the simulated time in seconds.
func (e *Env) Now() float64 { return e.eng.Now() }

// Schedule arranges fn(arg) at time t ≥ Now() with priority p.
func (e *Env) Schedule(t float64, p event.Priority, fn event.Handler, arg int64) {
	e.eng.Schedule(t, p, fn, arg)
}

// NewTimer makes an event slot outside the event heap that runs fn, for a
// source with at most one event pending at a time (a server's departure,
// say): SetTimer then costs no heap push and pop, and the event fires in
// exactly the order Schedule would give it (event.Engine.NewTimer). Call
// it when the server is built, and keep a server's timers few (a
// handful): every step scans the armed ones.
func (e *Env) NewTimer(fn event.Handler) event.Timer { return e.eng.NewTimer(fn) }

// SetTimer arranges timer k's handler to run with arg at time t ≥ Now()
// with priority p, replacing its pending event if it has one.
func (e *Env) SetTimer(k event.Timer, t float64, p event.Priority, arg int64) {
	e.eng.SetTimer(k, t, p, arg)
}

// FastForward lets a server handle its own next event, due at time t, at
// once instead of scheduling it, when that event would fire next anyway:
// t is before every pending event and within the horizon, and the run is
// not stopping. It then moves the clock to t, counts the event as fired,
// and returns true; otherwise it changes nothing and returns false.
func (e *Env) FastForward(t float64) bool { return e.run.fastForward(t) }

// Seed returns the run's seed. A server draws its random numbers from
// streams of its own under it, event.NewStream(env.Seed(), name), made
// once at setup (not per event).
func (e *Env) Seed() uint64 { return e.run.cfg.Seed }

// Start records that the server first scheduled work of r now. Later calls
// (after a preemption, say) keep the first time.
func (e *Env) Start(r *metrics.Request) { e.run.markStart(r) }

// FirstToken records that r's first output token left the server now.
func (e *Env) FirstToken(r *metrics.Request) { e.run.firstToken(r) }

// Tokens records n inter-token latencies of gap seconds each: one per
// decoding, measured (non-warm-up) request that received a token in an
// engine step, the gap being the time since its previous token. Pooling a
// step's tokens in one call keeps ITL statistics O(steps), not O(tokens).
func (e *Env) Tokens(gap float64, n int) { e.run.tokens(gap, n) }

// Abort ends the run at once; Run returns err (wrapped with the time)
// instead of a result. Servers use it when the model they were given
// produces an impossible value mid-run, such as a non-positive step time.
func (e *Env) Abort(err error) { e.run.abort(err) }

// Finish records that r completed now. The server must not touch r after.
func (e *Env) Finish(r *metrics.Request) { e.run.end(r, metrics.Completed) }

// Reject records that the server refused r on arrival.
func (e *Env) Reject(r *metrics.Request) { e.run.end(r, metrics.Rejected) }

// Content returns r's content: its tokens' identities as the workload
// described them (metrics.Span), for servers that cache prefixes. It is
// nil when the workload gave none, and then r shares no tokens with any
// other request. It is valid from r's arrival until r ends (Finish, Fail,
// Reject); the server must not modify it. The measurement side never
// reads it.
func (e *Env) Content(r *metrics.Request) []metrics.Span { return e.run.content[r.ID] }
