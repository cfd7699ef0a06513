// Package report reads servesim and vLLM result files and writes what
// people read: one self-contained HTML page, and the charts of servesim's
// plots, in the one style of package chart.
//
// A Run is one result as the report shows it — its setup, and its numbers
// under vLLM's result field names, per point of a sweep or probe of a
// capacity search. Load reads any result file servesim writes (bench
// --save-result, run and merge JSON, capacity --json) and real vllm bench
// serve result JSONs, including --save-detailed and --append-result ones;
// FromResult, FromBench, FromSearch, FromCapacity and FromScreen make Runs
// from the library's own typed results (FromBench from a bench run's
// vllmbench.Document: the run its saved file gives, without the file), so
// a Go test that calls sim.Run draws the same charts and writes the same
// page as the CLI.
//
// WriteHTML writes the page: setup and vLLM's summary table side by side,
// percentile bars and latency CDFs, throughput and latency against
// concurrency or rate with several runs overlaid (simulated against
// measured), SLO attainment against rate with the λ* bracket shaded,
// running/waiting requests and KV-cache usage over time, and TP screens.
// It inlines its CSS and SVG, runs no script and fetches nothing.
// SweepCharts are the charts of servesim run --plot; Charts every chart of
// a page, for chart.WriteFile.
//
// See ExampleWriteHTML. Functions are safe for concurrent use; a Run is
// not changed by them.
package report
