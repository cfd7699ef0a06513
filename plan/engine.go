package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
)

// Engine is the Replica of an LLM candidate: vLLM engines configured by
// Config (a cost.Deployment and the scheduler knobs), as many as asked,
// behind Router. It is a Screener: its screen applies vLLM's start-up
// checks and the cost model's memory fit and roofline.
type Engine struct {
	Config batching.Config
	// Router spreads requests over the replicas; "" means
	// batching.LeastOutstanding.
	Router batching.Router
	// ServeArgs are extra `vllm serve` flags the configuration needs (the
	// precision's, see ApplyPrecision).
	ServeArgs []string
}

// Servers returns n engines behind the router.
func (e Engine) Servers(n int) sim.ServerConfig {
	r := e.Router
	if r == "" {
		r = batching.LeastOutstanding
	}
	return batching.Cluster{Engine: e.Config, Replicas: n, Router: r}
}

// Screen judges the engine before any simulation, in this order:
//
//   - Invalid: TP does not divide the heads or the MLP (the cost model's
//     shape rule), max-num-batched-tokens < max-num-seqs, or chunked
//     prefill off with max-num-batched-tokens < max-model-len: vLLM
//     refuses to start.
//   - DoesNotFit: the weights and the runtime reserve leave no KV block
//     (cost.ErrDoesNotFit), or the KV pool holds fewer tokens than one
//     max-model-len request or one step's token budget.
//   - Unreachable: at zero load, with every step at its roofline time,
//     more than a share 1−q of the demand's requests would still miss a
//     bound (by more than 3 binomial standard errors of the sample). A
//     request's floors are: TTFT ≥ request overhead + one step that
//     prefills its whole prompt (chunking only adds steps); TPOT ≥ one
//     batch-1 decode step at its prompt's context (every decode step of
//     the request takes at least that: steps grow with their batch);
//     E2E ≥ TTFT floor + (O−1)·TPOT floor.
//
// MaxRate is the throughput roofline of one replica (with D
// data-parallel groups, D times a group's, each step routing all D groups'
// tokens through the MoE layers). A step of T ≤
// max-num-batched-tokens tokens takes at least t(T), the step time of T
// prompt tokens in one chunk with no attention pairs and no KV reads; a
// request needs its L prompt tokens and O−1 decode tokens computed, at
// most max-num-seqs of them decodes in one step. So a replica completes at
// most max_T T/t(T) / (E[L] + E[O] − 1) requests a second, and at most
// max_{d ≤ max-num-seqs} d/t_d(d) / (E[O] − 1), t_d the decode-only step;
// MaxRate is the smaller. An engine with its own StepTime has no roofline:
// it is screened for shape and memory only; so is one with speculative
// decoding, whose steps emit up to 1 + k tokens a sequence (the floors
// above assume one).
func (e Engine) Screen(d Demand) Screening {
	c := e.Config
	dep := c.Deployment
	if _, err := dep.Shape(); err != nil {
		return Screening{Reason: Invalid, Why: sentence(err)}
	}
	switch {
	case c.MaxNumSeqs >= 1 && c.MaxNumBatchedTokens < c.MaxNumSeqs:
		return Screening{Reason: Invalid, Why: fmt.Sprintf("max-num-batched-tokens %d < max-num-seqs %d: vLLM needs a token per running sequence a step",
			c.MaxNumBatchedTokens, c.MaxNumSeqs)}
	case !c.EnableChunkedPrefill && c.MaxModelLen > c.MaxNumBatchedTokens:
		return Screening{Reason: Invalid, Why: fmt.Sprintf("chunked prefill off needs max-num-batched-tokens %d >= max-model-len %d",
			c.MaxNumBatchedTokens, c.MaxModelLen)}
	}
	tokens := c.KVBlocks * c.BlockSize
	if c.KVBlocks == 0 {
		mem, err := dep.Memory(c.BlockSize)
		switch {
		case errors.Is(err, cost.ErrDoesNotFit):
			return Screening{Reason: DoesNotFit, Why: sentence(err)}
		case err != nil:
			return Screening{Reason: Invalid, Why: sentence(err)}
		}
		tokens = mem.KVTokens
	}
	switch {
	case tokens < c.MaxModelLen:
		return Screening{Reason: DoesNotFit, Why: fmt.Sprintf("the KV pool holds %d tokens, fewer than one max-model-len request (%d)", tokens, c.MaxModelLen)}
	case tokens < c.MaxNumBatchedTokens:
		return Screening{Reason: DoesNotFit, Why: fmt.Sprintf("the KV pool holds %d tokens, fewer than one step's max-num-batched-tokens (%d)", tokens, c.MaxNumBatchedTokens)}
	}
	if err := c.Validate(); err != nil {
		return Screening{Reason: Invalid, Why: sentence(err)}
	}
	if c.StepTime != nil || c.Speculative != nil {
		return Screening{MaxRate: math.Inf(1)}
	}
	sm, err := dep.Compile()
	if err != nil {
		return Screening{Reason: Invalid, Why: sentence(err)}
	}
	if why := floorMisses(sm, c.RequestOverhead, d); why != "" {
		return Screening{Reason: Unreachable, Why: why}
	}
	return Screening{MaxRate: roofline(sm, max(dep.DP, 1), c.MaxNumSeqs, c.MaxNumBatchedTokens, d.MeanInput, d.MeanOutput)}
}

