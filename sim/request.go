package sim

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
// Servers receive *Request from Arrive and may keep it until they call
// Env.Finish or Env.Fail; after that the record may be reused.
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
	// Service is the service time an FCFS server drew for it, seconds
	// (0 for servers that do not draw one).
	Service float64 `json:"service,omitempty"`
	// Preemptions counts how often a batching server evicted it.
	Preemptions int `json:"preemptions,omitempty"`
	// Status is where its life ended (or InFlight/Queued at a horizon).
	Status Status `json:"-"`
	// Warmup marks the first Config.Warmup requests, which every statistic
	// leaves out.
	Warmup bool `json:"warmup,omitempty"`

	certainMiss bool // counted as a miss before it ended (StopAfterMisses)
	// Client is the closed-loop client that sent it (0 in open loops).
	Client int `json:"client,omitempty"`
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

func (r *Request) reset(id int) {
	*r = Request{ID: id, Arrival: Unset, Sent: Unset, Start: Unset, FirstToken: Unset, Done: Unset}
}

// requestStore holds request records in fixed-size pages so that pointers
// stay valid as it grows. In summary mode ended records go on a free list.
//
// When the run's request count is known and records are kept, reserve
// makes one page of exactly that size, so the records end up contiguous and
// all returns them without copying.
type requestStore struct {
	pages [][]Request
	n     int // slots handed out
	free  []*Request
}

func (s *requestStore) reserve(n int) { s.pages = [][]Request{make([]Request, n)} }

const pageSize = 4096

func (s *requestStore) alloc(id int) *Request {
	if k := len(s.free); k > 0 {
		r := s.free[k-1]
		s.free = s.free[:k-1]
		r.reset(id)
		return r
	}
	// A fresh slot is zeroed memory: set only the fields that are not zero.
	r := s.slot(s.n)
	s.n++
	r.ID = id
	r.Arrival, r.Sent, r.Start, r.FirstToken, r.Done = Unset, Unset, Unset, Unset, Unset
	return r
}

func (s *requestStore) release(r *Request) { s.free = append(s.free, r) }

// slot returns record i, adding a page when i is one past the end.
func (s *requestStore) slot(i int) *Request {
	if len(s.pages) == 1 && len(s.pages[0]) != pageSize { // reserved
		if i < len(s.pages[0]) {
			return &s.pages[0][i]
		}
		panic("sim: more requests than reserved")
	}
	if i == len(s.pages)*pageSize {
		s.pages = append(s.pages, make([]Request, pageSize))
	}
	return &s.pages[i/pageSize][i%pageSize]
}

// all returns the records in slot order (full mode: ID order).
func (s *requestStore) all() []Request {
	if len(s.pages) == 1 {
		return s.pages[0][:s.n:s.n]
	}
	out := make([]Request, 0, s.n)
	for i := 0; i < s.n; i++ {
		out = append(out, *s.slot(i))
	}
	return out
}
