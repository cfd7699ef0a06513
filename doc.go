// Package servesim answers LLM-serving capacity questions without a GPU.
//
// It is a discrete-event simulator whose servers are FCFS queues or
// continuous-batching LLM engines, driven by open-loop (Poisson, Gamma,
// trace replay) or closed-loop (fixed concurrency) request streams over a
// joint (input, output) length distribution, reporting the metrics of
// `vllm bench serve` plus joint SLO attainment and goodput.
//
// The work is split into small packages, each with one job; this root
// package holds only this overview:
//
//   - distribution: univariate distributions (service and think times, gaps).
//   - workload: arrival processes, (L, O) length distributions, traces,
//     open and closed loops. Knows nothing of the engine.
//   - sim: the facade that wires a workload, a server and the collectors:
//     Run, Result, Replicate, and the one job runner (Each, Job, Shard).
//   - sim/event: the event engine (clock, typed event heap, FIFO ring,
//     named random streams). Imports nothing of the project.
//   - sim/metrics: request records, samples, SLO, stability, counters.
//   - queue: FCFS(c) stations, exact against Lindley and Kiefer–Wolfowitz.
//   - batching: the continuous-batching LLM engine (vLLM v1 scheduler,
//     chunked prefill, paged KV cache, preemption) and replica clusters.
//   - cost: model and GPU catalog, tensor-parallel all-reduce and roofline
//     step times. Pure functions; knows nothing of the engine.
//   - capacity: acceptance criteria, the λ* search, sweeps and shards.
//   - screen: TP=p versus replicas pre-screening.
//   - fleet: a day of traffic (a trace's shape time-changed to a diurnal
//     curve) on pools of replicas that scale (fixed, schedule, the HPA
//     rule on vLLM metrics, with start-up delays and draining), and its
//     bill: dollars, GPU-hours, energy, attainment and goodput by hour.
//   - plan: the cheapest deployment (GPU, TP, engine settings, precision,
//     replicas) that meets an SLO at a target rate.
//   - calibrate: fits a GPU's efficiency profile (cost.Profile) to real
//     vLLM measurements and writes docs/fidelity.md.
//   - dataset: the datasets of `vllm bench serve` read from local files,
//     and token counts (a tokenizer.json's byte-level BPE, or an
//     approximation).
//   - report, report/chart: the HTML report and the one chart style.
//   - scenario: the YAML scenarios of the servesim command.
//
// The command is cmd/servesim (go run ./cmd/servesim bench); runnable
// programs live under examples/ (go run ./examples/openloop).
// Every type that configures a run is a plain struct with a Validate method
// whose errors name the offending field and value; the same seed gives
// byte-identical results whatever the parallelism.
package servesim
