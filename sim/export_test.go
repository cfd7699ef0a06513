package sim

// DefaultMaxInSystem is defaultMaxInSystem, for the tests of package
// sim_test.
const DefaultMaxInSystem = defaultMaxInSystem
