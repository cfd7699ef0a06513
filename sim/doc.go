// Package sim runs servesim experiments: it wires a workload (package
// workload), a server (package queue's FCFS stations, package batching's
// continuous-batching engines) and the measurement side (package
// sim/metrics) onto the event engine (package sim/event).
//
// Run simulates one run under one seed, until Config.Requests have been
// injected and drained or Config.Horizon is reached. It returns a Result
// with the metrics of `vllm bench serve` — TTFT, TPOT, ITL, E2E (mean,
// median, std, any percentile by numpy's linear interpolation),
// throughputs, request goodput — plus joint SLO attainment, per-GPU
// goodput, queue times, Little's-law bookkeeping and a stability verdict
// (docs/metrics.md defines each).
//
// Package jobs runs many: Replicate (independent replications with
// pre-declared seeds) and RunAll (any list of configurations), on the
// project's one job runner and its one numbering and seeding rule.
//
// # Servers
//
// A Server receives each request through Arrive and reports its life
// through the Env: Start (first scheduled), FirstToken, Tokens (pooled
// inter-token gaps of one engine step), Finish, Fail, Reject. Servers draw
// random numbers from named streams (event.NewStream under Env.Seed) so that configurations run
// with one seed share arrivals, lengths and service draws. Optional
// interfaces let a server report more: StatsReporter (its counters),
// SeriesReporter (their time series) and GPUCounter (GPUs occupied, for
// per-GPU goodput).
//
// # Metrics
//
// Warm-up requests (the first Config.Warmup by arrival) are left out of
// every statistic. TPOT is (E2E−TTFT)/(O−1) and only defined for O > 1; in
// SLO checks a one-token response passes the TPOT bound (vLLM's
// convention). Attainment counts failed and rejected requests as misses and
// keeps them in the denominator. By default every request record is kept and
// percentiles are exact; Config.SummaryOnly keeps moments and quantile
// sketches instead, so memory is O(requests in the system).
// Config.NoITL leaves the inter-token latencies out, for runs judged or
// summarised without them.
//
// # Determinism and concurrency
//
// A run is single-threaded and a function of its Config: the same seed
// gives byte-identical JSON whatever GOMAXPROCS or the number of runs
// jobs.Replicate makes at once. Results may be read from several goroutines.
//
// See Example_openVsClosed for why a closed-loop benchmark overstates the
// rate a server sustains under a latency objective.
package sim
