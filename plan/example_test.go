package plan_test

import (
	"fmt"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// Plan 30 req/s over two server types whose "replicas" are the servers of
// one FCFS station (n servers share its line): a fast one at $3 an hour
// (exponential service at 20/s) and a slow one at $1 (5/s). The objective
// is E2E <= 0.5 s for 95% of requests. One slow server sustains
// λ* = 5 + ln(0.05)/0.5 = −1 req/s: no rate at all, whatever the line;
// the fast one 14 req/s alone, and two of them sharing a line (M/M/2 at
// ρ = 0.75) carry 30: 1 fails (ρ = 1.5), 3 pass, 2 pass.
func ExampleSolve() {
	station := func(mu float64) plan.Replica {
		return plan.ReplicaFunc(func(n int) sim.ServerConfig {
			return queue.FCFS{Servers: n, Service: distribution.Exponential{Rate: mu}}
		})
	}
	cands := []plan.Candidate{
		{Index: 0, Name: "fast", GPUs: 1, PricePerGPUHour: 3, Replica: station(20)},
		{Index: 1, Name: "slow", GPUs: 1, PricePerGPUHour: 1, Replica: station(5)},
	}
	obj := plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Rate:     30,
		Criteria: capacity.DefaultCriteria(metrics.SLO{E2E: 0.5}, 0.95),
	}
	s := plan.Search{Requests: 4000, Warmup: 400, Replications: 2, BoundaryReplications: 3,
		Precision: 0.05, Seed: 1, MaxReplicas: 16, Round: 2}
	res, err := plan.Solve(obj, s, cands)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Ranked {
		fmt.Printf("%s: lambda* of one in %s req/s (theory 14.01)\n", r.Name, r.Lambda)
		for _, c := range r.Checks {
			fmt.Printf("  %d at 30 req/s: pass %v, attainment %.3f\n", c.Replicas, c.Pass, c.MinAttainment)
		}
		fmt.Printf("  %d servers, $%.2f/h\n", r.Replicas, r.CostPerHour)
	}
	for _, r := range res.Rejected {
		fmt.Printf("%s: %s\n", r.Name, r.Reason)
	}
	// Output:
	// fast: lambda* of one in [13.17, 13.76) req/s (theory 14.01)
	//   1 at 30 req/s: pass false, attainment 0.000
	//   2 at 30 req/s: pass true, attainment 0.974
	//   3 at 30 req/s: pass true, attainment 1.000
	//   2 servers, $6.00/h
	// slow: slo-unreachable
}
