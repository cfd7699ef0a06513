package fleet

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// Pool is one deployment type of the fleet: an engine replica (GPU, TP,
// engine settings), the policy that sizes it, and what a GPU of it costs
// and draws. Start from NewPool, which fills in the default price and
// power of the engine's GPU.
type Pool struct {
	Name   string          `json:"name" yaml:"name"`
	Engine batching.Config `json:"engine" yaml:"engine"`
	Policy Policy          `json:"policy" yaml:"policy"`
	// Price is dollars per GPU-hour.
	Price float64 `json:"price" yaml:"price"`
	// Power is one GPU's power model.
	Power Power `json:"power" yaml:"power"`
}

// NewPool returns a pool of engine sized by policy, at the GPU's default
// price (DefaultPrice) and power (DefaultPower).
func NewPool(name string, engine batching.Config, policy Policy) (Pool, error) {
	g := engine.Deployment.GPU.Name
	price, err := DefaultPrice(g)
	if err != nil {
		return Pool{}, err
	}
	pw, err := DefaultPower(g)
	if err != nil {
		return Pool{}, err
	}
	return Pool{Name: name, Engine: engine, Policy: policy, Price: price, Power: pw}, nil
}

// Validate checks the pool's fields.
func (p Pool) Validate() error {
	if p.Name == "" {
		return invalidf("pool name is empty")
	}
	if err := p.Engine.Validate(); err != nil {
		return wrap("pool "+p.Name, err)
	}
	if p.Engine.Deployment.DP > 1 {
		return invalidf("pool %s dp %d: a fleet replica must have dp 1", p.Name, p.Engine.Deployment.DP)
	}
	if err := p.Policy.Validate(); err != nil {
		return wrap("pool "+p.Name, err)
	}
	if !(p.Price >= 0) || math.IsInf(p.Price, 1) {
		return invalidf("pool %s price %v $/GPU-hour must be a finite number >= 0", p.Name, p.Price)
	}
	return wrap("pool "+p.Name, p.Power.Validate())
}

// Fleet is one or more pools behind one router, which sends each request
// to the ready, not draining, replica holding the fewest requests (ties
// to the first pool, then the oldest replica). Requests that arrive with
// no replica ready wait in the router.
type Fleet struct {
	Pools   []Pool      `json:"pools" yaml:"pools"`
	Startup Startup     `json:"startup" yaml:"startup"`
	SLO     metrics.SLO `json:"slo" yaml:"slo"`
}

// MaxPools bounds Fleet.Pools.
const MaxPools = 64

// Validate checks every pool, the start-up times and the SLO.
func (f Fleet) Validate() error {
	if len(f.Pools) == 0 || len(f.Pools) > MaxPools {
		return invalidf("fleet has %d pools: give 1 to %d", len(f.Pools), MaxPools)
	}
	seen := map[string]bool{}
	for _, p := range f.Pools {
		if err := p.Validate(); err != nil {
			return err
		}
		if seen[p.Name] {
			return invalidf("pool name %q is used twice", p.Name)
		}
		seen[p.Name] = true
	}
	if err := f.Startup.Validate(); err != nil {
		return err
	}
	return wrap("slo", f.SLO.Validate())
}

// EventKind names a change of a replica's state.
type EventKind string

// Event kinds.
const (
	Start  EventKind = "start"  // asked for: billed from now, serving after its start-up
	Ready  EventKind = "ready"  // serving
	Drain  EventKind = "drain"  // no new requests; stops when its last one ends
	Stop   EventKind = "stop"   // released: billing ends
	Cancel EventKind = "cancel" // released before it was ready
)

// Event is one change of the fleet, with its reason.
type Event struct {
	Time    float64   `json:"time"`
	Pool    string    `json:"pool"`
	Replica int       `json:"replica"` // index in the pool, in start order
	Kind    EventKind `json:"kind"`
	// Replicas is the pool's count after the event: starting plus ready
	// (draining replicas are not counted).
	Replicas int    `json:"replicas"`
	Reason   string `json:"reason"`
}

type state uint8

const (
	starting state = iota
	ready
	draining
	stopped
)

// rep is one replica of a pool and its bill.
type rep struct {
	f     *server
	pool  *poolState
	id    int
	r     *batching.Replica
	st    state
	start float64 // billed from
	up    float64 // ready from (math.Inf until then)
	stop  float64 // billed until (math.Inf while up)
	// utilDt is Σ util·dt of its steps by report bucket, seconds.
	utilDt []float64
	busy   float64
	// Routing: the requests it holds, its order (pool, then start), and
	// its slot in the router (-1 when not ready).
	held int
	seq  int64
	slot int
}