// floorMisses returns why the latency floors miss the SLO, or "".
func floorMisses(sm *cost.StepModel, overhead float64, d Demand) string {
	slo := d.Criteria.SLO
	type tally struct {
		n    int
		min  float64
		name string
	}
	ttft, tpot, e2e := tally{min: math.Inf(1), name: "TTFT"}, tally{min: math.Inf(1), name: "TPOT"}, tally{min: math.Inf(1), name: "E2E"}
	misses := 0
	// floors holds each prompt length's prefill and first decode step
	// (demands repeat lengths: a fixed-length one has a single one).
	type floor struct{ first, step float64 }
	floors := make(map[int]floor)
	for _, l := range d.Lengths {
		f, ok := floors[l.Input]
		if !ok {
			// Alone on the deployment: the MoE layers of a data-parallel one
			// route this request's tokens only (DPTokens), the least any step
			// of it routes.
			var b cost.Batch
			b.AddPrefill(l.Input, 0)
			b.DPTokens = b.Tokens()
			f.first = overhead + sm.Step(b).Time
			dec := cost.DecodeBatch(1, float64(l.Input+1))
			dec.DPTokens = 1
			f.step = sm.Step(dec).Time
			floors[l.Input] = f
		}
		first, step := f.first, 0.0
		if l.Output > 1 {
			step = f.step
		}
		total := first + float64(l.Output-1)*step
		miss := false
		note := func(t *tally, floor, bound float64) {
			if bound > 0 && floor > bound {
				t.n++
				t.min = math.Min(t.min, floor)
				miss = true
			}
		}
		note(&ttft, first, slo.TTFT)
		if l.Output > 1 {
			note(&tpot, step, slo.TPOT)
		}
		note(&e2e, total, slo.E2E)
		if miss {
			misses++
		}
	}
	n := float64(len(d.Lengths))
	if n == 0 {
		return ""
	}
	f := float64(misses) / n
	if f-3*math.Sqrt(f*(1-f)/n) <= 1-d.Criteria.Target {
		return ""
	}
	var parts []string
	for _, t := range []tally{ttft, tpot, e2e} {
		if t.n > 0 {
			parts = append(parts, fmt.Sprintf("%s for %.1f%% (floors from %s)", t.name, 100*float64(t.n)/n, ms(t.min)))
		}
	}
	return fmt.Sprintf("at zero load the roofline floor alone misses the SLO for %.1f%% of requests, more than the %.3g%% allowed: %s",
		100*f, 100*(1-d.Criteria.Target), strings.Join(parts, ", "))
}

// roofline returns the throughput roofline of one replica of groups
// data-parallel groups (1: none), requests per second (see
// Engine.Screen): a step computes every group's tokens at the time of
// one group's, its MoE layers routing all of them.
func roofline(sm *cost.StepModel, groups, seqs, budget int, meanIn, meanOut float64) float64 {
	var tokens, decodes float64 // the best tokens/s of any step, of decode steps
	g := float64(groups)
	for t := 1; t <= budget; t++ {
		tokens = math.Max(tokens, g*float64(t)/sm.Step(cost.Batch{PrefillTokens: t, PrefillSeqs: 1, DPTokens: groups * t}).Time)
		if t <= seqs {
			decodes = math.Max(decodes, g*float64(t)/sm.Step(cost.Batch{DecodeSeqs: t, DPTokens: groups * t}).Time)
		}
	}
	rate := tokens / math.Max(meanIn+meanOut-1, 1)
	if meanOut > 1 {
		rate = math.Min(rate, decodes/(meanOut-1))
	}
	return rate
}

// ms writes seconds as milliseconds.
func ms(s float64) string { return fmt.Sprintf("%.3g ms", 1000*s) }

// unbuildable is the Replica of a candidate that cannot be configured at
// all (a precision the model does not allow): its screen rejects it.
type unbuildable struct {
	reason Reason
	why    string
}

func (u unbuildable) Servers(int) sim.ServerConfig { return nil }

func (u unbuildable) Screen(Demand) Screening { return Screening{Reason: u.reason, Why: u.why} }

// sentence returns err's message on one line: the lines of joined errors
// are separated by "; ".
func sentence(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
