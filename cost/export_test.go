package cost

// EmbeddedProfile gives this package's external tests (package cost_test)
// the profile file of a catalog GPU, as embeddedProfile reads it.
var EmbeddedProfile = embeddedProfile