// Step is the probe's step: the utilisation-seconds go to the buckets the
// step spans.
func (r *rep) Step(dt, util float64) {
	now := r.f.env.Now()
	r.busy += dt
	if t := r.f.trace; t != nil {
		*t = append(*t, UtilSample{Pool: r.pool.cfg.Name, Replica: r.id, Start: now, Duration: dt, Util: util})
	}
	B := r.f.bucket
	end := min(now+dt, r.f.span) // the bill and the energy stop at the span
	for i := int(now / B); i < len(r.utilDt); i++ {
		lo, hi := max(now, float64(i)*B), min(end, float64(i+1)*B)
		if hi > lo {
			r.utilDt[i] += util * (hi - lo)
		}
		if end <= float64(i+1)*B {
			break
		}
	}
}

// Ended is the probe's end of a request.
func (r *rep) Ended(q *metrics.Request, completed bool) {
	r.held--
	r.f.route.changed(r)
	r.f.ended(r.pool, q, completed)
	if r.st == draining && r.r.Outstanding() == 0 {
		r.f.stopRep(r, "drained")
	}
}

// poolState is a pool during a run.
type poolState struct {
	cfg   Pool
	idx   int
	reps  []*rep
	delay float64 // start-up seconds
	track *tracker
	gpus  int
	// queue-time accumulators for the current period
	qSum float64
	qN   int
	// stats are the engine counters of its stopped replicas, one list
	// each, kept when they stop (their engines are dropped).
	stats [][]metrics.Stat
}

// count returns the replicas starting or ready.
func (p *poolState) count() (nReady, current int) {
	for _, r := range p.reps {
		switch r.st {
		case ready:
			nReady++
			current++
		case starting:
			current++
		}
	}
	return nReady, current
}

// server is the fleet during one run (a sim.Server).
type server struct {
	cfg    Fleet
	env    *sim.Env
	pools  []*poolState
	bucket float64
	nb     int // report buckets
	span   float64
	hours  []hourAcc
	events []Event
	held   event.Ring[*metrics.Request] // no replica ready
	trace  *[]UtilSample
	route  router
	seqs   int64

	onReady, onControl, onSchedule event.Handler
	readyQ                         []*rep // by arg index
}

type hourAcc struct {
	arrived, completed, rejected, good int64
	outTokens                          int64
	ttft, tpot                         *metrics.Sample
}

// UtilSample is one recorded step (Options.RecordSteps), for checks.
type UtilSample struct {
	Pool            string
	Replica         int
	Start, Duration float64
	Util            float64
}

func newServer(f Fleet, env *sim.Env, span, bucket float64) (*server, error) {
	s := &server{cfg: f, env: env, bucket: bucket, span: span}
	s.nb = int(math.Ceil(span/bucket - 1e-9))
	s.hours = make([]hourAcc, s.nb)
	for i := range s.hours {
		s.hours[i].ttft = metrics.NewSummarySample()
		s.hours[i].tpot = metrics.NewSummarySample()
	}
	s.onReady = s.ready
	s.onControl = s.control
	s.onSchedule = s.scheduleStep
	for i, p := range f.Pools {
		ps := &poolState{cfg: p, idx: i, gpus: p.Engine.GPUs()}
		ps.delay = f.Startup.Delay(weightBytes(p.Engine))
		s.pools = append(s.pools, ps)
		for range p.Policy.initial() {
			r, err := s.newRep(ps)
			if err != nil {
				return nil, err
			}
			r.st, r.up = ready, 0
			s.route.add(r)
			s.event(r, Ready, "initial fleet")
		}
		switch p.Policy.Kind {
		case TargetTracking:
			ps.track = &tracker{p: p.Policy}
			if p.Policy.Period < span {
				env.Schedule(p.Policy.Period, event.Normal, s.onControl, int64(i))
			}
		case Scheduled:
			for k, st := range p.Policy.Schedule[1:] {
				if st.At < span {
					env.Schedule(st.At, event.Normal, s.onSchedule, int64(i)<<32|int64(k+1))
				}
			}
		}
	}
	return s, nil
}

func (s *server) newRep(p *poolState) (*rep, error) {
	s.seqs++
	r := &rep{f: s, pool: p, id: len(p.reps), seq: int64(p.idx)<<40 | s.seqs, slot: -1, start: s.env.Now(), stop: math.Inf(1), up: math.Inf(1), utilDt: make([]float64, s.nb)}
	br, err := batching.NewReplica(p.cfg.Engine, s.env, fmt.Sprintf("%s/%d", p.cfg.Name, r.id), r)
	if err != nil {
		return nil, err
	}
	r.r = br
	p.reps = append(p.reps, r)
	return r, nil
}

func (s *server) event(r *rep, k EventKind, reason string) {
	_, cur := r.pool.count()
	s.events = append(s.events, Event{Time: s.env.Now(), Pool: r.pool.cfg.Name, Replica: r.id, Kind: k, Replicas: cur, Reason: reason})
}

// Arrive routes r (sim.Server).
func (s *server) Arrive(r *metrics.Request) {
	if b := int(r.Sent / s.bucket); b < s.nb {
		s.hours[b].arrived++
	}
	if t := s.route.best(); t != nil {
		s.send(t, r)
		return
	}
	s.held.Push(r)
}

