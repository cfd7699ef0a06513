package batching

// Stepwise returns c with every step of its engines ended through the
// event queue and the full scheduler (Config.stepwise), for tests outside
// the package that compare a run against that reference.
func Stepwise(c Config) Config {
	c.stepwise = true
	return c
}
