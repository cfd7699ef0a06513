package scenario

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/workload"
)

// checkFit rejects lengths the engine can never serve: an empty prompt, or
// a shortest request longer than max_model_len, than the KV pool (pool,
// when known) or, without chunked prefill, than the token budget. vLLM
// answers each such request with an error and its benchmark then reports
// every request failed; failing at the start names both numbers instead.
// Lengths that only sometimes exceed a limit run: those requests fail
// (rejected), as in vLLM.
func (s *Scenario) checkFit(lengths workload.Lengths, eng batching.Config, pool *batching.Pool) error {
	b, ok := lengths.(workload.Bounded)
	if !ok {
		return nil
	}
	inLo, _, outLo, _ := b.Bounds()
	in, whole := "workload.lengths.input", "workload.lengths.input"
	if s.Workload.Lengths.Kind == "trace" {
		in, whole = "workload.lengths.path", "workload.lengths.path"
	}
	shortest := inLo + outLo
	what := fmt.Sprintf("the shortest request has input %d + output %d = %d tokens", inLo, outLo, shortest)
	switch {
	case inLo < 1:
		return fieldErr(in, "the shortest prompt has %d tokens: the vLLM engine needs at least 1 (vLLM rejects an empty prompt)", inLo)
	case eng.MaxModelLen > 0 && shortest > eng.MaxModelLen:
		return fieldErr(whole, "%s, more than max_model_len %d%s: no request can run", what, eng.MaxModelLen, s.maxModelLenNote(eng))
	case pool != nil && shortest-1 > pool.Tokens:
		return fieldErr(whole, "%s, a KV footprint of %d, more than the KV pool's %d tokens: no request can run", what, shortest-1, pool.Tokens)
	case !eng.EnableChunkedPrefill && shortest-1 > eng.MaxNumBatchedTokens:
		return fieldErr(whole, "%s, more than max_num_batched_tokens %d + 1 with chunked prefill off (a whole request must fit one step): no request can run", what, eng.MaxNumBatchedTokens)
	}
	return nil
}

// maxModelLenNote says where the engine's max_model_len came from when the
// scenario did not set it.
func (s *Scenario) maxModelLenNote(eng batching.Config) string {
	if s.Server.MaxModelLen != 0 {
		return ""
	}
	return fmt.Sprintf(" (%s's context length, the default)", eng.Deployment.Model.Name)
}
