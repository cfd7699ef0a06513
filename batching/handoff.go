package batching

import (
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// Instances for disaggregated prefill and decode (the disagg package).
//
// A prefill instance runs vLLM's scheduler as usual, but a request whose
// prefill has finished leaves the running list without emitting a token:
// the instance hands it to its owner (Handoff) and keeps its KV blocks
// until the owner calls Release, as vLLM's KV connectors delay freeing
// the blocks of a request until its KV has been sent
// (request_finished returning delay_free_blocks). A decode instance takes
// a request whose prompt KV has arrived (ArriveWithKV): its first
// input−1 prompt tokens count as computed at admission and the last one
// is recomputed to obtain the logits of the first output token, as vLLM's
// scheduler does for a request whose KV is all external
// (num_computed_tokens = num_tokens − 1); the client's first token is the
// decode instance's. A preemption on the decode side loses the remote KV
// and recomputes the whole prompt locally.

// startAt is the number of q's tokens already computed at admission: its
// hit blocks' tokens, or the remote prompt tokens if more.
func (e *engine) startAt(q *seq, hit int) int {
	return max(hit*e.cfg.BlockSize, q.remote)
}

// Handed is a request whose prefill finished on a prefill instance; its
// KV blocks stay held until Release.
type Handed struct {
	Req *metrics.Request
	// Prefilled is when its prefill's last chunk ended, seconds.
	Prefilled float64
	q         *seq
	e         *engine
}

// Release frees the request's KV blocks on the prefill instance (its
// transfer has ended). Call it once.
func (h *Handed) Release() {
	e, q := h.e, h.q
	if q == nil {
		panic("batching: Handed released twice")
	}
	e.freeBlocks(q, q.computed, false)
	e.active -= int64(e.blocks(q.req.Input))
	e.held--
	q.req, q.content = nil, nil
	e.free = append(e.free, q)
	h.q = nil
	// Freed blocks may let a waiting request in.
	if e.waiting.Len() > 0 && !e.busy && !e.kicked {
		e.kicked = true
		e.env.Schedule(e.env.Now(), event.Late, e.onKick, 0)
	}
}

// Instance is one engine of a disaggregated deployment: a prefill or a
// decode instance (see Config.NewInstance).
type Instance struct {
	e *engine
}

// NewInstance builds one engine of cfg (Deployment.DP must be 1) for a run
// on env. With handoff set it is a prefill instance: each request whose
// prefill ends is passed to handoff instead of emitting its first token.
// Without, it is a decode instance (or a plain engine); firstToken, when
// set, is told of each first token it emits.
func (c Config) NewInstance(env *sim.Env, name string, handoff func(*Handed), firstToken func(*metrics.Request)) (*Instance, error) {
	if c.Deployment.DP > 1 {
		return nil, invalidf("deployment dp %d: a disaggregated instance must have dp 1 (use more instances)", c.Deployment.DP)
	}
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	e := newEngine(r, env, name)
	if handoff != nil {
		e.handoff = func(q *seq) {
			e.unlink(q)
			e.held++
			handoff(&Handed{Req: q.req, Prefilled: e.env.Now(), q: q, e: e})
		}
	}
	e.firstToken = firstToken
	return &Instance{e: e}, nil
}

// Arrive gives the instance a request to prefill (prefill instance) or to
// serve whole.
func (i *Instance) Arrive(r *metrics.Request) { i.e.Arrive(r) }

// ArriveWithKV gives a decode instance a request whose prompt KV has
// arrived: it needs only the last prompt token recomputed. It returns
// false when the instance rejected r (r has then ended).
func (i *Instance) ArriveWithKV(r *metrics.Request) bool { return i.e.arrive(r, max(r.Input-1, 0)) }

// Outstanding is the number of requests the instance holds in its
// request overhead, waiting or running (not those handed off).
func (i *Instance) Outstanding() int { return i.e.outstanding() }

// ActiveBlocks is the prompt blocks of the requests it holds, handed-off
// ones included (the prefix-aware router's load).
func (i *Instance) ActiveBlocks() int64 { return i.e.active }

// PromptBlocks is the number of blocks of a prompt of n tokens.
func (i *Instance) PromptBlocks(n int) int { return i.e.blocks(n) }

// CachedPrefix is the whole blocks of r's prompt the instance has cached.
func (i *Instance) CachedPrefix(r *metrics.Request) int { return i.e.cachedPrefix(r) }

// Pool is the instance's KV pool.
func (i *Instance) Pool() Pool { return i.e.cfg.pool }

// Held is the number of handed-off requests whose blocks are not yet
// released.
func (i *Instance) Held() int { return i.e.held }

// UsedBlocks is the KV blocks in use now.
func (i *Instance) UsedBlocks() int { return i.e.usedBlocks }

// Stats is the engine's counters (see the engine's Stats).
func (i *Instance) Stats() []metrics.Stat { return i.e.Stats() }

// Series is the engine's counters over time.
func (i *Instance) Series() *metrics.Series { return i.e.stats.series }

// GPUs is the instance's GPU count.
func (i *Instance) GPUs() int { return i.e.cfg.GPUs() }
