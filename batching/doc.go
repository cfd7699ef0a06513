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
// With AsyncScheduling each step is formed when the step before it
// launches, as vLLM's asynchronous scheduler does: a request that reaches a
// busy engine is first scheduled one step later than without it.
//
// With Config.APIServer the frontend's one process (vLLM's API server)
// stands in front of the engine as one CPU that takes requests in and
// streams tokens out in the order the work arrives: requests reach the
// scheduler, and tokens their clients, when it has done with them
// (docs/cost-model.md#the-api-server-process). Each data-parallel group
// has its own. It is not modelled with the pipeline's v1 batch queue.
//
// # Attention data parallelism
//
// A Config whose Deployment.DP is D > 1 (a mixture-of-experts model served
// with vLLM's --data-parallel-size) is the whole deployment: D engines, one
// per data-parallel group, each with its own scheduler, max_num_seqs and
// KV pool (Config.Pool is one group's), sharing the MoE layers. vLLM aligns
// the groups' forward passes, so they step together: a step starts every
// group with work at once and lasts as long as the slowest group's step,
// each priced with its own batch for attention and all groups' tokens for
// the MoE layers (cost.Batch.DPTokens; padded to D times the largest
// group's within CUDAGraphTokens, as vLLM pads CUDA-graph steps). One
// group's prefill therefore holds the others' decodes. Requests go to the
// group of least 4·waiting + running, vLLM's internal DP balancer
// (Config.DPRouter DPBalanced, the default), or all to the first group
// (DPFirstGroup: vLLM's client for an external balancer, given requests
// that name no rank, as aiconfigurator's measured deployments behave). Under a
// load that every group sees alike (a closed loop of equal requests), the
// groups run the same batches and each behaves as one engine serving its
// share alone. A Cluster of such Configs is replicas of the deployment,
// each stepping its own groups, behind RoundRobin or LeastOutstanding.
//
// # Cost per step
//
// Decoding requests are tracked in aggregate: their KV context sum, the
// count needing a new block this step (by block phase), and a calendar
// queue of finish steps. A steady decode step is O(1) whatever the batch
// size, and so, amortised, are admissions, completions and preemptions. A
// run of decode steps that nothing can change (no arrival or other event,
// no completion, no admission, KV blocks to spare) is stepped in a loop
// without events, with the same results. ITL is
// recorded per step (one gap shared by all decodes), TPOT per request at
// completion, so memory is O(requests in the engine), not O(tokens).
//
// # Prefix caching
//
// With EnablePrefixCaching (the default, as vLLM's --enable-prefix-caching)
// the KV pool is vLLM v1's block pool with automatic prefix caching
// (vllm/v1/core/block_pool.py, kv_cache_manager.py, kv_cache_utils.py):
//
//   - A full block's hash is chained over every token before it and in it,
//     so equal hashes mean equal whole prefixes. Tokens are identified by
//     the request's content (sim.Env.Content: metrics.Span, from the
//     workload's workload.Segment): the hash mixes each span piece's ID,
//     offset and length, so a trace described in 512-token blocks maps
//     exactly onto 16-token engine blocks. Tokens past the content are
//     the request's own; a request without content shares nothing.
//   - When a waiting request is considered, its longest run of cached
//     leading blocks is a hit, capped at its tokens − 1 (vLLM recomputes
//     the last token for its logits) and counted in whole blocks. The hit
//     skips that part of the prefill: its first chunk starts after it, and
//     the token budget pays only for computed tokens, while the hit tokens'
//     KV still occupies the (shared) blocks and is read by the chunk's
//     attention (cost.Batch.PrefillContext). A resumed preempted request
//     finds its own blocks if they were not evicted.
//   - A block is held by reference count; a shared block is one block of
//     the pool. A chunk's full blocks are cached when the chunk is
//     scheduled; blocks filled by decoding when the request leaves
//     (decoders are tracked in aggregate, and no other request can ask for
//     a prefix that includes a running request's output).
//   - Freed blocks join one free queue, a request's last block first; the
//     cached ones stay findable until allocation pops them from the head of
//     the queue: the least recently freed is evicted first. Blocks are not
//     de-duplicated (a lookup finds the first of equal hashes).
//   - Config.WarmPrompts start the run with prompts cached, as a
//     benchmark's warm-up leaves them: each served and freed, in order.
//
// Runs of free blocks without a hash are one node of the queue, so memory
// is O(requests in the engine + cached blocks), the hash index never
// exceeds the pool, and each operation costs O(1) per block it touches. A
// workload without content costs O(1) per request: blocks of a request's
// own tokens are hashed only if it is preempted (only it could ever hit
// them), which no lookup can tell from hashing them always.
//
// The counters add vLLM's prefix_cache_queries and prefix_cache_hits
// (tokens; prompt tokens of each admitted request, and those found
// cached) and prefix_cache_hit_rate = hits/queries, with resumed
// preempted requests counted apart as vLLM does; KV-cache usage counts
// the blocks requests hold (a shared block once), and mean_kv_cache_cached
// the fraction of the pool holding cached blocks no request holds.
//
// # KV offloading
//
// With Config.KVOffload (vLLM's --kv-offloading-size; docs/kv-offload.md)
// the engine also keeps KV blocks in a host buffer, as vLLM's native
// OffloadingConnector does: every full block a step computes is copied to
// the host (store on compute), which evicts its least recently used
// blocks; a waiting request whose next blocks after its GPU hit are on the
// host leaves the line until their load over PCIe ends (later requests may
// go ahead), then returns to its head with those tokens computed. Loads
// and stores queue per direction on a link of KVOffload.Bandwidth and
// Latency (or in one queue, HalfDuplex). With KVOffload.Backend "lmcache"
// the host is LMCache's CPU backend instead: 256-token chunks of prompt
// only, stored and loaded synchronously inside the steps, which wait for
// them. ExampleKVOffload shows a prefix set the GPU cannot hold served
// from the host.
//
// # Routing
//
// Cluster puts several replicas behind a router so one arrival stream can
// feed k replicas: RoundRobin, LeastOutstanding, or PrefixAware, which
// scores replica i by PrefixWeight × (prompt blocks − blocks of the prompt
// replica i has cached) + prompt blocks of the requests replica i holds —
// the cost Dynamo's KV router minimises (overlap_score_weight × prefill
// blocks + decode blocks; llm-d's scheduler likewise weighs a prefix-cache
// scorer against load scorers) — and takes the least, ties going round
// the replicas. With caching the cluster reports each replica's requests
// and hit rate, the pooled hit rate (hits and queries summed,
// metrics.Ratio) and load_imbalance, the busiest replica's busy time over
// the mean.
//
// # Reported counters
//
// Stats (through sim.Result.Server): KV pool size, preemptions, steps,
// tokens per step, time-averaged running and waiting counts and KV-cache
// usage, and MBU/MFU — achieved bytes/s and FLOP/s over busy time divided
// by one GPU's peaks.
package batching
