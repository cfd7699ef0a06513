// Package capacity turns runs into capacity answers
// (docs/metrics.md#capacity-search).
//
// Criteria judges one run at a target rate: joint SLO attainment ≥ q
// (failed and rejected requests are misses and stay in the denominator),
// failures ≤ ε, the actual send rate within tolerance of the target, and
// no sustained queue growth.
//
// Search finds λ*, the largest rate at which every one of R independent
// replications passes: a coarse doubling/halving sweep to a pass/fail
// bracket, then geometric bisection inside it to a stated relative
// precision, with more replications near the boundary. It reports the
// bracket and every probe with each replication's verdict — never a fake
// point estimate. Replications use the same seeds at every rate (paired),
// so rates differ only by the rate. Probes far above capacity fail fast:
// a run stops as soon as more than (1−q)·n of its requests have missed,
// or when its backlog shows unbounded growth. Probes keep neither the
// server's time series (WithoutSeries) nor the inter-token latencies
// (sim.Config.NoITL): no verdict reads them.
//
// The search is sequential, its runs parallel: idle workers run the
// probes the search would make next under either verdict of the open
// ones, and cancel those the verdicts rule out, so a search keeps every
// core busy and its result is the same at any parallelism.
//
// The minimum over runs is a conservative envelope, not a confidence
// interval: with finite runs the rate it accepts lies slightly below the
// infinite-run λ*, never above it by more than noise.
//
// Sweep runs one configuration per value of any scalar parameter, with R
// replications each, in parallel, results independent of the parallelism;
// a jobs.Shard restricts it to jobs j ≡ i (mod n), so a large sweep spreads over
// machines (Kubernetes Indexed Jobs, Slurm arrays) and the shards' results
// merge into the unsharded run's. Judge and Bracket turn a swept rate
// grid into the same table and bracket a Search reports.
package capacity
