package sim_test

import (
	"fmt"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// One FCFS server, 80% of requests taking 20 ms and 20% taking 180 ms. A
// closed loop with one client measures ~19 req/s with every request under
// 250 ms; open-loop Poisson arrivals at just 6 req/s already miss a 95%
// E2E ≤ 250 ms objective, because requests queue behind the slow ones.
func Example_openVsClosed() {
	base := sim.Config{
		Workload: workload.Workload{Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})},
		Requests: 20_000, Warmup: 2_000, Seed: 1,
		SLO: metrics.SLO{E2E: 0.250},
	}
	closed := base
	closed.Workload.Clients = 1
	res, _ := sim.Run(closed)
	fmt.Printf("closed loop: %.0f req/s, attainment %.0f%%\n", res.RequestThroughput, 100*res.Attainment)
	for _, rate := range []float64{4, 6, 10} {
		open := base
		open.Workload.Arrivals = workload.Poisson{Rate: rate}
		res, _ := sim.Run(open)
		fmt.Printf("open loop %2.0f req/s: attainment %.1f%%, p95 queue %3.0f ms\n", rate, 100*res.Attainment, 1000*res.Latency(metrics.QueueTime).Percentile(95))
	}
	// Output:
	// closed loop: 19 req/s, attainment 100%
	// open loop  4 req/s: attainment 97.4%, p95 queue 133 ms
	// open loop  6 req/s: attainment 94.9%, p95 queue 169 ms
	// open loop 10 req/s: attainment 86.0%, p95 queue 308 ms
}

// Run one open-loop configuration and read vLLM-style statistics.
func ExampleRun() {
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 8},
			Lengths:  workload.Fixed{Input: 1, Output: 1},
		},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}},
		Requests: 50_000, Warmup: 5_000, Seed: 7,
		SLO: metrics.SLO{E2E: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// M/M/1 at ρ = 0.8: mean sojourn 1/(μ−λ) = 500 ms, P(E2E ≤ 1 s) = 1−e^{−2} ≈ 86%.
	fmt.Printf("completed %d, mean e2el %.2f s, attainment %.0f%%, stable %v\n",
		res.Completed, res.E2E().Mean(), 100*res.Attainment, !res.Stability.Unstable)
	// Output:
	// completed 45000, mean e2el 0.51 s, attainment 86%, stable true
}
