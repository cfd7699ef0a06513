package batching

import (
	"fmt"
	"math"
	"strconv"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
)

// Speculative decoding (Config.Speculative, docs/speculative.md).
//
// A speculative engine tracks its decoders one by one, not in aggregate:
// each step every decoding request proposes d ≤ k draft tokens and the
// target verifies its 1 + d tokens in one pass, which the token budget
// and the KV pool see; the request then emits 1 + a tokens, a drawn from
// the acceptance model. Its KV grows by the tokens emitted: the slots of
// rejected drafts are allocated for the step and given back at its end.

// specResolved is the resolved speculative configuration of an engine.
type specResolved struct {
	cfg    specdecode.Config
	k      int
	acc    specdecode.Acceptance
	draft  *cost.StepModel // passes after the first; nil for Ngram or with StepTime
	first  *cost.StepModel // the first pass (draft unless its shape differs)
	passes int
	cpu    float64 // proposer CPU seconds per decoding sequence
	// logitTime is the time of the proposer's logit traffic beyond its LM
	// head per sampled row per pass, seconds (specdecode.Draft's
	// LogitBytesPerRow at the GPU's achieved bandwidth).
	logitTime float64
}

// resolveSpec resolves c.Speculative into r, shrinking the KV pool by the
// draft's weights and giving each block the draft's KV too, as vLLM sizes
// one block table for the target's and the draft's attention layers.
func (c Config) resolveSpec(r *resolved) error {
	sc := *c.Speculative
	acc, err := sc.Acceptance()
	if err != nil {
		return specErr(err)
	}
	s := &specResolved{cfg: sc, k: sc.NumSpeculativeTokens, acc: acc}
	r.spec = s
	if c.StepTime != nil {
		// StepTime prices the whole step, proposals included.
		return nil
	}
	tp := c.Deployment.TP
	d, err := sc.Draft(c.Deployment.Model, tp, cost.Model)
	if err != nil {
		return specErr(err)
	}
	s.passes, s.cpu = d.Passes, d.CPUSecondsPerSeq
	if d.Passes == 0 {
		return nil
	}
	dd := c.Deployment
	dd.Model, dd.TP = d.Model, d.TP
	if d.Model.Experts == 0 || d.TP != tp {
		// A dense head (or one on fewer GPUs) runs apart from the target's
		// data-parallel groups; an MTP block of a MoE model shares their
		// expert layout.
		dd.DP, dd.EP = 0, 0
	}
	dd.KVCacheMemory = 0
	sm, err := dd.Compile()
	if err != nil {
		return fieldErr("speculative_config", nil, "the draft %q does not run on this deployment: %v", d.Model.Name, err)
	}
	s.draft, s.first = sm, sm
	if d.First != d.Model {
		fd := dd
		fd.Model = d.First
		if s.first, err = fd.Compile(); err != nil {
			return fieldErr("speculative_config", nil, "the draft %q does not run on this deployment: %v", d.Model.Name, err)
		}
	}
	if d.LogitBytesPerRow > 0 {
		bw := dd.Eff.Bandwidth
		if dd.Profile != nil {
			bw = dd.Profile.Bandwidth
		}
		if bw == 0 {
			bw = 1
		}
		s.logitTime = d.LogitBytesPerRow / float64(d.TP) / (dd.GPU.BandwidthBytesPerS * bw)
	}
	if c.KVBlocks > 0 {
		return nil
	}
	m, err := c.Deployment.Memory(c.BlockSize)
	if err != nil {
		return deploymentErr(c.Deployment, c.BlockSize, err)
	}
	dw := dd.StreamedWeightBytesPerRank()
	dkv := dd.KVBytesPerTokenPerRank()
	pool := m.KVPoolBytes - dw
	if c.Deployment.KVCacheMemory > 0 {
		// kv_cache_memory is the pool itself: the draft's weights come
		// out of the rest of the GPU.
		pool = m.KVPoolBytes
	}
	perBlock := float64(c.BlockSize) * (m.KVBytesPerToken + dkv)
	blocks := 0
	if pool > 0 {
		blocks = int(math.Floor(pool / perBlock))
	}
	if blocks < 1 {
		return fieldErr("speculative_config", nil, "model %q: the draft's %.2f GiB of weights per GPU leave no KV cache beside the target's (%.2f GiB were free for it): use a smaller draft, more GPUs or a larger gpu_memory_utilization",
			d.Model.Name, dw/cost.GiB, m.KVPoolBytes/cost.GiB)
	}
	r.pool.Blocks = blocks
	r.pool.BytesPerToken = m.KVBytesPerToken + dkv
	return nil
}

// specErr is a specdecode error (a *fielderr.Error at
// speculative_config) marked as this package's.
func specErr(err error) error {
	return errmark.With(ErrInvalid, err)
}

