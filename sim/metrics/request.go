package metrics

// Unset marks a request time that has not happened yet.
const Unset = -1.0

// Status is where a request's life ended, or that it has not.
type Status uint8

// Request statuses.
const (
	// Queued: generated but waiting in the client (max_concurrency cap).
	Queued Status = iota
	// InFlight: sent to the server and not finished.
	InFlight
	// Completed: all output tokens returned.
	Completed
	// Failed: the server gave up on the request (for example a prompt that
	// can never fit its KV cache).
	Failed
	// Rejected: the server refused it on arrival (for example a full queue).
	Rejected
)

var statusNames = [...]string{"queued", "in_flight", "completed", "failed", "rejected"}

// String returns the lower-case name used in JSON.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// Ended reports whether s is final.
func (s Status) Ended() bool { return s >= Completed }

// A Request is one request's record. Times are seconds of simulated time;
// Unset (−1) until they happen. The invariant
// Arrival ≤ Sent ≤ Start ≤ FirstToken ≤ Done holds for completed requests.
//
// A record holds only what every server has: per-request state of one
// kind of server (a drawn service time, a preemption count) lives in that
// server. Servers receive *Request on arrival and may keep it until they
// report its end; after that the record may be reused. A record holds no
// pointers (its content, if any, lives in the run: sim.Env.Content), so a
// run's records cost the garbage collector nothing to scan.
type Request struct {
	// ID is the request's index in arrival (open loop) or send (closed
	// loop) order, from 0.
	ID int `json:"id"`
	// Input and Output are the prompt and response lengths in tokens.
	Input  int `json:"input_tokens"`
	Output int `json:"output_tokens"`
	// Arrival is the scheduled arrival (open loop) or send time (closed loop).
	Arrival float64 `json:"arrival"`
	// Sent is when the client sent it: Arrival, or later when a
	// max_concurrency cap held it in the client.
	Sent float64 `json:"sent"`
	// Start is when the server first scheduled any of its work.
	Start float64 `json:"start"`
	// FirstToken is when its first output token left the server.
	FirstToken float64 `json:"first_token"`
	// Done is when it completed, failed or was rejected.
	Done float64 `json:"done"`
	// Status is where its life ended (or InFlight/Queued at a horizon).
	Status Status `json:"-"`
	// Warmup marks the warm-up requests (the first ones by arrival), which
	// every statistic leaves out.
	Warmup bool `json:"warmup,omitempty"`
	// Client is the closed-loop client that sent it (0 in open loops), or
	// the session it belongs to in a workload of sessions.
	Client int `json:"client,omitempty"`
}

// A Span is a run of Tokens tokens with one identity: token k of a span
// with ID x is the same token as token k of any other span with ID x, in
// this request or another. A request's content (sim.Env.Content) describes
// its tokens for servers that cache prefixes; it lives beside the record,
// not in it, so that records hold no pointers (the garbage collector need
// not scan a run's records). The content lists the request's spans in order,
// covering its prompt and possibly its output; tokens past the last span
// are the request's own. Two requests share a prefix of n tokens exactly
// when their first n tokens are equal in this sense.
type Span struct {
	ID     uint64
	Tokens int
}

// TTFT returns FirstToken − Sent.
func (r *Request) TTFT() float64 { return r.FirstToken - r.Sent }

// E2E returns Done − Sent (vLLM's e2el).
func (r *Request) E2E() float64 { return r.Done - r.Sent }

// QueueTime returns Start − Sent: time at the server before any work.
func (r *Request) QueueTime() float64 { return r.Start - r.Sent }

// ClientQueueTime returns Sent − Arrival: time held in the client.
func (r *Request) ClientQueueTime() float64 { return r.Sent - r.Arrival }

// TPOT returns (E2E − TTFT)/(Output − 1) and true, or 0 and false when
// Output ≤ 1 (TPOT is undefined there and left out of TPOT statistics).
func (r *Request) TPOT() (float64, bool) {
	if r.Output <= 1 {
		return 0, false
	}
	return (r.Done - r.FirstToken) / float64(r.Output-1), true
}

// Reset makes r a fresh record of request id with every time Unset.
func (r *Request) Reset(id int) {
	*r = Request{ID: id, Arrival: Unset, Sent: Unset, Start: Unset, FirstToken: Unset, Done: Unset}
}
