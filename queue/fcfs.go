// Package queue provides first-come-first-served multi-server queues as
// sim servers: the textbook G/G/c station that queueing theory has exact
// answers for, and the baseline the batching engine reduces to.
//
// FCFS(c) keeps one FIFO line in front of c identical servers. A request's
// service time is drawn (from the "service" stream, in arrival order) when
// it arrives, from a distribution or a function of its (input, output)
// lengths; it starts on the first free server. Start times therefore equal
// the Lindley recursion for c = 1 and the Kiefer–Wolfowitz recursion for
// c > 1 on the same arrival and service sequences — the package's tests
// check both, request by request.
package queue

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// ErrInvalid is matched (errors.Is) by every validation error of this
// package, each a *fielderr.Error at an FCFS field (servers, service,
// queue_cap).
var ErrInvalid = errors.New("invalid queue")

// fieldErr returns an ErrInvalid *fielderr.Error rejecting field's value.
func fieldErr(field string, value any, limit string, args ...any) error {
	fe := fielderr.New(field, value, limit, args...)
	fe.Class = ErrInvalid
	return fe
}

// A ServiceFunc returns a request's service split in two: first is the time
// from start to its first output token, total the time from start to its
// completion (total ≥ first ≥ 0), seconds. A cost model serving one request
// alone gives prefill(L) and prefill(L) + (O−1) decode steps.
type ServiceFunc func(input, output int) (first, total float64)

// FCFS is a first-come-first-served station with Servers identical servers
// and one unbounded (or QueueCap-bounded) line.
//
// Exactly one of Service and ServiceOf must be set. With Service the whole
// response leaves at completion (first token = completion, no ITL; a plain
// queueing model); with ServiceOf the first token leaves after `first` and
// the remaining Output−1 tokens are spread evenly until `total`.
type FCFS struct {
	// Servers is the number of servers c ≥ 1.
	Servers int `json:"servers" yaml:"servers"`
	// Service is the service-time distribution, seconds. An interface
	// value cannot be decoded from JSON or YAML, so it carries no tags:
	// scenario files spell it as a spec string (scenario.ParseDist).
	Service distribution.Dist `json:"-" yaml:"-"`
	// ServiceOf computes the service from the request's lengths.
	ServiceOf ServiceFunc `json:"-" yaml:"-"`
	// QueueCap bounds the waiting line (not counting requests in service);
	// an arrival that finds it full is rejected. 0 means unbounded.
	QueueCap int `json:"queue_cap,omitempty" yaml:"queue_cap,omitempty"`
}

// Validate checks the configuration and names the bad field.
func (f FCFS) Validate() error {
	if f.Servers < 1 {
		return fieldErr("servers", f.Servers, "must be >= 1")
	}
	if (f.Service == nil) == (f.ServiceOf == nil) {
		return fieldErr("service", nil, "fcfs needs exactly one of service (a distribution) and service_of (a function)")
	}
	if f.Service != nil {
		if err := f.Service.Validate(); err != nil {
			return errmark.With(ErrInvalid, fielderr.In("service", err))
		}
	}
	if f.QueueCap < 0 {
		return fieldErr("queue_cap", f.QueueCap, "must be >= 0 (0 means unbounded)")
	}
	return nil
}

// Utilization returns the offered load ρ = λ·E[S]/c at arrival rate λ
// (requests per second), or NaN when the service is a function.
func (f FCFS) Utilization(rate float64) float64 {
	if f.Service == nil {
		return math.NaN()
	}
	return rate * f.Service.Mean() / float64(f.Servers)
}

// NewServer builds a fresh station for one run.
func (f FCFS) NewServer(env *sim.Env) (sim.Server, error) {
	return newStation(f, env, f.Servers <= maxTimed)
}

// maxTimed is the most servers whose events go on timers (sim.Env.NewTimer,
// one per server) rather than on the event heap: a server has at most one
// event pending (its first token or its departure), so a timer saves a
// heap push and pop per event, while the engine scans the armed timers at
// each step, which stays cheaper than the heap only for a few.
const maxTimed = 4

