// Package distribution provides the univariate distributions servesim draws from:
// service times, think times and arrival gaps, all non-negative reals in
// seconds unless a caller says otherwise.
//
// Every distribution is a plain struct that can be written literally or
// loaded from YAML/JSON, and satisfies Dist: Sample, Mean, Var (queueing
// theory needs them: Pollaczek–Khinchine uses E[S²] = Var + Mean², see
// SecondMoment), CDF, and Validate, whose errors name the kind, the field,
// the value and the limit. Sampling takes the random source as an argument:
// there is no package-level generator, so two configurations can be driven
// by the same random numbers, and one generator gives the same draws on
// every run.
//
// The continuous families Exponential, Gamma, LogNormal and Uniform are thin
// value types over gonum's stat/distuv, which supplies their sampling,
// moments and CDFs. This package adds what distuv lacks: a common interface
// over the families, Deterministic and Mixture (with Discrete, a mixture of
// point masses), mean-and-CV constructors (GammaMeanCV, LogNormalMeanCV),
// validation that also rejects parameters whose mean, variance or E[X²]
// overflow, and inverse-transform sampling where it keeps common random
// numbers aligned: Exponential, LogNormal and Uniform draw through distuv's
// Quantile from exactly one uniform variate (distuv's Rand would use the
// ziggurat, which consumes a variable number), and a Mixture spends one on
// the choice of component. Gamma has no fast quantile and uses distuv's
// rejection sampler, which consumes a variable number. No Sample allocates.
//
// The types are safe for concurrent use: they hold no state. See Example
// for a mixture's moments and seeded draws.
package distribution
