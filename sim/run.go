package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// ErrInvalidConfig matches (errors.Is) every configuration error of Run,
// Replicate and RunAll, including those of the workload, the server and
// the SLO, whose own sentinels match too.
var ErrInvalidConfig = errors.New("invalid config")

func invalid(err error) error { return errmark.With(ErrInvalidConfig, err) }

func invalidf(format string, args ...any) error {
	return invalid(fmt.Errorf(format, args...))
}

// fieldErr returns an ErrInvalidConfig *fielderr.Error rejecting field's
// value (Config.Validate's errors).
func fieldErr(field string, value any, limit string, args ...any) error {
	return invalid(fielderr.New(field, value, limit, args...))
}

// A Server serves requests inside one run. It learns of each request by
// Arrive, schedules its own events on the Env, and reports milestones back
// through Env.Start, Env.FirstToken, Env.Tokens, Env.Finish and Env.Reject.
// A server must not call Arrive-triggering code re-entrantly: Env delivers
// every arrival from its own event.
type Server interface {
	Arrive(r *metrics.Request)
}

// A ServerConfig describes a server. NewServer builds a fresh one for each
// run, so one ServerConfig value can drive parallel replications; it must
// not be mutated while runs use it.
type ServerConfig interface {
	Validate() error
	NewServer(env *Env) (Server, error)
}

// A StatsReporter is a Server that reports its own counters (preemptions,
// KV-cache usage, MBU, ...) at the end of a run. Names are snake_case JSON
// field names; the order is kept.
type StatsReporter interface {
	Stats() []metrics.Stat
}

// A SeriesReporter is a Server that keeps time series of its counters;
// Result.Series carries them.
type SeriesReporter interface {
	Series() []*metrics.Series
}

// A GPUCounter is a Server that says how many GPUs it occupies, for
// per-GPU goodput. Servers that are not GPUCounters count as one.
type GPUCounter interface {
	GPUs() int
}

// Config is one run: a workload, a server, a seed and a stop rule.
type Config struct {
	// Workload is the request stream.
	Workload workload.Workload
	// Server describes the server; a fresh one is built for the run.
	Server ServerConfig
	// Seed determines every random stream of the run (NewStream).
	Seed uint64
	// Requests is the number of requests to inject, warm-up included; the
	// run then drains until every one has ended. 0 means no limit, and
	// then Horizon must be set.
	Requests int
	// Warmup is the number of first requests (by arrival) left out of every
	// statistic. It must be < Requests when Requests is set.
	Warmup int
	// Horizon stops the run at this simulated time, seconds; requests still
	// in flight are counted as such. 0 means no horizon.
	Horizon float64
	// SLO sets the per-request bounds for attainment and goodput.
	SLO metrics.SLO
	// SummaryOnly keeps moments and quantile sketches instead of every
	// value and request record, so memory is O(requests in the system)
	// rather than O(Requests). Percentiles are then within
	// metrics.DefaultSketchAccuracy (relative).
	SummaryOnly bool
	// MaxInSystem ends the run early, as unstable, when the requests sent
	// but not finished plus those held in the client reach it. 0 means
	// the default: no cap when Requests bounds the run, and when only
	// Horizon does, 100,000 or ten times the closed loop's clients,
	// whichever is more (defaultMaxInSystem): a stable queue's backlog
	// stays far below it, and an overloaded one is stopped within a few
	// hundred thousand arrivals, in well under 100 MB, instead of growing
	// until the horizon.
	MaxInSystem int
	// StopAfterMisses, when > 0, ends the run as soon as that many measured
	// requests have certainly missed the SLO: ended ones that missed or
	// failed, and ones still waiting past the TTFT bound for their first
	// token (or, without a TTFT bound, past the E2E bound). An acceptance
	// test that needs attainment ≥ q over n requests has failed for certain
	// once more than (1−q)·n have missed, so a capacity search stops there
	// instead of simulating the rest. Result.StoppedBy is then
	// StopSLOMisses.
	StopAfterMisses int
	// Percentiles lists the percentiles the JSON result reports for each
	// latency metric; empty means metrics.DefaultPercentiles().
	Percentiles []float64
	// TokenSteps keeps the times at which measured requests received
	// tokens (one entry per engine step), so Result.TokenGaps can give
	// each request's inter-token gaps, as vLLM's --save-detailed itls.
	// It costs one float per step; it needs records (not SummaryOnly).
	TokenSteps bool
	// NoITL leaves the inter-token latencies unrecorded, Result.ITL
	// empty; every other result is the same. For runs judged or
	// summarised without them (a capacity search's probes: attainment
	// counts TTFT, TPOT and E2E), which then do less work a step.
	NoITL bool
}

