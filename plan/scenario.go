package plan

import (
	"fmt"
	"maps"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/scenario"
)

// FromScenario returns the plan of sc: the model and engine template of
// its server (the knobs it leaves unset become each candidate GPU's vllm
// serve default), its router (least-outstanding when unset), workload
// and SLO, the target rate (its plan: block's, or the arrival rate), the
// requests, warm-up and seed of each run, and the search settings its
// plan: block gives (max_replicas, frontier, budget, no_prune) over
// DefaultSearch. The space is left empty: ChoicesOf(sc.Plan) gives the
// block's, which the caller resolves (Choices.Space).
//
// An error building the engine or the workload is the scenario's, as it
// returned it (a *fielderr.Error at its server.* or workload.* field).
func FromScenario(sc *scenario.Scenario) (Plan, error) {
	eng, w, err := sc.SearchInputs(scenario.Search{
		NoSLO:      "no SLO to plan for: give --goodput ttft:MS tpot:MS (and --slo-target)",
		Chooser:    "the plan chooses the deployment (plan.data_parallel, plan.expert_parallel)",
		NoArrivals: "a plan needs open-loop arrivals at a target rate (--request-rate)",
	})
	if err != nil {
		return Plan{}, err
	}
	b := sc.Plan
	if b == nil {
		b = &scenario.Plan{}
	}
	rate := w.Arrivals.MeanRate()
	if b.Rate > 0 {
		rate = b.Rate
	}
	if rate <= 0 || rate > 1e6 {
		return Plan{}, fmt.Errorf("--request-rate %v: the target must be a finite rate > 0 (inf is a burst, not a load to plan for)", rate)
	}
	pl := NewPlan(eng.Deployment.Model)
	// Knobs the scenario leaves unset are each candidate GPU's default.
	if sc.Server.MaxNumSeqs == 0 {
		eng.MaxNumSeqs = 0
	}
	if sc.Server.MaxNumBatchedTokens == 0 {
		eng.MaxNumBatchedTokens = 0
	}
	pl.Engine, pl.MaxModelLen = eng, eng.MaxModelLen
	if r := batching.Router(sc.Server.Router); r != "" {
		pl.Router = r
	}
	pl.Objective = Objective{Workload: w, Rate: rate, Criteria: capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target)}
	s := &pl.Search
	s.Requests, s.Warmup, s.Seed = sc.Requests, sc.Warmup, sc.Seed
	if b.MaxReplicas > 0 {
		s.MaxReplicas = b.MaxReplicas
	}
	if b.Frontier > 0 {
		s.Frontier = b.Frontier
	}
	if b.Budget > 0 {
		s.Budget = b.Budget
	}
	s.NoPrune = s.NoPrune || b.NoPrune
	return pl, nil
}

// ChoicesOf returns a scenario's plan: block as the search space's
// choices (nil: none), its precisions parsed; an unknown precision is an
// error naming plan.precisions.
func ChoicesOf(b *scenario.Plan) (Choices, error) {
	if b == nil {
		return Choices{}, nil
	}
	c := Choices{GPUs: b.GPUs, Prices: maps.Clone(b.Prices), TP: b.TP, DataParallel: b.DataParallel,
		ExpertParallel: b.ExpertParallel, MaxNumSeqs: b.MaxNumSeqs, MaxNumBatchedTokens: b.MaxNumBatchedTokens,
		ChunkedPrefill: b.ChunkedPrefill}
	for _, f := range b.Precisions {
		p, err := cost.ParsePrecision(strings.TrimSpace(f))
		if err != nil {
			return c, fmt.Errorf("plan.precisions: %q: a plan searches bf16 and fp8", f)
		}
		c.Precisions = append(c.Precisions, p)
	}
	return c, nil
}
