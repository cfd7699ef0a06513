package batching

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// seq is the engine's state of one request.
//
// KV accounting: computed is the number of tokens whose KV entries are in
// the cache. A request with generated g output tokens has computed = L+g−1
// while decoding: each decode step feeds the last token (one new KV entry)
// and emits the next. A (re)prefill computes target = L+g tokens and emits
// token g+1 at the end of its last chunk; preemption by recompute frees
// every block and sets computed back to 0.
//
// Decoding requests are tracked in aggregate (see engine): their computed
// count is base + (step − joinStep) and is not stored per step.
type seq struct {
	req       *metrics.Request
	target    int // tokens to (re)prefill
	computed  int // KV entries in the cache (prefill phase)
	generated int // output tokens emitted
	lastToken float64

	decoding bool
	base     int   // computed when it joined the decoders
	joinStep int64 // engine step index when it joined
	finKey   int64 // finish step, less the finish queue's delay (decoders)
	finNext  *seq  // next in its finish-queue bucket
	order    int64 // admission order, for deterministic ties

	prev, next *seq // running list, admission order

	// Prefix caching: the cache entries of its leading full blocks (hit or
	// computed), the chain hash of the last, and the content position
	// after them.
	ents      []int32
	lastHash  uint64
	cur       cursor
	content   []metrics.Span // the request's content (sim.Env.Content), until it ends
	shared    int            // tokens its content covers (past them, its own)
	preempted bool           // preempted at least once (vLLM counts its lookups apart)

	// remote is the number of leading prompt tokens whose KV arrived from
	// another instance (P/D disaggregation, decode side; see handoff.go):
	// admission takes them as computed. A preemption loses them.
	remote int
	// KV offloading (offloadengine.go): warm is the blocks a request
	// holds before admission (its GPU hit and the blocks loaded from the
	// host), stored its leading full blocks copied to the host.
	warm, stored int
	// Speculative decoding (spec.go): a decoder tracked one by one, with
	// computed and generated kept exact, and its draft tokens this step.
	spec  bool
	draft int
}

// computedAt returns a decoding seq's KV entries at step index s.
func (q *seq) computedAt(s int64) int { return q.base + int(s-q.joinStep) }

// chunk is a prefill chunk scheduled in the current step.
type chunk struct {
	q      *seq
	tokens int
}

// freshGroup counts decoders whose last token left at time t (they joined
// after the last decode step).
type freshGroup struct {
	t        float64
	measured int
}

// engine is one replica's scheduler: a sim.Server.
type engine struct {
	cfg  *resolved
	env  *sim.Env
	name string

	free    []*seq // seq pool
	orders  int64
	waiting waitQueue // and the requests still in their overhead (queue.go)

	// Running list in admission order; decoders are counted in aggregate.
	head, tail *seq
	running    int
	partial    *seq // the one request mid-prefill (chunked mode), or nil

	// Decoder aggregate.
	step          int64 // steps completed
	decoders      int
	measuredDec   int
	kvSum         int64 // Σ computed over decoders
	phase         []int // decoders by (base − joinStep) mod block size
	finish        finishQueue
	lastDecodeEnd float64
	fresh         []freshGroup

	usedBlocks int
	cache      *blockCache // nil without prefix caching

	// The last prefix lookup (prefix caching): the hit entries, and the
	// chain hash and content position after them.
	hits    []int32
	hitHash uint64
	hitCur  cursor
	hitSeq  *seq
	routed  int   // requests that arrived here
	active  int64 // Σ prompt blocks of the requests held (router load)

	// group, when not nil, steps this engine with the other attention
	// data-parallel groups of its deployment (dataParallel): it forms
	// and ends this engine's steps, and wait wakes it instead of starting
	// a step.
	group *dataParallel

	// Current step.
	busy        bool
	kicked      bool
	stepDecodes int
	chunks      []chunk
	decode      cost.DecodeStep // the price of decode-only steps at its count of decoders (costDecode)
	decodeCost  cost.StepCost   // costDecode's step cost: Time, Bytes, FLOPs, CommTime only
	onStepEnd   event.Handler
	onKick      event.Handler
	onEnqueue   event.Handler

	stats stats
	check func() // test hook: invariant checks after every step

	// --- P/D disaggregation and pipeline parallelism (handoff.go,
	// pipeline.go); all nil in a plain engine. handoff, when set, takes
	// a request whose prefill has finished instead of emitting its first
	// token (a prefill instance): it keeps the request's blocks until
	// its owner calls Handed.Release. firstToken is told of every first
	// token (a decode instance's TTFT split). pipe prices each step
	// through the pipeline stages.
	handoff    func(q *seq)
	firstToken func(r *metrics.Request)
	held       int // handed-off requests whose blocks are not released
	pipe       *stages
	sp         *specState // speculative decoding (spec.go); nil without
	off        *offloader // KV offloading (offloadengine.go); nil without
	api        *frontend  // the API server process (apiserver.go); nil without
	// probe, when not nil, observes steps and ends (Replica, fleets).
	probe Probe

	// Test hooks: singleStep ends every step through the event queue (no
	// fast-forward) and the full scheduler (no decode runs, endStep);
	// Config.stepwise sets it. ffSteps counts the steps ended at once,
	// ffDecode those of them ended in decode runs, endDecode the step-end
	// events ended as decode runs (endStep).
	singleStep                   bool
	ffSteps, ffDecode, endDecode int64
}

