package scenario

// Pricing returns what prices the scenario's engine steps
// (cost.Profile.Pricing: the profile, its fit and its errors), or "" for
// an FCFS server, an engine without a profile or a server that does not
// build.
func (s *Scenario) Pricing() string {
	if s.Server.Kind == KindFCFS {
		return ""
	}
	eng, err := s.Engine()
	if err != nil || eng.Deployment.Profile == nil {
		return ""
	}
	return eng.Deployment.Profile.Pricing()
}
