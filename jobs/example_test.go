package jobs_test

import (
	"fmt"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// exampleConfig is an M/M/1 queue at ρ = 0.5 (arrivals 5/s, service
// 10/s) under seed: its mean wait in line is ρ/(μ−λ) = 0.1 s.
func exampleConfig(seed uint64) sim.Config {
	return sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 5}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}},
		Requests: 20_000, Warmup: 1_000, Seed: seed,
	}
}

// Eight independent replications of an M/M/1 queue run in parallel; the
// results are the same whatever the number of cores. Their mean waits
// scatter around the theory's 0.1 s.
func ExampleReplicate() {
	res, err := jobs.Replicate(exampleConfig(0), event.Seeds(1, 8))
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi, sum := 1.0, 0.0, 0.0
	for _, r := range res {
		w := r.Latency(metrics.QueueTime).Mean()
		lo, hi, sum = min(lo, w), max(hi, w), sum+w
	}
	fmt.Printf("%d replications: mean wait %.3f s (from %.3f to %.3f; theory 0.100)\n", len(res), sum/float64(len(res)), lo, hi)
	// Output: 8 replications: mean wait 0.101 s (from 0.093 to 0.108; theory 0.100)
}

// Each runs any job list on the one runner: here the squares of 0..9,
// each job writing its own slot.
func ExampleEach() {
	out := make([]int, 10)
	err := jobs.Each(len(out), jobs.All, 4, func(k, i int) error {
		out[k] = i * i
		return nil
	})
	fmt.Println(out, err)
	// Output: [0 1 4 9 16 25 36 49 64 81] <nil>
}