func newEngine(cfg *resolved, env *sim.Env, name string) *engine {
	e := &engine{cfg: cfg, env: env, name: name, phase: make([]int, cfg.BlockSize), singleStep: cfg.stepwise}
	if cfg.EnablePrefixCaching {
		e.cache = newBlockCache(cfg.pool.Blocks)
		e.warmCache(cfg.WarmPrompts)
	}
	if cfg.spec != nil { // speculative decoding (spec.go)
		e.sp = &specState{stats: specStats{perPos: make([]int64, cfg.spec.k)}}
	}
	if cfg.off != nil { // KV offloading (offloadengine.go)
		e.off = newOffloader(e)
	}
	if !cfg.APIServer.IsZero() { // the API server process (apiserver.go)
		e.api = &frontend{APIServer: cfg.APIServer}
		e.api.onHand = e.handOver
	}
	e.onStepEnd = e.endStep
	e.onKick = e.kick
	e.onEnqueue = e.enqueue
	e.waiting.mk = func(a arrival) *seq {
		q := e.newSeq(a.r)
		q.remote = a.remote
		return q
	}
	if name == "" {
		name = "engine"
	}
	e.stats.init(cfg, name)
	return e
}

// blocks returns the blocks that hold tokens ≥ 0 tokens (a shift for a
// power-of-two block size).
func (e *engine) blocks(tokens int) int {
	if s := e.cfg.blockShift; s >= 0 {
		return (tokens + e.cfg.BlockSize - 1) >> s
	}
	return (tokens + e.cfg.BlockSize - 1) / e.cfg.BlockSize
}

// fullBlocks returns the whole blocks in tokens ≥ 0 tokens.
func (e *engine) fullBlocks(tokens int) int {
	if s := e.cfg.blockShift; s >= 0 {
		return tokens >> s
	}
	return tokens / e.cfg.BlockSize
}

// mod returns x mod the block size, in [0, BlockSize).
func (e *engine) mod(x int64) int {
	if e.cfg.blockShift >= 0 {
		return int(x & int64(e.cfg.BlockSize-1))
	}
	bs := int64(e.cfg.BlockSize)
	return int((x%bs + bs) % bs)
}

func (e *engine) newSeq(r *metrics.Request) *seq {
	var q *seq
	if k := len(e.free); k > 0 {
		q = e.free[k-1]
		e.free = e.free[:k-1]
		*q = seq{ents: q.ents[:0]}
	} else {
		q = &seq{}
	}
	q.req = r
	q.target = r.Input
	q.lastHash = rootHash
	q.content = e.env.Content(r)
	for _, s := range q.content {
		q.shared += s.Tokens
	}
	return q
}

// Arrive takes a request from the client. Requests that can never run are
// rejected at once: an empty prompt (vLLM answers 400), input+output above
// max_model_len, a KV footprint (input+output−1 entries; a prefill
// instance's: input) larger than the whole pool, or, without chunked
// prefill, a footprint larger than the token budget.
func (e *engine) Arrive(r *metrics.Request) { e.arrive(r, 0) }