// specSeqs holds the speculative decoders scheduled in the current step.
type specState struct {
	batch []*seq // scheduled this step, with q.draft set
	stats specStats
}

// specStats are vLLM's spec-decode counters and the time split.
type specStats struct {
	drafts, draftTokens, accepted int64
	perPos                        []int64 // accepted at position i
	draftTime, busy               float64 // proposer seconds, all step seconds
}

// joinSpec makes q a speculative decoder after its prefill.
func (e *engine) joinSpec(q *seq) { q.spec = true }

// planSpec gives each speculative decoder, in running order, its draft
// tokens within budget (d = min(k, budget − 1, tokens left − 1); none
// when the budget is spent) and returns the tokens scheduled and the KV
// blocks they need.
func (e *engine) planSpec(budget int) (tokens, need int) {
	s := e.sp
	s.batch = s.batch[:0]
	k := e.cfg.spec.k
	for q := e.head; q != nil; q = q.next {
		if !q.spec {
			continue
		}
		if budget < 1 {
			break
		}
		d := min(k, budget-1, q.req.Output-q.generated-1)
		q.draft = d
		s.batch = append(s.batch, q)
		budget -= 1 + d
		tokens += 1 + d
		need += e.blocks(q.computed+1+d) - e.blocks(q.computed)
	}
	return tokens, need
}

// formSpec is formChunked for a speculative engine: the decoders' verify
// tokens first, then the partial prefill's next chunk, preempting the
// newest running request while the KV blocks do not suffice; then, if
// nothing was preempted, waiting requests first come first served.
// Without chunked prefill it is formSpecPrefillFirst.
func (e *engine) formSpec() {
	if !e.cfg.EnableChunkedPrefill {
		e.formSpecPrefillFirst()
		return
	}
	budget := e.cfg.MaxNumBatchedTokens
	preempted := false
	var used, need, pc, pneed int
	for {
		used, need = e.planSpec(budget)
		pc, pneed = 0, 0
		if p := e.partial; p != nil {
			pc = max(0, min(p.target-p.computed, budget-used))
			pneed = e.blocks(p.computed+pc) - e.blocks(p.computed)
		}
		if e.usedBlocks+need+pneed <= e.cfg.pool.Blocks || e.tail == nil {
			break
		}
		e.preempt(e.tail)
		preempted = true
	}
	e.stepDecodes = 0
	budget -= used
	e.allocBlocks(need + pneed)
	if pc > 0 {
		e.chunks = append(e.chunks, chunk{e.partial, pc})
		e.cacheFull(e.partial, e.partial.computed+pc, false)
		budget -= pc
	}
	if preempted && e.running > 0 {
		return
	}
	for e.waiting.Len() > 0 && budget > 0 && e.running < e.cfg.MaxNumSeqs {
		q, hit, evictable, ok := e.nextWaiting()
		if !ok {
			break
		}
		done := hit * e.cfg.BlockSize
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
			e.partial = q
		}
	}
}

// formSpecPrefillFirst is formPrefillFirst for a speculative engine, as
// vLLM v0 ran speculative decoding without chunked prefill: a step that
// can admit waiting prompts whole prefills them alone (the proposer runs
// over their tokens: an EAGLE or MTP head needs their hidden states, a
// draft model its own KV); otherwise every decoder verifies its 1 + d
// tokens, preempting the newest running request while the KV blocks do
// not suffice.
func (e *engine) formSpecPrefillFirst() {
	e.sp.batch = e.sp.batch[:0]
	e.stepDecodes = 0
	if e.formPrefillWhole(); len(e.chunks) > 0 {
		return
	}
	for {
		_, need := e.planSpec(e.cfg.MaxNumBatchedTokens)
		if e.usedBlocks+need <= e.cfg.pool.Blocks || e.tail == nil {
			e.allocBlocks(need)
			return
		}
		e.preempt(e.tail)
	}
}

// formPrefillWhole admits waiting prompts whole, first come first
// served, while the token budget, max_num_seqs and the KV blocks allow:
// the prefill half of formPrefillFirst, and of formSpecPrefillFirst.
func (e *engine) formPrefillWhole() {
	budget := e.cfg.MaxNumBatchedTokens
	for e.waiting.Len() > 0 && e.running < e.cfg.MaxNumSeqs {
		q, hit, evictable, ok := e.nextWaiting()
		if !ok {
			break
		}
		n := q.target - e.startAt(q, hit)
		nb := e.blocks(q.target) - hit
		if n <= budget && e.usedBlocks+nb+evictable > e.cfg.pool.Blocks && e.passHead(q) {
			continue
		}
		if n > budget || e.usedBlocks+nb+evictable > e.cfg.pool.Blocks {
			break
		}
		e.admit(q, n, hit)
		budget -= n
	}
}

