package queue_test

import (
	"fmt"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// An M/M/1 queue: Poisson arrivals at λ = 5 per second into one FCFS
// server with exponential service at μ = 10 per second. The mean sojourn
// time (wait plus service) of M/M/1 is 1/(μ−λ) = 0.2 s.
func ExampleFCFS() {
	server := queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}}
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 5},
			Lengths:  workload.Fixed{Input: 1, Output: 1}, // lengths do not matter to this server
		},
		Server:   server,
		Seed:     1,
		Requests: 100_000,
		Warmup:   1_000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("utilisation ρ = %.2f\n", server.Utilization(5))
	fmt.Printf("%d requests measured\n", res.Completed)
	fmt.Printf("mean sojourn %.2f s (theory 1/(μ−λ) = %.2f s)\n", res.E2E().Mean(), 1/(10.0-5))
	fmt.Printf("mean wait %.2f s (theory ρ/(μ−λ) = %.2f s)\n", res.Latency(metrics.QueueTime).Mean(), 0.5/(10.0-5))
	// Output:
	// utilisation ρ = 0.50
	// 99000 requests measured
	// mean sojourn 0.20 s (theory 1/(μ−λ) = 0.20 s)
	// mean wait 0.10 s (theory ρ/(μ−λ) = 0.10 s)
}
