package scenario

import (
	"fmt"
	"strings"
)

// ProbedWorkload describes the workload a rate search (capacity, a TP
// screen, a plan) simulates at every rate it probes: the arrival process
// (its rate is the probe's), the lengths, the requests per run and the
// seed.
func (s *Scenario) ProbedWorkload() string {
	w := s.Workload
	var parts []string
	if a := w.Arrival; a != nil {
		switch a.Process {
		case "", "poisson":
			parts = append(parts, "Poisson arrivals at each probed rate")
		case "gamma":
			parts = append(parts, fmt.Sprintf("Gamma arrivals (burstiness %g) at each probed rate", a.Burstiness))
		default:
			parts = append(parts, a.Process+" arrivals scaled to each probed rate")
		}
	}
	if w.MaxConcurrency > 0 {
		parts = append(parts, fmt.Sprintf("max concurrency %d", w.MaxConcurrency))
	}
	l := w.Lengths
	switch l.Kind {
	case "", "random":
		parts = append(parts, fmt.Sprintf("random lengths %d in / %d out (range ratio %g)", l.Input, l.Output, l.RangeRatio))
	case "fixed":
		parts = append(parts, fmt.Sprintf("fixed lengths %d in / %d out", l.Input, l.Output))
	case "lognormal":
		parts = append(parts, fmt.Sprintf("log-normal lengths, medians %d in / %d out", l.Input, l.Output))
	case "trace":
		parts = append(parts, "lengths from "+l.Path)
	}
	parts = append(parts, fmt.Sprintf("%d requests per run (%d warm-up)", s.Requests, s.Warmup), fmt.Sprintf("seed %d", s.Seed))
	return strings.Join(parts, "; ")
}