// AddPercentile adds p to c.Percentiles when missing, keeping them
// sorted (the list is copied, never changed in place). An empty list
// becomes [p] alone.
func (c *Config) AddPercentile(p float64) {
	if slices.Contains(c.Percentiles, p) {
		return
	}
	c.Percentiles = append(slices.Clone(c.Percentiles), p)
	slices.Sort(c.Percentiles)
}

// Validate checks the configuration and names the first bad field. Its
// own fields' errors are *fielderr.Errors (requests, horizon, warmup,
// max_in_system, stop_after_misses, percentiles[i], server, and slo.<bound>
// for the SLO's); the workload's and the server's are theirs. All match
// ErrInvalidConfig.
func (c Config) Validate() error {
	if err := c.Workload.Validate(); err != nil {
		return invalid(err)
	}
	if c.Server == nil {
		return fieldErr("server", nil, "is not set")
	}
	if err := c.Server.Validate(); err != nil {
		return invalid(err)
	}
	switch {
	case c.Requests < 0:
		return fieldErr("requests", c.Requests, "must be >= 0")
	case !(c.Horizon >= 0) || math.IsInf(c.Horizon, 1):
		return fieldErr("horizon", c.Horizon, "must be a finite number of seconds >= 0")
	case c.Requests == 0 && c.Horizon == 0:
		return fieldErr("requests", 0, "and horizon 0 leave the run unbounded: set a request count or a horizon")
	case c.Warmup < 0:
		return fieldErr("warmup", c.Warmup, "must be >= 0")
	case c.Requests > 0 && c.Warmup >= c.Requests:
		return fieldErr("warmup", c.Warmup, "must be < requests %d", c.Requests)
	case c.MaxInSystem < 0:
		return fieldErr("max_in_system", c.MaxInSystem, "must be >= 0")
	case c.StopAfterMisses < 0:
		return fieldErr("stop_after_misses", c.StopAfterMisses, "must be >= 0")
	}
	if c.Workload.Arrivals != nil && c.Requests == 0 && math.IsInf(c.Workload.Arrivals.MeanRate(), 1) {
		return fieldErr("requests", 0, "with request rate inf sends every request at time 0: set a request count")
	}
	for i, p := range c.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fieldErr(fmt.Sprintf("percentiles[%d]", i), p, "must be in [0, 100]")
		}
	}
	return invalid(fielderr.In("slo", c.SLO.Validate()))
}

// defaultMaxInSystem is the backlog at which a run bounded only by its
// horizon is stopped as unstable (Config.MaxInSystem).
const defaultMaxInSystem = 100_000

func (c Config) maxInSystem() int {
	switch {
	case c.MaxInSystem > 0:
		return c.MaxInSystem
	case c.Requests > 0:
		return math.MaxInt
	default:
		return max(defaultMaxInSystem, 10*c.Workload.Clients)
	}
}

// Run simulates one run of cfg. It validates cfg first and returns an error
// naming the bad field; it never panics on bad input. The result is a
// deterministic function of cfg: the same Config gives byte-identical JSON.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rn := newRun(&cfg)
	srv, err := cfg.Server.NewServer(&Env{eng: &rn.eng, run: rn})
	if err != nil {
		return nil, invalid(err)
	}
	rn.server = srv
	if err := rn.start(); err != nil {
		return nil, err
	}
	horizon := math.Inf(1)
	if cfg.Horizon > 0 {
		horizon = cfg.Horizon
	}
	rn.loop(horizon)
	if rn.abortErr != nil {
		return nil, rn.abortErr
	}
	end := rn.eng.Now()
	if rn.eng.Len() > 0 && !rn.stopped && !rn.drained && cfg.Horizon > 0 {
		end = cfg.Horizon
	}
	return rn.result(end), nil
}

