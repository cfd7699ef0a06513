package cost

// ForGPU checks that p describes the GPU named gpu (a catalog name, as
// GPUSpec.Name): a profile's numbers are fractions of one GPU's peaks,
// fitted on that GPU's runs, so a profile that names no GPU, or another
// GPU, would price steps by numbers nobody measured there. The error says
// what to give instead; to use another GPU's numbers deliberately, set the
// file's gpu to this one.
func (p Profile) ForGPU(gpu string) error {
	switch {
	case p.GPU == "":
		return invalidf("the profile names no GPU (its gpu field is empty): set gpu to the catalog name of the GPU it was fitted on (%s for this deployment, if so)", gpu)
	case p.GPU != gpu:
		return invalidf("the profile describes %s, not the deployment's %s: give %s's profile (servesim calibrate on its runs) or \"default\" for its built-in one; to use %s's numbers on %s deliberately, copy the file and set its gpu to %s", p.GPU, gpu, gpu, p.GPU, gpu, gpu)
	}
	return nil
}