// send routes r to replica t.
func (s *server) send(t *rep, r *metrics.Request) {
	t.held++
	s.route.changed(t)
	t.r.Arrive(r)
}

func (s *server) ended(p *poolState, q *metrics.Request, completed bool) {
	now := s.env.Now()
	b := int(q.Sent / s.bucket)
	var h *hourAcc
	if b < s.nb {
		h = &s.hours[b]
	}
	if !completed {
		if h != nil {
			h.rejected++
		}
		return
	}
	if q.Start >= 0 {
		p.qSum += q.Start - q.Sent
		p.qN++
	}
	if h == nil {
		return
	}
	h.completed++
	h.outTokens += int64(q.Output)
	c := *q
	c.Done, c.Status = now, metrics.Completed
	h.ttft.Add(c.TTFT())
	if v, ok := c.TPOT(); ok {
		h.tpot.Add(v)
	}
	if s.cfg.SLO.Passes(&c) {
		h.good++
	}
}

// scale moves pool p to n replicas (starting plus ready) for reason.
func (s *server) scale(p *poolState, n int, reason string) {
	_, cur := p.count()
	for ; cur < n; cur++ {
		r, err := s.newRep(p)
		if err != nil {
			s.env.Abort(err)
			return
		}
		s.event(r, Start, reason)
		s.readyQ = append(s.readyQ, r)
		s.env.Schedule(s.env.Now()+p.delay, event.Normal, s.onReady, int64(len(s.readyQ)-1))
	}
	// Down: the newest first, starting ones before ready ones.
	for i := len(p.reps) - 1; i >= 0 && cur > n; i-- {
		if r := p.reps[i]; r.st == starting {
			r.st, r.stop, r.r = stopped, s.env.Now(), nil
			cur--
			s.event(r, Cancel, reason)
		}
	}
	for i := len(p.reps) - 1; i >= 0 && cur > n; i-- {
		if r := p.reps[i]; r.st == ready {
			r.st = draining
			s.route.remove(r)
			cur--
			s.event(r, Drain, reason)
			if r.r.Outstanding() == 0 {
				s.stopRep(r, "idle")
			}
		}
	}
}

func (s *server) stopRep(r *rep, reason string) {
	r.st, r.stop = stopped, s.env.Now()
	r.pool.stats = append(r.pool.stats, r.r.Stats())
	r.r = nil // its engine holds nothing more: memory follows the replicas up
	s.event(r, Stop, reason)
}

func (s *server) ready(k int64) {
	r := s.readyQ[k]
	s.readyQ[k] = nil
	if r.st != starting {
		return // cancelled
	}
	r.st, r.up = ready, s.env.Now()
	s.route.add(r)
	s.event(r, Ready, fmt.Sprintf("started in %.4g s", s.env.Now()-r.start))
	for s.held.Len() > 0 {
		s.send(s.route.best(), s.held.Pop())
	}
}

func (s *server) control(i int64) {
	p := s.pools[i]
	pol := p.cfg.Policy
	rd, cur := p.count()
	var sum float64
	for _, r := range p.reps {
		if r.st != ready {
			continue
		}
		switch pol.Metric {
		case Running:
			sum += float64(r.r.Running())
		case Waiting:
			sum += float64(r.r.Waiting())
		case InFlight:
			sum += float64(r.r.Outstanding())
		case KVUsage:
			sum += r.r.KVUsage()
		}
	}
	if pol.Metric == QueueTime {
		if p.qN > 0 {
			sum = float64(rd) * p.qSum / float64(p.qN)
		}
		p.qSum, p.qN = 0, 0
	}
	n, why := p.track.decide(s.env.Now(), sum, rd, cur)
	if n != cur {
		s.scale(p, n, why)
	}
	if next := s.env.Now() + pol.Period; next < s.span {
		s.env.Schedule(next, event.Normal, s.onControl, i)
	}
}

func (s *server) scheduleStep(arg int64) {
	p := s.pools[arg>>32]
	k := int(arg & (1<<32 - 1))
	st := p.cfg.Policy.Schedule[k]
	s.scale(p, st.Replicas, fmt.Sprintf("schedule step %d at %g s: %d replicas", k, st.At, st.Replicas))
}

// GPUs reports the GPUs of the initial fleet (sim.GPUCounter).
func (s *server) GPUs() int {
	n := 0
	for _, p := range s.pools {
		n += p.gpus * p.cfg.Policy.initial()
	}
	return max(n, 1)
}

// weightBytes returns the bytes a replica loads at start-up: its weights
// on every rank; 0 for a model-free engine (StepTime and KVBlocks set).
func weightBytes(c batching.Config) float64 {
	if c.StepTime != nil && c.Deployment.Model.Layers == 0 {
		return 0
	}
	return c.Deployment.WeightBytesPerRank() * float64(c.Deployment.TP)
}
