package capacity_test

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// The capacity of an M/M/1 queue under a latency objective. Its sojourn
// time is Exp(μ−λ), so the share of requests done within t seconds is
// 1 − e^{−(μ−λ)t}, and the largest rate at which it reaches q is
// λ* = μ + ln(1−q)/t: with μ = 10/s, t = 1 s and q = 90%, 7.70 req/s.
// The search doubles from 4 req/s to a pass/fail bracket, then bisects it
// to a 10% width; every replication must pass.
func ExampleSearch() {
	const mu, bound, q = 10.0, 1.0, 0.9
	s := capacity.Search{
		Base: sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 1, Output: 1}},
			Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: mu}},
			Requests: 20_000, Warmup: 1_000,
		},
		Criteria:     capacity.DefaultCriteria(metrics.SLO{E2E: bound}, q),
		Seed:         1,
		Replications: 2, BoundaryReplications: 3,
		Start: 4, Precision: 0.1,
	}
	res, err := s.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Points {
		fmt.Printf("%5.2f req/s: %d runs, pass %v\n", p.Rate, len(p.Runs), p.Pass)
	}
	fmt.Printf("lambda* in [%.2f, %.2f) req/s; theory %.2f\n", res.Lower, res.Upper, mu+math.Log(1-q)/bound)
	// Output:
	//  4.00 req/s: 2 runs, pass true
	//  5.66 req/s: 3 runs, pass true
	//  6.73 req/s: 3 runs, pass true
	//  7.34 req/s: 3 runs, pass true
	//  8.00 req/s: 2 runs, pass false
	// lambda* in [7.34, 8.00) req/s; theory 7.70
}
