// Package specdecode describes speculative decoding as vLLM runs it: the
// --speculative-config JSON (Config, Parse), the proposer's shape priced
// by the cost model (Draft), and the acceptance model that says how many
// draft tokens each verification accepts (Acceptance).
//
// A decoding sequence proposes k draft tokens per step; the target
// verifies the k + 1 tokens (its last token and the drafts) in one pass
// and emits 1 + a tokens, a the accepted drafts. The acceptance model is
// vLLM's per-position acceptance rates, one i.i.d. rate α, or a measured
// row of DefaultTable; each verification draws one uniform from a hash of
// (seed, request, position), so a run is reproducible and a request's
// acceptances do not depend on the batch around it.
//
// See docs/speculative.md for the cost terms, sources and limits.
package specdecode