// run is one run's state: the engine, the workload's injection, the
// server, the request records and the bookkeeping of the stop rules and
// the result.
type run struct {
	eng    event.Engine
	cfg    *Config
	server Server
	cap    int // max_concurrency, 0 = none
	closed bool
	maxSys int

	lengths workload.Lengths
	prompts workload.PromptSampler // lengths, when it describes content
	segs    []workload.Segment     // scratch for content

	// content holds, by request ID, the content of the requests not yet
	// ended whose workload described any (Content); nil until the first.
	// An ended request's storage goes on spanFree for the next, so both
	// stay O(requests in the system).
	content  map[int][]metrics.Span
	spanFree [][]metrics.Span
	lenRng   *rand.Rand
	thinkRng *rand.Rand
	arrivals workload.Stream
	sess     *sessions // nil unless the workload is sessions

	store    requestStore
	injected int
	noMore   bool // injection has ended

	clientQ event.Ring[*metrics.Request] // open loop: generated, held by the max_concurrency cap
	sendQ   event.Ring[*metrics.Request] // released from clientQ, send event pending
	onSend  event.Handler
	arrT    event.Timer // the open loop's next arrival: one pending at a time
	onCli   event.Handler
	onDue   event.Handler

	// StopAfterMisses bookkeeping: requests in send order with their
	// deadline pending, and those already past it.
	deadline      float64 // seconds after the send; 0 when not tracked
	ttftDeadline  bool    // the deadline is the TTFT bound (else E2E)
	dueQ          event.Ring[due]
	certainMisses int
	certain       map[int]struct{} // IDs of in-flight certain misses
	drained       bool

	lastInject  float64 // no-progress guard for unbounded runs
	sameInstant int

	inFlight      int // slots taken under the cap: sent, or released and about to be
	inSys         int // sent and not ended
	ended         int // requests completed, failed or rejected
	maxConcurrent int
	area          float64 // ∫ inSys dt, request·seconds
	sojourn       float64 // Σ (Done − Sent) of ended requests, seconds
	lastT         float64
	trend         metrics.Trend
	stopped       bool
	stoppedBy     StopReason
	abortErr      error

	m     *metrics.Collector
	steps []float64 // token step times, with Config.TokenSteps
	ff    uint64    // events a server ended at once (FastForward)
}

func newRun(cfg *Config) *run {
	e := &run{cfg: cfg, cap: cfg.Workload.MaxConcurrency, closed: cfg.Workload.Closed(), maxSys: cfg.maxInSystem(), lengths: cfg.Workload.Lengths}
	e.lenRng = event.NewStream(cfg.Seed, "lengths")
	e.thinkRng = event.NewStream(cfg.Seed, "think")
	e.onSend = e.sendNext
	e.arrT = e.eng.NewTimer(e.arrive)
	e.onCli = e.clientSend
	e.onDue = e.due
	e.prompts, _ = cfg.Workload.Lengths.(workload.PromptSampler)
	if cfg.Workload.Sessions != nil {
		e.sess = newSessions(e)
	}
	if cfg.StopAfterMisses > 0 {
		switch {
		case cfg.SLO.TTFT > 0:
			e.deadline, e.ttftDeadline = cfg.SLO.TTFT, true
		case cfg.SLO.E2E > 0:
			e.deadline = cfg.SLO.E2E
		}
	}
	e.m = metrics.NewCollector(cfg.SLO, cfg.SummaryOnly)
	if cfg.Requests > 0 && cfg.Requests <= maxReserve && cfg.Horizon == 0 && !cfg.SummaryOnly {
		// Without a horizon every requested request arrives (barring an
		// early stop), so one contiguous page saves the final copy.
		e.store.reserve(cfg.Requests)
	}
	return e
}

// fastForward is Env.FastForward.
func (e *run) fastForward(t float64) bool {
	if e.stopped || e.settled() ||
		!(t >= e.eng.Now() && t < e.eng.NextTime()) || (e.cfg.Horizon > 0 && t > e.cfg.Horizon) {
		return false
	}
	e.eng.SetNow(t)
	e.ff++
	return true
}

// markStart is Env.Start.
func (e *run) markStart(r *metrics.Request) {
	if r.Start < 0 {
		r.Start = e.eng.Now()
	}
}

// firstToken is Env.FirstToken.
func (e *run) firstToken(r *metrics.Request) {
	e.markStart(r)
	if r.FirstToken < 0 {
		r.FirstToken = e.eng.Now()
		if !r.Warmup {
			e.m.Peak.Add(r.FirstToken, 1)
		}
	}
}

// tokens is Env.Tokens.
func (e *run) tokens(gap float64, n int) {
	if !e.cfg.NoITL {
		e.m.ITL.AddN(gap, n)
	}
	now := e.eng.Now()
	e.m.Peak.Add(now, n)
	if e.cfg.TokenSteps && n > 0 && (len(e.steps) == 0 || e.steps[len(e.steps)-1] != now) {
		e.steps = append(e.steps, now)
	}
}

// abort is Env.Abort.
func (e *run) abort(err error) {
	if e.abortErr == nil {
		e.abortErr = fmt.Errorf("run aborted at t=%v s: %w", e.eng.Now(), err)
	}
	e.stopped, e.stoppedBy = true, StopAbort
}

func (e *run) advance() {
	now := e.eng.Now()
	e.area += float64(e.inSys) * (now - e.lastT)
	e.lastT = now
}

