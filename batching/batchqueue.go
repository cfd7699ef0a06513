package batching

import (
	"math"
	"slices"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// PipelineScheduler selects how a Pipeline schedules its micro-batches.
type PipelineScheduler string

const (
	// BatchQueue is vLLM v1's (the default, ""): one scheduler, one KV
	// pool and one max_num_seqs, and a queue of up to Stages batches in
	// flight (EngineCore.step_with_batch_queue). See Pipeline.
	BatchQueue PipelineScheduler = "v1"
	// VirtualEngines is vLLM v0's: Stages schedulers, each with its own
	// waiting queue, limits and 1/Stages of the KV pool, and one
	// micro-batch in the pipeline each. See Pipeline.
	VirtualEngines PipelineScheduler = "v0"
)

// bqSeq is the batch queue's state of one request. computed is vLLM's
// num_computed_tokens: it advances when a batch is scheduled, not when it
// returns, so a request whose remaining work is all in flight has nothing
// to schedule (vllm/v1/core/sched/scheduler.py, num_new_tokens == 0).
type bqSeq struct {
	req       *metrics.Request
	target    int // tokens to (re)prefill
	computed  int // tokens scheduled so far (KV entries once they return)
	generated int // output tokens emitted
	held      int // KV blocks held
	inflight  int // batches in flight that carry its tokens
	lastToken float64
}

// bqItem is one request's share of a batch: tokens scheduled, and whether
// they complete its (re)prefill or are a decode token, so that the
// batch's return emits a token.
type bqItem struct {
	q     *bqSeq
	emits bool
}

// bqBatch is a batch in flight.
type bqBatch struct{ items []bqItem }

// batchQueue is one pipeline under vLLM v1's batch queue (a sim.Server).
type batchQueue struct {
	cfg  *resolved
	env  *sim.Env
	pipe *stages
	k    int // batch queue size: the stage count

	pending []arrival // in their frontend overhead, due in order
	waiting []*bqSeq  // FCFS; preempted requests go back to the front
	running []*bqSeq  // admission order
	used    int       // KV blocks held

	inflight []*bqBatch // oldest first
	spare    []*bqBatch
	kicked   bool
	onKick   event.Handler
	onDone   event.Handler
	onReady  event.Handler

	stats stats
}

func newBatchQueue(r *resolved, env *sim.Env, st *stages, name string) *batchQueue {
	b := &batchQueue{cfg: r, env: env, pipe: st, k: len(st.free)}
	b.onKick = b.kick
	b.onDone = b.done
	b.onReady = b.ready
	b.stats.init(r, name)
	return b
}

// outstanding is the requests the pipeline holds (router load).
func (b *batchQueue) outstanding() int { return len(b.pending) + len(b.waiting) + len(b.running) }

func (b *batchQueue) blocks(tokens int) int {
	return (tokens + b.cfg.BlockSize - 1) / b.cfg.BlockSize
}

// Arrive takes a request, rejecting one that can never run as the engine
// does (engine.Arrive). A request with a shared prefix under prefix
// caching aborts the run: the batch queue does not model the prefix
// cache (use VirtualEngines).
func (b *batchQueue) Arrive(r *metrics.Request) {
	c := b.cfg
	need := r.Input + r.Output - 1
	if c.EnablePrefixCaching && len(b.env.Content(r)) > 0 {
		b.env.Abort(fieldErr("pipeline_scheduler", BatchQueue, "does not model the prefix cache, and request %d shares a prefix: set enable_prefix_caching false or pipeline_scheduler %q", r.ID, VirtualEngines))
		return
	}
	if r.Input < 1 || (c.MaxModelLen > 0 && r.Input+r.Output > c.MaxModelLen) ||
		b.blocks(need) > c.pool.Blocks || (!c.EnableChunkedPrefill && need > c.MaxNumBatchedTokens) {
		b.stats.rejected++
		b.env.Reject(r)
		return
	}
	if o := c.overhead; o > 0 {
		b.pending = append(b.pending, arrival{r: r, due: b.env.Now() + o})
		b.env.Schedule(b.env.Now()+o, event.Normal, b.onReady, 0)
		return
	}
	b.waiting = append(b.waiting, &bqSeq{req: r, target: r.Input})
	b.wake()
}

// ready moves the requests whose frontend overhead has ended to the
// waiting queue.
func (b *batchQueue) ready(int64) {
	now, n := b.env.Now(), 0
	for n < len(b.pending) && b.pending[n].due <= now {
		b.waiting = append(b.waiting, &bqSeq{req: b.pending[n].r, target: b.pending[n].r.Input})
		n++
	}
	b.pending = b.pending[n:]
	if n > 0 {
		b.wake()
	}
}

// wake schedules at the end of this instant, after same-time arrivals.
func (b *batchQueue) wake() {
	if !b.kicked {
		b.kicked = true
		b.env.Schedule(b.env.Now(), event.Late, b.onKick, 0)
	}
}

func (b *batchQueue) kick(int64) {
	b.kicked = false
	b.fill()
}

// fill is step_with_batch_queue's first branch: while fewer than k
// batches are in flight and the scheduler finds work, it schedules a
// batch and sends it into the pipeline without waiting for outputs.
func (b *batchQueue) fill() {
	for len(b.inflight) < b.k {
		bt, batch, preempted := b.schedule()
		if len(bt.items) == 0 {
			b.spare = append(b.spare, bt)
			if preempted {
				continue // the preemptions freed blocks: schedule again
			}
			return
		}
		var c cost.StepCost
		if b.cfg.StepTime != nil {
			c.Time = b.cfg.StepTime(batch)
		} else {
			c = b.cfg.step.Step(batch)
		}
		lat := b.pipe.through(b.env.Now(), &batch, &c)
		b.stats.add(b.env.Now(), &batch, &c, len(b.running), len(b.waiting)+len(b.pending), b.used)
		if dt := c.Time; !(dt > 0) || math.IsInf(dt, 1) {
			b.env.Abort(invalidf("step time %v s for batch %+v must be a finite number > 0", dt, batch))
			return
		}
		b.inflight = append(b.inflight, bt)
		b.env.Schedule(b.env.Now()+lat, event.Normal, b.onDone, 0)
	}
}

// schedule is vLLM v1's schedule() over the requests with work not in
// flight: running requests first in admission order (a decoder one token
// once its last token has returned, a prefill its next chunk even while
// earlier chunks are in flight), preempting the newest running request
// not in flight while the KV blocks do not suffice (vLLM's preempts the
// newest, in flight or not) and stopping at the first it cannot fit;
// then, if nothing was preempted, waiting requests FCFS under
// max_num_seqs, the token budget and the free blocks.
func (b *batchQueue) schedule() (*bqBatch, cost.Batch, bool) {
	bt := b.newBatch()
	var batch cost.Batch
	c := b.cfg
	budget, preempted := c.MaxNumBatchedTokens, false
	for i := 0; i < len(b.running) && budget > 0; {
		q := b.running[i]
		n, decode := 0, false
		switch {
		case q.computed < q.target:
			n = min(q.target-q.computed, budget)
			if !c.EnableChunkedPrefill && n < q.target-q.computed {
				i++
				continue
			}
		case q.inflight == 0:
			n, decode = 1, true
		default:
			i++
			continue
		}
		need := b.blocks(q.computed+n) - q.held
		for b.used+need > c.pool.Blocks {
			j := b.victim(i)
			if j < 0 {
				break
			}
			b.preempt(j)
			preempted = true
			if j == i {
				break
			}
		}
		if i >= len(b.running) || b.running[i] != q || b.used+need > c.pool.Blocks {
			break // vLLM stops at the first running request it cannot schedule
		}
		b.take(q, n, need, decode, bt, &batch)
		budget -= n
		i++
	}
	if preempted {
		return bt, batch, true // vLLM admits nothing in a step that preempted
	}
	for len(b.waiting) > 0 && budget > 0 && len(b.running) < c.MaxNumSeqs {
		q := b.waiting[0]
		n := min(q.target, budget)
		if !c.EnableChunkedPrefill && n < q.target {
			break
		}
		need := b.blocks(n)
		if b.used+need > c.pool.Blocks {
			break
		}
		b.waiting = b.waiting[1:]
		b.running = append(b.running, q)
		b.env.Start(q.req)
		b.take(q, n, need, false, bt, &batch)
		budget -= n
	}
	return bt, batch, false
}

// take schedules n tokens of q (need more blocks) in batch bt.
func (b *batchQueue) take(q *bqSeq, n, need int, decode bool, bt *bqBatch, batch *cost.Batch) {
	if decode {
		batch.DecodeSeqs++
		batch.DecodeContext += float64(q.computed + 1)
	} else {
		batch.AddPrefill(n, q.computed)
	}
	b.used += need
	q.held += need
	q.computed += n
	q.inflight++
	bt.items = append(bt.items, bqItem{q: q, emits: decode || q.computed == q.target})
}

// victim returns the index of the newest running request at or after
// index from with nothing in flight, or −1.
func (b *batchQueue) victim(from int) int {
	for j := len(b.running) - 1; j >= from; j-- {
		if b.running[j].inflight == 0 {
			return j
		}
	}
	return -1
}

// preempt evicts running[j] by recompute: its blocks go back to the pool
// and it returns to the front of the waiting queue, to prefill its prompt
// and the tokens it generated again.
func (b *batchQueue) preempt(j int) {
	q := b.running[j]
	b.running = slices.Delete(b.running, j, j+1)
	b.used -= q.held
	q.held, q.computed = 0, 0
	q.target = q.req.Input + q.generated
	b.stats.preemptions++
	b.waiting = slices.Insert(b.waiting, 0, q)
}

func (b *batchQueue) newBatch() *bqBatch {
	if n := len(b.spare); n > 0 {
		bt := b.spare[n-1]
		b.spare = b.spare[:n-1]
		bt.items = bt.items[:0]
		return bt
	}
	return &bqBatch{}
}

// done applies the oldest batch's output (update_from_output): each
// decode token and each completed prefill emits a token, finished
// requests leave; then the queue is filled again.
func (b *batchQueue) done(int64) {
	bt := b.inflight[0]
	b.inflight = b.inflight[1:]
	now := b.env.Now()
	for _, it := range bt.items {
		q := it.q
		q.inflight--
		if !it.emits {
			continue
		}
		q.generated++
		switch {
		case q.generated == 1:
			b.env.FirstToken(q.req)
		case !q.req.Warmup:
			b.env.Tokens(now-q.lastToken, 1)
		}
		q.lastToken = now
		if q.generated >= q.req.Output {
			b.retire(q)
		}
	}
	b.spare = append(b.spare, bt)
	b.fill()
}

// retire frees a finished request's blocks and reports it.
func (b *batchQueue) retire(q *bqSeq) {
	b.running = slices.Delete(b.running, slices.Index(b.running, q), slices.Index(b.running, q)+1)
	b.used -= q.held
	q.held = 0
	b.env.Finish(q.req)
}

// queuedPipeline is Replicas pipelines under the batch queue behind
// Pipeline.Router.
type queuedPipeline struct {
	cfg    Pipeline
	queues []*batchQueue
	next   int
}

func (p *queuedPipeline) Arrive(r *metrics.Request) {
	i := 0
	if len(p.queues) > 1 {
		router := p.cfg.Router
		if router == "" {
			router = LeastOutstanding
		}
		i = pick(router, &p.next, p.queues)
	}
	p.queues[i].Arrive(r)
}

// GPUs reports Replicas × Stages × TP (sim.GPUCounter).
func (p *queuedPipeline) GPUs() int { return p.cfg.GPUs() }

// Series returns each pipeline's counters over time.
func (p *queuedPipeline) Series() []*metrics.Series {
	if len(p.queues) == 0 || p.queues[0].stats.series == nil {
		return nil // Config.WithoutSeries
	}
	out := make([]*metrics.Series, len(p.queues))
	for i, q := range p.queues {
		out[i] = q.stats.series
	}
	return out
}

// Stats reports the pipelines' counters merged (busy_fraction is a
// stage's utilisation: every batch passes every stage), then the stage
// count.
func (p *queuedPipeline) Stats() []metrics.Stat {
	lists := make([][]metrics.Stat, len(p.queues))
	for i, q := range p.queues {
		lists[i] = q.stats.list(q.env.Now())
	}
	out, err := metrics.MergeStats(lists)
	if err != nil {
		panic("batching: pipelines report different counters: " + err.Error())
	}
	return append(out, metrics.Stat{Name: "pipeline_parallel_size", Value: float64(p.cfg.Stages)})
}
