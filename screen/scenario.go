package screen

import (
	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/scenario"
)

// FromScenario returns the study of sc (scenario.SearchInputs' checks:
// an SLO, no data or expert parallelism of its own, open-loop arrivals):
// its engine template, router, workload, requests, warm-up, seed, summary
// mode and SLO (capacity.DefaultCriteria), each search starting at the
// arrival rate. The candidates and the search's replications, precision,
// common rate and workers are the caller's to set.
func FromScenario(sc *scenario.Scenario) (Study, error) {
	eng, w, err := sc.SearchInputs(scenario.Search{
		NoSLO:      "no SLO to compare under: give --goodput ttft:MS tpot:MS",
		Chooser:    "the candidates set the deployment (--candidates tpP[dpD][ep][xK])",
		NoArrivals: "the screen needs open-loop arrivals (--request-rate)",
	})
	if err != nil {
		return Study{}, err
	}
	return Study{
		Engine: eng, Router: batching.Router(sc.Server.Router), Workload: w,
		Requests: sc.Requests, Warmup: sc.Warmup, Seed: sc.Seed, SummaryOnly: sc.SummaryOnly,
		Criteria: capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target),
		Start:    w.Arrivals.MeanRate(),
	}, nil
}
