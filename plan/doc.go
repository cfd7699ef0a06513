// Package plan finds the cheapest deployment that meets an SLO at a target
// load: which GPU, how many per replica (tensor parallelism), which vLLM
// engine settings and precision, and how many replicas behind the router
// — with queueing, replications and a bracketed λ*, where static planners
// divide a throughput.
//
// A Plan describes the question for one model: a Space of GPU options
// (each with its hourly price, DefaultPrices otherwise, and optionally a
// fitted efficiency profile), TP degrees, for a mixture-of-experts model
// attention data-parallel degrees and expert parallelism (an engine of D
// groups of TP GPUs stepping together through the MoE layers, TP·D GPUs
// a replica), max-num-seqs, max-num-batched-tokens, chunked prefill and
// Precision; an Objective (an
// open-loop workload, a target Rate, and capacity.Criteria: per-request
// bounds with an attainment q, which is how a percentile objective reads,
// "TTFT p99 ≤ 2 s" being "at least 99% of requests have TTFT ≤ 2 s"); and
// Search settings (runs, replications, seed, pruning). Plan.Run builds one
// Candidate per point of the space, each an Engine (vLLM replicas behind
// a batching.Cluster), and calls Solve.
//
// Solve works on any candidates whose Replica builds a sim server for n
// replicas, so other server families can be planned too (the package's
// tests plan over M/M/1 queues, whose answer is known in closed form). It
// screens each candidate without simulation (Screener: vLLM's start-up
// rules, the memory fit, the roofline latency floor and throughput bound),
// orders the rest by a lower bound on their cost, searches λ* of one
// replica (capacity.Search), then finds the fewest replicas that pass at
// the target rate by running them behind the router, pruning every
// candidate whose cost bound exceeds the cheapest deployment found. See
// Solve for the algorithm and why pruning never changes the winner.
//
// The Result ranks the candidates that meet the objective, cheapest first,
// reports the winners (several at the same cost are a tie), marks the
// Pareto frontier of cost, p99 TTFT and p99 TPOT, lists every rejected
// candidate with a typed Reason (Invalid, DoesNotFit, Unreachable,
// TooExpensive, TooManyReplicas) and why, and gives the `vllm serve` and
// `vllm bench serve` command lines of each ranked LLM candidate. It writes
// itself as a table (WriteTable), CSV (WriteCSV) and JSON (encoding/json);
// package plan/planplot draws its frontier.
//
// Concurrency: Solve runs simulations on up to Search.Workers goroutines
// (jobs.Each); the Result does not depend on their number or on
// GOMAXPROCS. Candidates and their replicas must not be mutated while
// Solve uses them.
//
// examples/plan plans Llama-3.1-70B at 20 req/s of Azure-conversation
// traffic over H100, A100 and L40S.
package plan