// arrive is Arrive for a request whose first remote prompt tokens already
// have their KV (P/D decode side; 0 otherwise); false when it rejected r.
func (e *engine) arrive(r *metrics.Request, remote int) bool {
	c := e.cfg
	e.routed++
	need := r.Input + r.Output - 1 // KV entries at the end
	if e.handoff != nil {
		need = r.Input // a prefill instance holds only the prompt's
	}
	switch {
	case r.Input < 1,
		c.MaxModelLen > 0 && r.Input+r.Output > c.MaxModelLen,
		e.blocks(need) > c.pool.Blocks,
		!c.EnableChunkedPrefill && need > c.MaxNumBatchedTokens:
		e.stats.rejected++
		if e.probe != nil { // fleet hook (replica.go)
			e.probe.Ended(r, false)
		}
		e.env.Reject(r)
		return false
	}
	e.active += int64(e.blocks(r.Input))
	// The deployment's profile adds its frontend overhead (tokenisation,
	// HTTP, IPC) to the configured one. Arrivals of one instant share one
	// enqueue event.
	if o := c.overhead; o > 0 || e.api != nil {
		due := e.env.Now()
		if e.api != nil {
			due = e.api.ingest(due, r)
		}
		due += o
		if e.waiting.arrive(arrival{r, due, remote}, true) {
			e.env.Schedule(due, event.Normal, e.onEnqueue, 0)
		}
		return true
	}
	e.waiting.arrive(arrival{r: r, remote: remote}, false)
	e.wait()
	return true
}

// enqueue moves the pending requests whose overhead ends now (the
// overhead is constant, so pending is in arrival order) to the waiting
// queue.
func (e *engine) enqueue(int64) {
	if e.waiting.ripen(e.env.Now()) > 0 {
		e.wait()
	}
}

// wait starts the engine, or its data-parallel group, on requests that
// joined the waiting queue.
func (e *engine) wait() {
	if e.group != nil {
		e.group.wake()
		return
	}
	if !e.busy && !e.kicked {
		// Start at the end of this instant, after same-time arrivals.
		e.kicked = true
		e.env.Schedule(e.env.Now(), event.Late, e.onKick, 0)
	}
}

func (e *engine) kick(int64) {
	e.kicked = false
	if !e.busy {
		e.startStep()
	}
}

// outstanding is the number of requests the engine holds (router load).
func (e *engine) outstanding() int { return e.waitingCount() + e.running }

// link appends q to the running list.
func (e *engine) link(q *seq) {
	e.orders++
	q.order = e.orders
	q.prev, q.next = e.tail, nil
	if e.tail != nil {
		e.tail.next = q
	} else {
		e.head = q
	}
	e.tail = q
	e.running++
}

func (e *engine) unlink(q *seq) {
	if q.prev != nil {
		q.prev.next = q.next
	} else {
		e.head = q.next
	}
	if q.next != nil {
		q.next.prev = q.prev
	} else {
		e.tail = q.prev
	}
	q.prev, q.next = nil, nil
	e.running--
}

func (e *engine) phaseOf(q *seq) int {
	return e.mod(int64(q.base) - q.joinStep)
}

// needPhase is the phase class whose decoders need a new block in the step
// about to run: computed ≡ 0 (mod block size) at step index e.step.
func (e *engine) needPhase() int {
	return e.mod(-e.step)
}

// joinDecoders makes q a decoder after its prefill finished at the end of
// step index e.step (already incremented).
func (e *engine) joinDecoders(q *seq) {
	q.decoding = true
	q.base = q.computed
	q.joinStep = e.step
	e.decoders++
	if !q.req.Warmup {
		e.measuredDec++
	}
	e.kvSum += int64(q.base)
	e.phase[e.phaseOf(q)]++
	e.finish.Push(q, e.step+int64(q.req.Output-q.generated), e.step)
}

// leaveDecoders removes decoder q at step index s, returning its computed
// count; q.generated catches up with the tokens it emitted while decoding.
func (e *engine) leaveDecoders(q *seq, s int64) int {
	c := q.computedAt(s)
	q.generated += int(s - q.joinStep)
	q.decoding = false
	e.decoders--
	if !q.req.Warmup {
		e.measuredDec--
	}
	e.kvSum -= int64(c)
	e.phase[e.phaseOf(q)]--
	return c
}

