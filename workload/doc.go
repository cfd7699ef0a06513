// Package workload describes request streams: when requests arrive and how
// long their prompts (input L) and responses (output O) are.
//
// A Workload is either open loop — an arrival Process whose times never
// depend on completions (Poisson, Gamma, constant, vLLM's normalized Gamma,
// ramps, trace replay), optionally capped by MaxConcurrency so that excess
// requests wait in the client — or closed loop: Clients fixed-concurrency
// clients, each sending its next request when the previous one completes,
// after an optional think time. Lengths draws the joint (L, O) of a request:
// Fixed, Random (vLLM's `random` dataset), LogNormal with correlation, or
// Empirical, which resamples whole rows of a trace and so keeps the joint
// distribution.
//
// The package knows nothing of the engine that consumes it (package sim).
// Every type is a plain struct with a Validate method; random draws take a
// *rand.Rand from the caller. Streams (the per-run state of a Process) are
// not safe for concurrent use; the Process values that make them are.
package workload
