// Package servesim answers LLM-serving capacity questions without a GPU.
//
// It is a discrete-event simulator whose servers are FCFS queues or
// continuous-batching LLM engines, driven by open-loop (Poisson, Gamma,
// trace replay) or closed-loop (fixed concurrency) request streams over a
// joint (input, output) length distribution, reporting the metrics of
// `vllm bench serve` plus joint SLO attainment and goodput.
//
// The work is split into small packages, each with one job; this root
// package holds only this overview. The package map (what each package
// holds and may import, and one request's path through them) is
// docs/architecture.md.
//
// The command is cmd/servesim (go run ./cmd/servesim bench); runnable
// programs live under examples/ (go run ./examples/openloop).
// Every type that configures a run is a plain struct with a Validate method
// whose errors name the offending field and value; the same seed gives
// byte-identical results whatever the parallelism.
package servesim