// preempt evicts q by recompute: all its blocks go back to the pool and it
// returns to the front of the waiting queue, to redo its prefill over its
// prompt and the tokens it has generated. It returns whether q was a
// decoder that needed a block in the step being formed.
func (e *engine) preempt(q *seq) (neededBlock bool) {
	var c int
	if q.decoding {
		neededBlock = e.phaseOf(q) == e.needPhase()
		decoded := e.step > q.joinStep // emitted tokens since it joined
		e.finish.Remove(q)
		c = e.leaveDecoders(q, e.step)
		for i := range e.fresh {
			if e.fresh[i].t == q.lastToken && !q.req.Warmup {
				e.fresh[i].measured--
				break
			}
		}
		if decoded {
			// Decoders' tokens are not stamped one by one: its last one
			// left at the last decode step.
			q.lastToken = e.lastDecodeEnd
		}
	} else if q.spec { // speculative decoding (spec.go)
		c = q.computed
		q.spec = false
	} else {
		c = q.computed
		e.partial = nil
	}
	e.unlink(q)
	e.freeBlocks(q, c, true)
	q.computed = 0
	q.remote = 0
	q.target = q.req.Input + q.generated
	q.preempted = true
	e.stats.preemptions++
	e.waiting.PushFront(q)
	return neededBlock
}

// startStep forms and launches the next step, or goes idle. A step whose
// end would be the run's next event anyway is ended at once, without an
// event (sim.Env.FastForward), and the next one formed: the run is the same
// as through the event queue, event count included. A run of decode-only
// steps that nothing can change (see decodeRun) skips the scheduler too.
func (e *engine) startStep() { e.runSteps(e.formStep()) }

// runSteps launches the step just formed, of duration dt (ok false: the
// engine went idle or the run aborted), ending it and the steps after it
// at once while each one's end would be the run's next event (startStep).
func (e *engine) runSteps(dt float64, ok bool) {
	for ok {
		if e.singleStep || !e.env.FastForward(e.env.Now()+dt) {
			e.busy = true
			e.env.Schedule(e.env.Now()+dt, event.Normal, e.onStepEnd, 0)
			return
		}
		e.busy = true
		e.ffSteps++
		if e.decodeRun() {
			e.ffDecode++
			dt, ok = e.formDecode()
			continue
		}
		e.finishStep()
		dt, ok = e.formStep()
	}
}

// formStep forms the next step and records it, returning its duration;
// false when the engine goes idle or the step time is invalid (the run is
// then aborted).
func (e *engine) formStep() (float64, bool) {
	if !e.form() {
		return 0, false
	}
	return e.costStep()
}

// form forms the next step: the decoders and prefill chunks it runs. It
// returns false, the engine going idle, when there is nothing to run.
func (e *engine) form() bool {
	// Asynchronous scheduling: while a step runs (busy), the step formed
	// now was planned when that one launched, over the line as it was
	// then. With nothing to run that way, the scheduler has no step in
	// flight and takes the line as it is.
	e.waiting.limited = e.cfg.AsyncScheduling && e.busy
	ok := e.formOnce()
	if !ok && e.waiting.limited && e.waiting.Len() > 0 {
		e.waiting.limited = false
		ok = e.formOnce()
	}
	e.waiting.limited = false
	e.waiting.see()
	if ok && e.off != nil { // KV offloading: the step's write-through stores
		e.off.formed(e)
	}
	if !ok {
		e.busy = false
		if (e.waiting.Len() > 0 && e.held == 0 && (e.off == nil || e.off.loading == 0)) || e.running > 0 {
			panic(fmt.Sprintf("batching: idle with %d waiting and %d running", e.waiting.Len(), e.running))
		}
	}
	return ok
}

// formOnce forms the step under the line's current limit and reports
// whether it runs anything.
func (e *engine) formOnce() bool {
	e.chunks = e.chunks[:0]
	switch {
	case e.sp != nil: // speculative decoding (spec.go)
		e.formSpec()
	case !e.cfg.EnableChunkedPrefill:
		e.formPrefillFirst()
	default:
		e.formChunked()
	}
	if e.off != nil { // KV offloading: requests set aside return to the line
		e.off.restore(e)
	}
	return e.stepDecodes > 0 || len(e.chunks) > 0 || (e.sp != nil && len(e.sp.batch) > 0)
}