func (e *run) end(r *metrics.Request, st metrics.Status) {
	if r.Status != metrics.InFlight {
		panic(fmt.Sprintf("sim: request %d ended twice or before it was sent (status %v)", r.ID, r.Status))
	}
	e.advance()
	now := e.eng.Now()
	r.Done = now
	r.Status = st
	if st == metrics.Completed {
		e.markStart(r)
		if r.FirstToken < 0 {
			r.FirstToken = now
			if !r.Warmup {
				e.m.Peak.Add(now, r.Output) // a server without token events: all at the end
			}
		}
	}
	e.inFlight--
	e.inSys--
	e.ended++
	e.sojourn += now - r.Sent
	e.m.Ended(r)
	if e.certain != nil {
		if _, ok := e.certain[r.ID]; ok {
			delete(e.certain, r.ID)
			e.certainMisses-- // now among the ended misses
		}
	}
	e.checkMisses()
	if e.content != nil {
		if c, ok := e.content[r.ID]; ok {
			delete(e.content, r.ID)
			e.spanFree = append(e.spanFree, c[:0])
		}
	}
	switch {
	case e.sess != nil:
		e.sess.ended(r)
	case e.closed:
		if !e.noMore {
			var think float64
			if w := e.cfg.Workload.Think; w != nil {
				think = w.Sample(e.thinkRng)
			}
			e.eng.After(think, event.Normal, e.onCli, int64(r.Client))
		}
	case e.clientQ.Len() > 0:
		// Reserve the freed slot for the head of the client queue now, so a
		// same-time arrival cannot overtake it.
		next := e.clientQ.Pop()
		e.inFlight++
		e.sendQ.Push(next)
		e.eng.Schedule(now, event.Normal, e.onSend, 0)
	}
	if e.cfg.SummaryOnly {
		e.store.release(r)
	}
}

func (e *run) start() error {
	w := e.cfg.Workload
	if w.Closed() {
		for c := 0; c < w.Clients; c++ {
			e.eng.Schedule(0, event.Normal, e.onCli, int64(c))
		}
		return nil
	}
	s, err := w.Arrivals.Stream(event.NewStream(e.cfg.Seed, "arrivals"), e.cfg.Requests)
	if err != nil {
		return invalid(err)
	}
	e.arrivals = s
	e.scheduleArrival()
	return nil
}

// scheduleArrival draws the next arrival time and schedules it, or ends
// injection when the request count, the horizon or the stream is spent.
func (e *run) scheduleArrival() {
	if e.cfg.Requests > 0 && e.injected >= e.cfg.Requests {
		e.noMore = true
		return
	}
	t := e.arrivals.Next()
	if math.IsInf(t, 1) || (e.cfg.Horizon > 0 && t > e.cfg.Horizon) {
		if e.sess != nil {
			e.sess.startsEnded()
			return
		}
		e.noMore = true
		return
	}
	if !(t <= workload.MaxTime) {
		e.abort(invalidf("arrival %d at t=%v s is past %v s (2^32 s), where the clock's float64 seconds lose the resolution of a step: lower the request count or raise the rate", e.injected, t, float64(workload.MaxTime)))
		return
	}
	e.eng.SetTimer(e.arrT, max(t, e.eng.Now()), event.Normal, 0)
}

// maxSameInstant bounds the requests an unbounded run (Requests 0) may
// inject without the clock moving: a closed loop whose server rejects
// instantly would otherwise spin at one instant forever.
const maxSameInstant = 100_000

// newRequest makes the next request's record, its lengths and content
// drawn from the workload's lengths, or taken from session s's next turn.
func (e *run) newRequest(s *workload.Session) *metrics.Request {
	if e.cfg.Requests == 0 {
		if e.eng.Now() == e.lastInject {
			e.sameInstant++
			if e.sameInstant > max(maxSameInstant, 10*e.cfg.Workload.Clients) {
				e.abort(fmt.Errorf("no progress: %d requests sent at one instant without the clock advancing (does the server end every request at once?)", e.sameInstant))
			}
		} else {
			e.lastInject, e.sameInstant = e.eng.Now(), 0
		}
	}
	id := e.injected
	e.injected++
	r := e.store.alloc(id)
	r.Arrival = e.eng.Now()
	switch {
	case s != nil:
		r.Input, r.Output, e.segs = s.Next(e.segs[:0])
		e.setContent(id)
	case e.prompts != nil:
		r.Input, r.Output, e.segs = e.prompts.SamplePrompt(e.lenRng, id, e.segs[:0])
		e.setContent(id)
	default:
		r.Input, r.Output = e.lengths.Sample(e.lenRng, id)
	}
	r.Warmup = id < e.cfg.Warmup
	r.Status = metrics.Queued
	e.m.Arrived(r)
	if !r.Warmup && !e.closed {
		e.trend.Add(e.eng.Now(), float64(e.inSys+e.clientQ.Len()+e.sendQ.Len()))
	}
	return r
}