// addSpec adds the scheduled speculative decoders to the step's batch:
// each a decoding sequence of context computed + 1 with d draft tokens.
func (e *engine) addSpec(b *cost.Batch) {
	for _, q := range e.sp.batch {
		c := float64(q.computed + 1)
		b.AddDecode(c, q.draft)
	}
}

// specCost adds the proposer's time to the step cost c of batch b: the
// first draft pass over every token the target ran (EAGLE and MTP heads
// need the hidden states of prefill tokens too; EAGLE-3's fuses them
// there), then passes − 1 passes of one token per sampling sequence, and
// each pass's logit traffic per sampled row; or the n-gram search on the
// CPU.
func (e *engine) specCost(b *cost.Batch, c *cost.StepCost) {
	s := e.cfg.spec
	defer func() { e.sp.stats.busy += c.Time }()
	if e.cfg.StepTime != nil {
		return
	}
	var t float64
	n := len(e.sp.batch)
	if s.draft != nil && b.Tokens() > 0 {
		t = s.first.Step(*b).Time
		t += float64(s.passes) * float64(b.DecodeSeqs+b.PrefillSeqs) * s.logitTime
		if s.passes > 1 && n > 0 {
			var ctx float64
			for _, q := range e.sp.batch {
				ctx += float64(q.computed + 2)
			}
			t += float64(s.passes-1) * s.draft.Step(cost.Batch{DecodeSeqs: n, DecodeContext: ctx}).Time
		}
	}
	t += s.cpu * float64(n)
	c.Time += t
	e.sp.stats.draftTime += t
}

// finishSpec applies the verification of the step that ends now: each
// scheduled decoder emits 1 + a tokens (at most what it has left), the
// KV slots of rejected drafts go back to the pool, and finished requests
// leave.
func (e *engine) finishSpec(now float64) {
	s := e.cfg.spec
	st := &e.sp.stats
	seed := e.env.Seed()
	seen := e.visible(now, len(e.sp.batch)) // when the clients see the tokens (apiserver.go)
	for _, q := range e.sp.batch {
		d := q.draft
		a := s.acc.Accepted(specdecode.Uniform(seed, int64(q.req.ID), q.generated), d)
		if d > 0 {
			st.drafts++
			st.draftTokens += int64(d)
			st.accepted += int64(a)
			for i := range a {
				st.perPos[i]++
			}
		}
		emit := min(1+a, q.req.Output-q.generated)
		before := e.blocks(q.computed + 1 + d)
		q.generated += emit
		q.computed += emit
		e.releaseBlocks(before - e.blocks(q.computed))
		if !q.req.Warmup {
			// One streamed chunk carries the step's tokens: the client
			// sees one inter-token gap, as vLLM's benchmark records it.
			e.env.Tokens(seen-q.lastToken, 1)
		}
		q.lastToken = seen
		if q.generated >= q.req.Output {
			q.spec = false
			e.retire(q, q.computed, seen)
		}
	}
	e.sp.batch = e.sp.batch[:0]
}

// releaseBlocks gives n blocks allocated for rejected drafts back.
func (e *engine) releaseBlocks(n int) {
	if n <= 0 {
		return
	}
	if e.cache == nil {
		e.usedBlocks -= n
		return
	}
	e.cache.releaseAnon(n)
	e.usedBlocks = e.cache.used
}

// specStatList reports vLLM's spec-decode counters: drafts, draft tokens,
// accepted tokens, the mean acceptance length, the acceptance rate per
// position, and the proposer's and the verify pass's shares of busy time.
func (e *engine) specStatList() []metrics.Stat {
	st := &e.sp.stats
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	out := []metrics.Stat{
		{Name: "spec_decode_num_drafts", Value: float64(st.drafts)},
		{Name: "spec_decode_num_draft_tokens", Value: float64(st.draftTokens)},
		{Name: "spec_decode_num_accepted_tokens", Value: float64(st.accepted)},
		{Name: "spec_decode_mean_acceptance_length", Merge: metrics.Mean, Value: 1 + div(float64(st.accepted), float64(st.drafts))},
		{Name: "spec_decode_draft_acceptance_rate", Merge: metrics.Mean, Value: div(float64(st.accepted), float64(st.draftTokens))},
		{Name: "spec_decode_draft_time_fraction", Merge: metrics.Mean, Value: div(st.draftTime, st.busy)},
		{Name: "spec_decode_verify_time_fraction", Merge: metrics.Mean, Value: div(st.busy-st.draftTime, st.busy)},
	}
	for i, n := range st.perPos {
		out = append(out, metrics.Stat{Name: "spec_decode_acceptance_rate_pos_" + strconv.Itoa(i), Merge: metrics.Mean,
			Value: div(float64(n), float64(st.drafts))})
	}
	return out
}

// String describes the speculative configuration for errors and reports.
func (s *specResolved) String() string {
	return fmt.Sprintf("%s k=%d", s.cfg.Method, s.k)
}