// costStep prices the step formed and records it in the stats. It is the
// engine's own step; attention data-parallel groups price theirs with
// price and record (dataParallel.startStep).
func (e *engine) costStep() (float64, bool) {
	var b cost.Batch
	e.batch(&b)
	if e.cfg.StepTime == nil && len(e.chunks) == 0 && e.sp == nil {
		return e.costDecode(&b)
	}
	var c cost.StepCost // zero with StepTime
	if e.cfg.StepTime != nil {
		c.Time = e.cfg.StepTime(b)
	} else {
		c = e.cfg.step.Step(b)
	}
	if e.sp != nil { // speculative decoding (spec.go): the proposer's time
		e.specCost(&b, &c)
	}
	return e.launch(&b, &c)
}

// costDecode is costStep for a decode-only step b through the DecodeStep
// of its decoders, kept while their count holds (the steps of a decode
// run differ only in their context): it prices exactly as Step, and sets
// only the parts of the cost launch and record read (Time, Bytes, FLOPs,
// CommTime) in e.decodeCost, whose other fields stay 0. The decode path
// prices every step; a whole StepCost is a large value to fill and copy.
func (e *engine) costDecode(b *cost.Batch) (float64, bool) {
	if e.decode.Seqs() != b.DecodeSeqs {
		e.decode = e.cfg.step.Decode(b.DecodeSeqs)
	}
	c := &e.decodeCost
	c.Time, c.Bytes, c.FLOPs, c.CommTime = e.decode.Step(b.DecodeContext)
	return e.launch(b, c)
}

// launch adds KV offloading's synchronous transfers to the step of batch b
// and cost c, passes it through the pipeline stages (pipeline
// parallelism), records it and returns its duration (record's false: the
// run aborted).
func (e *engine) launch(b *cost.Batch, c *cost.StepCost) (float64, bool) {
	c.Time += e.offloadStall()
	if e.pipe != nil {
		return e.pipe.through(e.env.Now(), b, c), e.record(b, c)
	}
	return c.Time, e.record(b, c)
}

// batch sets *b to the batch of the step formed. It writes through b
// rather than returning the batch: the step path calls it every step, and
// the returned value would be copied again into the caller's.
func (e *engine) batch(b *cost.Batch) {
	*b = cost.Batch{}
	b.DecodeSeqs = e.stepDecodes
	if e.stepDecodes > 0 {
		b.DecodeContext = float64(e.kvSum + int64(e.decoders))
	}
	for _, ch := range e.chunks {
		b.AddPrefill(ch.tokens, ch.q.computed)
	}
	if e.sp != nil { // speculative decoding (spec.go)
		e.addSpec(b)
	}
}

// price returns the cost of a data-parallel group's batch b (only Time
// with StepTime). Groups never run the decode runs of formDecode.
func (e *engine) price(b *cost.Batch) cost.StepCost {
	if e.cfg.StepTime != nil {
		return cost.StepCost{Time: e.cfg.StepTime(*b)}
	}
	return e.cfg.step.Step(*b)
}

// record adds the step of batch b and cost c to the stats; false, the run
// aborted, when c.Time is not a finite number > 0.
func (e *engine) record(b *cost.Batch, c *cost.StepCost) bool {
	e.stats.addStep(e, b, c)
	if dt := c.Time; !(dt > 0) || math.IsInf(dt, 1) {
		e.env.Abort(invalidf("step time %v s for batch %+v must be a finite number > 0", dt, *b))
		return false
	}
	return true
}

// decodeRun ends the decode-only step under way, now, when that is all its
// end does: no request finishes, and the next step will be decode-only
// over the same decoders (no partial prefill, no waiting request the
// scheduler would try to admit). It reports whether it did; the caller
// then forms the next step with formDecode. Within a run of such steps the
// next event of the run (an arrival, the horizon) bounds the run through
// FastForward, and the next finish step and KV-block shortfall through
// these checks, so a long decode run costs no events and no scheduling.
func (e *engine) decodeRun() bool {
	if e.stepDecodes == 0 || len(e.chunks) > 0 || e.partial != nil ||
		e.finish.Due(e.step+1) || e.mayAdmit() {
		return false
	}
	e.emitDecode(e.env.Now())
	e.step++
	if e.check != nil {
		e.check()
	}
	return true
}