// newStation builds a station; timed puts its events on timers. Both ways
// fire the same events in the same order (TestTimedIsExact).
func newStation(f FCFS, env *sim.Env, timed bool) (*station, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	s := &station{cfg: f, env: env, free: f.Servers, rng: event.NewStream(env.Seed(), "service")}
	s.onDepart = s.depart
	s.onFirst = s.first
	s.inService = make([]*metrics.Request, 0, f.Servers)
	if timed {
		s.timers = make([]event.Timer, f.Servers)
		for i := range s.timers {
			s.timers[i] = env.NewTimer(s.onTimer)
		}
	}
	return s, nil
}

type station struct {
	cfg       FCFS
	env       *sim.Env
	rng       *rand.Rand
	free      int
	line      event.Ring[waiting]
	inService []*metrics.Request // slot i holds the request whose events carry arg i
	slots     []int              // free indices into inService
	firstAt   []float64          // per slot: total − first, to spread tokens
	timers    []event.Timer      // per slot when its events go on timers, else nil
	onDepart  event.Handler
	onFirst   event.Handler
	served    int
}

// after arranges slot's next event d seconds from now: its first token
// when first is set, else its departure.
func (s *station) after(slot int, d float64, first bool) {
	if s.timers != nil {
		// One timer per slot, its arg the slot and the event's kind.
		arg := int64(slot) << 1
		if first {
			arg |= 1
		}
		s.env.SetTimer(s.timers[slot], s.env.Now()+d, event.Normal, arg)
		return
	}
	h := s.onDepart
	if first {
		h = s.onFirst
	}
	s.env.Schedule(s.env.Now()+d, event.Normal, h, int64(slot))
}

// onTimer fires a slot timer's event (after's arg: slot<<1 | first).
func (s *station) onTimer(arg int64) {
	if arg&1 != 0 {
		s.first(arg >> 1)
		return
	}
	s.depart(arg >> 1)
}

// waiting is a request in the line with the service time drawn for it on
// arrival (0 with ServiceOf).
type waiting struct {
	r       *metrics.Request
	service float64
}

// Arrive draws the request's service time (in arrival order, from the
// "service" stream) and starts it or puts it in the line.
func (s *station) Arrive(r *metrics.Request) {
	var service float64
	if s.cfg.Service != nil {
		service = s.cfg.Service.Sample(s.rng)
	}
	if s.free > 0 {
		s.free--
		s.begin(r, service)
		return
	}
	if s.cfg.QueueCap > 0 && s.line.Len() >= s.cfg.QueueCap {
		s.env.Reject(r)
		return
	}
	s.line.Push(waiting{r, service})
}

func (s *station) begin(r *metrics.Request, service float64) {
	s.env.Start(r)
	var slot int
	if k := len(s.slots); k > 0 {
		slot = s.slots[k-1]
		s.slots = s.slots[:k-1]
		s.inService[slot] = r
	} else {
		slot = len(s.inService)
		s.inService = append(s.inService, r)
		s.firstAt = append(s.firstAt, 0)
	}
	if s.cfg.ServiceOf == nil {
		s.after(slot, service, false)
		return
	}
	first, total := s.cfg.ServiceOf(r.Input, r.Output)
	first = math.Max(first, 0)
	total = math.Max(total, first)
	s.firstAt[slot] = total - first
	s.after(slot, first, true)
}

// first fires when a ServiceOf request's first token leaves.
func (s *station) first(slot int64) {
	r := s.inService[slot]
	s.env.FirstToken(r)
	s.after(int(slot), s.firstAt[slot], false)
}

func (s *station) depart(slot int64) {
	r := s.inService[slot]
	if s.cfg.ServiceOf != nil && !r.Warmup && r.Output > 1 {
		// The remaining tokens were spread evenly; record their gaps at
		// completion, so a run cut by a horizon leaves them out as vLLM
		// leaves out unfinished requests.
		s.env.Tokens(s.firstAt[slot]/float64(r.Output-1), r.Output-1)
	}
	s.inService[slot] = nil
	s.slots = append(s.slots, int(slot))
	s.served++
	s.env.Finish(r)
	if s.line.Len() > 0 {
		w := s.line.Pop()
		s.begin(w.r, w.service)
		return
	}
	s.free++
}

// Stats reports the requests served and the final line length.
func (s *station) Stats() []metrics.Stat {
	return []metrics.Stat{{Name: "served", Value: float64(s.served)}, {Name: "waiting_at_end", Value: float64(s.line.Len())}}
}
