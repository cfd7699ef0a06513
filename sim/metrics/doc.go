// Package metrics is the measurement side of servesim: request records
// and what is computed from them. It imports nothing of workloads, servers
// or the event engine.
//
//   - Request is one request's record: lengths and the times it arrived,
//     was sent, started, produced its first token and ended, with the
//     derived TTFT, TPOT, E2E and queue times (docs/metrics.md).
//   - Collector tallies a run as requests arrive, are sent and end:
//     counts, token totals, SLO-good requests, the measured window, and
//     the pooled ITL sample; warm-up requests are left out.
//   - Sample holds one metric: running moments, and every value (exact
//     percentiles by numpy's linear rule) or a Sketch (summary mode,
//     relative error DefaultSketchAccuracy, memory independent of the
//     count). Values may carry weights, so one engine step's tokens are
//     one entry.
//   - SLO judges a request against TTFT, TPOT and E2E bounds, and tells
//     whether a request still in flight has already missed.
//   - Trend is the stability detector (batch means of the backlog) and
//     Stability its verdict.
//   - Series is a bounded time series of a server's counters; Stat one
//     named counter.
package metrics