// mayAdmit reports whether forming the next step would look at the head
// of the waiting queue (decoders unchanged).
func (e *engine) mayAdmit() bool {
	if e.waiting.Len() == 0 || e.running >= e.cfg.MaxNumSeqs {
		return false
	}
	return !e.cfg.EnableChunkedPrefill || e.cfg.MaxNumBatchedTokens-e.decoders > 0
}

// formDecode forms the next step after decodeRun: every decoder again,
// when the pool holds the blocks they need; otherwise the scheduler forms
// it (preempting).
func (e *engine) formDecode() (float64, bool) {
	need := e.phase[e.needPhase()]
	if e.usedBlocks+need > e.cfg.pool.Blocks {
		return e.formStep()
	}
	e.allocBlocks(need)
	return e.costStep()
}

// formChunked is vLLM v1's schedule(): running requests first (each
// decoder one token, then the partial prefill's next chunk), preempting the
// newest running request while the KV blocks do not suffice; then, if
// nothing was preempted, waiting requests FCFS.
func (e *engine) formChunked() {
	budget := e.cfg.MaxNumBatchedTokens
	need := e.phase[e.needPhase()]
	preempted := false
	pc, pneed := 0, 0
	for {
		pc, pneed = 0, 0
		if p := e.partial; p != nil {
			pc = min(p.target-p.computed, budget-e.decoders)
			pneed = e.blocks(p.computed+pc) - e.blocks(p.computed)
		}
		if e.usedBlocks+need+pneed <= e.cfg.pool.Blocks || e.tail == nil {
			break
		}
		if e.preempt(e.tail) {
			need--
		}
		preempted = true
	}
	e.stepDecodes = e.decoders
	budget -= e.decoders
	e.allocBlocks(need + pneed)
	if pc > 0 {
		e.chunks = append(e.chunks, chunk{e.partial, pc})
		e.cacheFull(e.partial, e.partial.computed+pc, false)
		budget -= pc
	}
	if preempted && e.running > 0 {
		return // vLLM admits nothing in a step that preempted
	}
	for e.waiting.Len() > 0 && budget > 0 && e.running < e.cfg.MaxNumSeqs {
		q, hit, evictable, ok := e.nextWaiting()
		if !ok {
			break
		}
		done := e.startAt(q, hit)
		c := min(q.target-done, budget)
		nb := e.blocks(done+c) - hit
		if e.usedBlocks+nb+evictable > e.cfg.pool.Blocks {
			if e.passHead(q) {
				continue
			}
			break
		}
		e.admit(q, c, hit)
		budget -= c
		if done+c < q.target {
			e.partial = q // budget exhausted: the loop ends
		}
	}
}

// formPrefillFirst is vLLM v0's default scheduler without chunked prefill:
// if waiting prompts can be admitted whole, the step prefills them alone;
// otherwise it is a decode step.
func (e *engine) formPrefillFirst() {
	if e.formPrefillWhole(); len(e.chunks) > 0 {
		e.stepDecodes = 0
		return
	}
	need := e.phase[e.needPhase()]
	for e.usedBlocks+need > e.cfg.pool.Blocks && e.tail != nil {
		if e.preempt(e.tail) {
			need--
		}
	}
	e.allocBlocks(need)
	e.stepDecodes = e.decoders
}

// admit moves the head of the waiting queue into the running list with its
// hit blocks (the last lookup's, prefix caching) and a first chunk of c
// tokens, allocating their blocks.
func (e *engine) admit(q *seq, c, hit int) {
	e.waiting.Pop()
	e.link(q)
	if e.cache != nil {
		e.takeHits(q, hit)
	}
	done := e.startAt(q, hit)
	e.allocBlocks(e.blocks(done+c) - hit)
	q.computed = done
	e.cacheFull(q, done+c, false)
	e.env.Start(q.req)
	e.chunks = append(e.chunks, chunk{q, c})
}

// endStep applies a finished step: decoders emit a token each, chunks
// advance their prefill, finished prefills emit their first (or resumed)
// token, finished requests leave; then the next step starts.
//
// A step whose end is a decode run's (decodeRun: no request finishes, the
// next step is every decoder again and nothing waits for the scheduler)
// is ended by decodeRun and the next formed by formDecode, as a
// fast-forwarded run does: the same state, stats and event as finishStep
// and the full scheduler would give (TestFastForwardIsExact, and
// TestFleetStepwiseIsExact for fleets, check it against singleStep),
// without walking the scheduler. Among a fleet's interleaved replicas
// about half the steps end so.
func (e *engine) endStep(int64) {
	if !e.singleStep && e.decodeRun() {
		e.endDecode++
		e.runSteps(e.formDecode())
		return
	}
	e.finishStep()
	e.startStep()
}

