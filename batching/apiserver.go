package batching

import (
	"math"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// APIServer is the serving frontend's own process as one CPU that does its
// work in the order it arrives. vLLM's OpenAI-compatible server (`vllm
// serve`) is one Python process running one asyncio loop, unless
// --api-server-count raises it (vllm-project/vllm#12705, #17546): it
// validates and tokenises every request before the engine sees it, and
// turns every output token into a streamed chunk before the client sees
// it. The engine core runs in its own process and does not wait for it,
// so when the frontend's work outruns its CPU the engine keeps stepping
// while requests reach it later and tokens reach the clients later:
// TTFT, TPOT, ITL and E2E grow, and a closed loop's clients resend later.
//
// The zero value is no such server: the frontend costs only its fixed
// per-request delay (Config.RequestOverhead and the profile's
// FrontendOverhead), as many requests at once as arrive. All times are
// seconds of the frontend's CPU; each field must be finite and >= 0.
type APIServer struct {
	// PerRequest is the CPU time to take one request in before its
	// tokens are counted (HTTP, validation, the chat template).
	PerRequest float64 `json:"per_request_s,omitempty" yaml:"per_request_s,omitempty"`
	// PerPromptToken is the tokenisation time of one prompt token.
	PerPromptToken float64 `json:"per_prompt_token_s,omitempty" yaml:"per_prompt_token_s,omitempty"`
	// PerOutputToken is the time to detokenise and stream one output
	// token to its client.
	PerOutputToken float64 `json:"per_output_token_s,omitempty" yaml:"per_output_token_s,omitempty"`
}

// IsZero reports whether s models no API server process.
func (s APIServer) IsZero() bool { return s == APIServer{} }

// validate names the first field that is not a finite time >= 0.
func (s APIServer) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"api_server.per_request_s", s.PerRequest}, {"api_server.per_prompt_token_s", s.PerPromptToken}, {"api_server.per_output_token_s", s.PerOutputToken}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return fielderr.New(f.name, f.v, "must be a finite number of seconds >= 0")
		}
	}
	return nil
}

// delivery is a first token or an end that the API server hands its client
// at time t.
type delivery struct {
	t     float64
	r     *metrics.Request
	first bool // the first token; else the end
}

// frontend is one engine's API server: the time its CPU is next free, and
// the first tokens and ends it has yet to hand to their clients, in the
// order it hands them (its times never decrease).
type frontend struct {
	APIServer
	free    float64
	pending event.Ring[delivery]
	onHand  event.Handler
}

// serve queues work seconds of CPU arriving at now and returns when it is
// done.
func (f *frontend) serve(now, work float64) float64 {
	f.free = max(f.free, now) + work
	return f.free
}

// ingest returns when request r, arriving at now, leaves the API server
// for the engine.
func (f *frontend) ingest(now float64, r *metrics.Request) float64 {
	return f.serve(now, f.PerRequest+f.PerPromptToken*float64(r.Input))
}

// emit returns when n output tokens the engine produced at now reach
// their clients.
func (f *frontend) emit(now float64, n int) float64 {
	return f.serve(now, f.PerOutputToken*float64(n))
}

// visible returns when the n tokens the engine emits at now reach their
// clients: now without an API server.
func (e *engine) visible(now float64, n int) float64 {
	if e.api == nil {
		return now
	}
	return e.api.emit(now, n)
}

// chunkTokensSeen returns when the clients see the tokens of the prefill
// chunks that complete in the step ending now (their first tokens, or a
// resumed request's next): one streamed batch, like a decode step's.
func (e *engine) chunkTokensSeen(now float64) float64 {
	if e.api == nil {
		return now
	}
	n := 0
	for _, ch := range e.chunks {
		q := ch.q
		if q.computed+ch.tokens >= q.target && (e.handoff == nil || q.generated > 0) {
			n++
		}
	}
	return e.api.emit(now, n)
}

// firstTokenAt hands r its first token at t (>= now).
func (e *engine) firstTokenAt(r *metrics.Request, t float64) { e.deliver(delivery{t, r, true}) }

// finishAt ends r at t (>= now) for its client.
func (e *engine) finishAt(r *metrics.Request, t float64) { e.deliver(delivery{t, r, false}) }

// deliver gives d to its client now when nothing is queued before it,
// else queues it behind what is.
func (e *engine) deliver(d delivery) {
	if e.api == nil || d.t <= e.env.Now() && e.api.pending.Len() == 0 {
		e.give(d)
		return
	}
	e.hand(d)
}

// give tells the run of d's first token or end, now.
func (e *engine) give(d delivery) {
	if d.first {
		e.env.FirstToken(d.r)
	} else {
		e.env.Finish(d.r)
	}
}

// hand queues d, scheduling a hand-over at its time unless one is due
// then already.
func (e *engine) hand(d delivery) {
	p := &e.api.pending
	if p.Len() == 0 || p.At(p.Len()-1).t != d.t {
		e.env.Schedule(d.t, event.Normal, e.api.onHand, 0)
	}
	p.Push(d)
}

// handOver gives the clients what the API server has finished by now.
func (e *engine) handOver(int64) {
	p := &e.api.pending
	now := e.env.Now()
	for p.Len() > 0 && p.Peek().t <= now {
		e.give(p.Pop())
	}
}
