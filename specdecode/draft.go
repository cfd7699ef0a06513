package specdecode

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// Eagle3DraftVocab is the draft vocabulary of the published EAGLE-3 heads
// (draft_vocab_size 32000 in yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's
// config.json): their LM head is that much smaller than the target's.
const Eagle3DraftVocab = 32000

// NgramSecondsPerSeq is the CPU time of vLLM's n-gram proposer per
// decoding sequence per step, seconds: a KMP search of the request's
// recent tokens (numba-compiled in vLLM v1). An estimate, not a
// measurement: it is the order of a short array scan.
const NgramSecondsPerSeq = 5e-6

// Draft is the proposer of a configuration, as the cost model prices it.
type Draft struct {
	// Method is the canonical proposer.
	Method Method
	// Model is the shape the proposals after the first run through,
	// priced by the cost model like the target (unset for Ngram and
	// Suffix):
	//   - EAGLE: one decoder layer of the target's shape with its fc
	//     (2H·H: the token's embedding and the previous hidden state, run
	//     every pass) folded into the MLP width, and the target's LM head;
	//   - EAGLE-3: one decoder layer whose QKV projection reads 2H inputs
	//     (the embedding and the hidden state concatenated, vLLM's
	//     llama_eagle3), the extra H·(q + 2kv) weights folded into the MLP
	//     width, and its own LM head over Eagle3DraftVocab rows;
	//   - MTP: one decoder block of the target (its MoE included) with the
	//     2H·H eh_proj folded into the MLP, and the shared LM head;
	//   - Medusa: one target-shaped layer carrying k LM heads (an upper
	//     bound: Medusa's heads are residual blocks without attention);
	//   - draft model: the catalog model named.
	Model cost.ModelSpec
	// First is the shape of the first pass, over every token the target
	// ran this step: Model, and for EAGLE-3 also the fc that fuses the
	// target's three hidden states (3H·H), which vLLM's proposer applies
	// once a step (combine_hidden_states) and not on every pass.
	First cost.ModelSpec
	// LogitBytesPerRow is the memory traffic per sampled row per pass
	// beyond the LM head, bytes: EAGLE-3's compute_logits writes a
	// target-vocabulary row of −inf, scatters the draft-vocabulary logits
	// into it, and the argmax reads it back ((2·V + V_draft) × the
	// activation bytes); 0 for the others.
	LogitBytesPerRow float64
	// TP is the draft's tensor parallelism.
	TP int
	// Passes is the draft forward passes per step: k for EAGLE, MTP and a
	// draft model (the first over every token the target scheduled, the
	// others one token per sequence), 1 for Medusa, 0 for Ngram and
	// Suffix.
	Passes int
	// CPUSecondsPerSeq is the proposer's CPU time per decoding sequence
	// per step (Ngram, Suffix), seconds.
	CPUSecondsPerSeq float64
}

// Draft returns the proposer of c for target at tensor parallelism tp;
// model looks a draft model up by name (cost.Model). Errors name the
// field: a draft model that is unknown, has another vocabulary than the
// target, or a draft TP vLLM refuses.
func (c Config) Draft(target cost.ModelSpec, tp int, model func(string) (cost.ModelSpec, error)) (Draft, error) {
	if err := c.Validate(); err != nil {
		return Draft{}, err
	}
	m := Canonical(c.Method, c.Model)
	k := c.NumSpeculativeTokens
	dtp := c.DraftTensorParallelSize
	if dtp == 0 {
		dtp = tp
	}
	if dtp != 1 && dtp != tp {
		return Draft{}, invalidf("draft_tensor_parallel_size %d must be 1 or the target's tensor_parallel_size %d", dtp, tp)
	}
	d := Draft{Method: m, TP: dtp, Passes: k}
	head := target
	head.Name = fmt.Sprintf("%s %s head", target.Name, m)
	head.Layers, head.DenseLayers, head.SlidingLayers = 1, 0, 0
	// widen folds p more weights per layer into the MLP width (3·H weights
	// per unit of intermediate size), rounded to the nearest unit.
	widen := func(h *cost.ModelSpec, p int) {
		unit := 3 * target.Hidden
		h.Intermediate += (p + unit/2) / unit
	}
	fc := func(h int) int { return h * target.Hidden * target.Hidden } // an fc of h·H inputs and H outputs
	var first *cost.ModelSpec                                          // set where the first pass differs
	switch m {
	case Ngram, Suffix:
		d.Passes, d.CPUSecondsPerSeq = 0, NgramSecondsPerSeq
		return d, nil
	case Eagle:
		widen(&head, fc(2))
	case Eagle3:
		heads, kv := target.Heads, target.KVHeads
		widen(&head, target.Hidden*(heads+2*kv)*target.HeadDim) // QKV over 2H inputs
		head.Vocab = min(head.Vocab, Eagle3DraftVocab)
		f := head
		widen(&f, fc(3))
		first = &f
		d.LogitBytesPerRow = float64(2*target.Vocab+head.Vocab) * target.ActBytes
	case MTP:
		if target.Experts > 0 {
			head.DenseLayers = 0
		}
		widen(&head, fc(2))
	case Medusa:
		head.Vocab *= k
		d.Passes = 1
	case DraftModel:
		dm, err := model(c.Model)
		if err != nil {
			return Draft{}, invalidf("model %q: %v", c.Model, err)
		}
		if dm.Vocab != target.Vocab {
			return Draft{}, invalidf("model %q has vocab %d, not the target %q's %d: vLLM needs the draft and target to share a vocabulary", c.Model, dm.Vocab, target.Name, target.Vocab)
		}
		head = dm
	}
	if first == nil {
		first = &head
	}
	for _, h := range []*cost.ModelSpec{&head, first} {
		if err := h.Validate(); err != nil {
			return Draft{}, invalidf("the draft's shape is invalid: %v", err)
		}
	}
	d.Model, d.First = head, *first
	return d, nil
}