// emitDecode gives every decoder its token at the end of a step at now.
func (e *engine) emitDecode(now float64) {
	// The clients see the step's tokens when the API server has streamed
	// them (apiserver.go): now without one. Every time below is that one.
	now = e.visible(now, e.decoders)
	// Pooled ITL: decoders whose previous token left at the last decode
	// step, then those that joined since (prefill-first mode).
	steady := e.measuredDec
	for _, g := range e.fresh {
		steady -= g.measured
		e.env.Tokens(now-g.t, g.measured)
	}
	e.env.Tokens(now-e.lastDecodeEnd, steady)
	e.fresh = e.fresh[:0]
	e.lastDecodeEnd = now
	e.kvSum += int64(e.decoders)
}

// finishStep applies the step that ends now (endStep without starting the
// next).
func (e *engine) finishStep() {
	now := e.env.Now()
	if e.stepDecodes > 0 {
		e.emitDecode(now)
	}
	e.step++
	if e.sp != nil { // speculative decoding (spec.go)
		e.finishSpec(now)
	}
	if e.stepDecodes > 0 {
		for _, q := range e.finish.Take(e.step) {
			c := e.leaveDecoders(q, e.step)
			if q.generated != q.req.Output {
				panic(fmt.Sprintf("batching: request %d finished with %d of %d tokens", q.req.ID, q.generated, q.req.Output))
			}
			e.retire(q, c, e.lastDecodeEnd)
		}
	} else {
		// A prefill-only step: decoders emitted nothing; their finish steps
		// move one later.
		e.delayFinishes()
	}
	joined := 0
	seen := e.chunkTokensSeen(now) // when the clients see the tokens below
	for _, ch := range e.chunks {
		q := ch.q
		q.computed += ch.tokens
		if e.off != nil { // KV offloading: store on compute
			e.off.computed(e, q)
		}
		if q.computed < q.target {
			continue
		}
		if e.partial == q {
			e.partial = nil
		}
		if e.handoff != nil && q.generated == 0 {
			e.handoff(q) // a prefill instance: the decode side emits it
			continue
		}
		q.generated++
		switch {
		case q.generated == 1:
			e.firstTokenAt(q.req, seen)
			if e.firstToken != nil {
				e.firstToken(q.req)
			}
		case !q.req.Warmup:
			e.env.Tokens(seen-q.lastToken, 1) // resumed after a preemption
		}
		q.lastToken = seen
		if q.generated >= q.req.Output {
			e.retire(q, q.computed, seen)
			continue
		}
		if e.sp != nil { // speculative decoding (spec.go)
			e.joinSpec(q)
			continue
		}
		e.joinDecoders(q)
		if !q.req.Warmup {
			joined++
		}
	}
	if joined > 0 && e.stepDecodes == 0 {
		// Their first token left now, not at the last decode step.
		e.fresh = append(e.fresh, freshGroup{t: seen, measured: joined})
	}
	if e.check != nil {
		e.check()
	}
}

// retire frees a finished request's blocks and reports it, its client
// seeing its end at seen (>= now; later than now only behind an API
// server, apiserver.go).
func (e *engine) retire(q *seq, computed int, seen float64) {
	e.unlink(q)
	e.freeBlocks(q, computed, false)
	e.active -= int64(e.blocks(q.req.Input))
	if e.probe != nil { // fleet hook (replica.go)
		e.probe.Ended(q.req, true)
	}
	e.finishAt(q.req, seen)
	q.req, q.content = nil, nil
	e.free = append(e.free, q)
}

// delayFinishes shifts every decoder one step later, after a step in which
// decoders did not run: their computed counts and finish steps are relative
// to the step index, so rebasing keeps them exact. O(decoders), and only in
// prefill-first mode.
func (e *engine) delayFinishes() {
	if e.decoders == 0 {
		return
	}
	for i := range e.phase {
		e.phase[i] = 0
	}
	for q := e.head; q != nil; q = q.next {
		if q.decoding {
			q.joinStep++
			e.phase[e.phaseOf(q)]++
		}
	}
	e.finish.Delay()
}
