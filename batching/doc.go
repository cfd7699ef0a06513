// Package batching is a continuous-batching LLM engine as a sim.Server: a
// vLLM v1 replica (profile "vllm-v1") with iteration-level scheduling, a
// token budget, chunked prefill, a paged KV cache and preemption by
// recompute, whose step times and KV pool come from the cost.Deployment its
// Config holds (Deployment.Compile, Deployment.Memory).
//
// # What each step does (vLLM v1's schedule())
//
//  1. Every running decode gets one token; the one partially prefilled
//     prompt gets its next chunk from what is left of
//     max_num_batched_tokens.
//  2. If the KV blocks those need are not free, the newest running request
//     is preempted by recompute — its blocks go back to the pool, it
//     returns to the front of the waiting queue and later redoes its
//     prefill over prompt plus generated tokens — until they fit.
//  3. If nothing was preempted, waiting requests are admitted first come
//     first served while the budget, max_num_seqs and free blocks allow; a
//     prompt longer than the remaining budget is split (chunked prefill),
//     so running decodes share that step with it. This is what makes ITL
//     p99 spike when new requests join.
//  4. The step takes cost.StepModel.Step of the batch's shape (decode
//     contexts, prefill chunks) plus all-reduces under tensor parallelism.
//     At its end a request whose prefill completed emits its first token,
//     every decode emits one, and a request that reached its output length
//     leaves (ignore-EOS semantics) and frees its blocks.
//
// With EnableChunkedPrefill false the engine follows vLLM v0's default
// prefill-first scheduler instead: a step either prefills whole prompts
// (decodes pause) or decodes.
//
// # Cost per step
//
// Decoding requests are tracked in aggregate: their KV context sum, the
// count needing a new block this step (by block phase), and a heap of
// finish steps. A steady decode step is O(1) whatever the batch size;
// admissions, completions and preemptions cost O(log n) each. ITL is
// recorded per step (one gap shared by all decodes), TPOT per request at
// completion, so memory is O(requests in the engine), not O(tokens).
//
// # Reported counters
//
// Stats (through sim.Result.Server): KV pool size, preemptions, steps,
// tokens per step, time-averaged running and waiting counts and KV-cache
// usage, and MBU/MFU — achieved bytes/s and FLOP/s over busy time divided
// by one GPU's peaks.
//
// Cluster puts several replicas behind a router (round-robin or least
// outstanding requests) so one arrival stream can feed k replicas.
package batching
