// Package distribution provides the univariate distributions servesim draws from:
// service times, think times and arrival gaps, all non-negative reals in
// seconds unless a caller says otherwise.
//
// Every distribution is a plain struct that can be written literally or
// loaded from YAML/JSON, with a Validate method that names the offending
// field and value, and Mean and Var methods that queueing theory needs
// (Pollaczek–Khinchine uses E[S²] = Var + Mean²). Sampling takes the random
// source as an argument: there is no package-level generator, so two
// configurations can be driven by the same random numbers.
//
// Where a closed-form inverse exists (Deterministic, Exponential, Uniform,
// LogNormal, Mixture) a sample consumes exactly one uniform variate per
// component choice, which keeps common random numbers aligned across
// configurations. Gamma uses Marsaglia and Tsang's rejection method and
// consumes a variable number.
//
// The types are safe for concurrent use: they hold no state.
package distribution
