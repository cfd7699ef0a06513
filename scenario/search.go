package scenario

import (
	"errors"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/workload"
)

// A Search names a search over a scenario's deployments (plan's, a TP
// screen's) in the errors of SearchInputs: each is the message of one
// check.
type Search struct {
	// NoSLO is the error when the scenario has no SLO to judge by.
	NoSLO string
	// Chooser says what sets the deployment instead of the scenario's
	// data_parallel_size and enable_expert_parallel.
	Chooser string
	// NoArrivals is the error when the scenario's arrivals are not open
	// loop (a closed loop has no rate to search).
	NoArrivals string
}

// SearchInputs returns what a search over s's deployments holds fixed:
// the engine template (EngineTemplate) and the workload. s must have an
// SLO, leave data and expert parallelism to the search, and have
// open-loop arrivals; the errors are q's, or EngineTemplate's and
// BuildWorkload's as they return them.
func (s *Scenario) SearchInputs(q Search) (batching.Config, workload.Workload, error) {
	if !s.SLO.Set() {
		return batching.Config{}, workload.Workload{}, errors.New(q.NoSLO)
	}
	if v := s.Server; v.DataParallelSize > 1 || v.EnableExpertParallel {
		return batching.Config{}, workload.Workload{}, errors.New("server.data_parallel_size and server.enable_expert_parallel: " + q.Chooser)
	}
	eng, err := s.EngineTemplate()
	if err != nil {
		return batching.Config{}, workload.Workload{}, err
	}
	w, err := s.BuildWorkload()
	if err != nil {
		return batching.Config{}, workload.Workload{}, err
	}
	if w.Arrivals == nil {
		return batching.Config{}, workload.Workload{}, errors.New(q.NoArrivals)
	}
	return eng, w, nil
}