// setContent keeps the workload's segments just drawn (e.segs) as request
// id's content, reusing an ended request's storage. Empty content is not
// stored: Content returns nil for it.
func (e *run) setContent(id int) {
	if len(e.segs) == 0 {
		return
	}
	var dst []metrics.Span
	if k := len(e.spanFree); k > 0 {
		dst = e.spanFree[k-1]
		e.spanFree = e.spanFree[:k-1]
	}
	for _, s := range e.segs {
		dst = append(dst, metrics.Span(s))
	}
	if e.content == nil {
		e.content = make(map[int][]metrics.Span)
	}
	e.content[id] = dst
}

// arrive is the open-loop arrival event.
func (e *run) arrive(int64) {
	if e.sess != nil {
		e.sess.start()
		e.scheduleArrival()
		return
	}
	r := e.newRequest(nil)
	e.scheduleArrival()
	if e.cap > 0 && e.inFlight >= e.cap {
		e.clientQ.Push(r)
		e.checkBacklog()
		return
	}
	e.inFlight++
	e.send(r)
}

// clientSend is a closed-loop client's send event.
func (e *run) clientSend(client int64) {
	if e.noMore {
		return
	}
	r := e.newRequest(nil)
	r.Client = int(client)
	if e.cfg.Requests > 0 && e.injected >= e.cfg.Requests {
		e.noMore = true
	}
	if e.cfg.Horizon > 0 && e.eng.Now() > e.cfg.Horizon {
		e.noMore = true
	}
	e.inFlight++
	e.send(r)
}

// sendNext sends the head of sendQ (its in-flight slot is already taken).
func (e *run) sendNext(int64) { e.send(e.sendQ.Pop()) }

// send hands r to the server; the caller has counted it in flight.
func (e *run) send(r *metrics.Request) {
	e.advance()
	now := e.eng.Now()
	e.inSys++
	r.Sent = now
	r.Status = metrics.InFlight
	e.maxConcurrent = max(e.maxConcurrent, e.inSys)
	e.m.Sent(r)
	e.checkBacklog()
	if e.deadline > 0 && !r.Warmup {
		e.dueQ.Push(due{r, r.ID})
		// Late: a completion at the very deadline fires first and passes.
		e.eng.Schedule(max(now, e.cfg.SLO.Origin(r)+e.deadline), event.Late, e.onDue, 0)
	}
	e.server.Arrive(r)
}

// due is a measured request whose SLO deadline is pending. Deadlines are
// send time plus a constant, so they fall in send order (FIFO).
type due struct {
	r  *metrics.Request
	id int // the record may be reused in summary mode once r ended
}

// due fires at the oldest pending deadline: a request still without its
// first token past the TTFT bound, or unfinished past the E2E bound, is a
// certain miss.
func (e *run) due(int64) {
	d := e.dueQ.Pop()
	r := d.r
	if r.ID != d.id || r.Status.Ended() || (e.ttftDeadline && r.FirstToken >= 0) {
		return
	}
	if e.certain == nil {
		e.certain = make(map[int]struct{})
	}
	e.certain[r.ID] = struct{}{}
	e.certainMisses++
	e.checkMisses()
}

func (e *run) checkMisses() {
	if lim := e.cfg.StopAfterMisses; lim > 0 && !e.stopped && e.m.Misses()+e.certainMisses >= lim {
		e.stopped, e.stoppedBy = true, StopSLOMisses
	}
}

func (e *run) checkBacklog() {
	if e.inSys+e.clientQ.Len()+e.sendQ.Len() >= e.maxSys && !e.stopped {
		e.stopped, e.stoppedBy = true, StopMaxInSystem
	}
}

// settled reports whether SLO deadlines are tracked and every request has
// ended with no more to come: the stale deadlines still queued then cannot
// change anything, so the run is over.
func (e *run) settled() bool { return e.deadline > 0 && e.noMore && e.ended == e.injected }

// loop fires events up to the horizon until a stop rule fires, or — when
// SLO deadlines are tracked — until every request has ended and no more
// will come: the stale deadlines still queued then cannot change anything.
func (e *run) loop(horizon float64) {
	for e.eng.StepUntil(horizon) {
		if e.stopped {
			return
		}
		if e.settled() {
			e.drained = true
			return
		}
	}
}
