package servesim_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// The whole path in one run: Llama-3.1-8B on one H100 with vLLM's engine
// defaults, 2,000 Poisson requests at 10 req/s with 1,024-token prompts and
// 128-token answers, judged against TTFT ≤ 500 ms and TPOT ≤ 50 ms.
func Example() {
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 10},
			Lengths:  workload.Fixed{Input: 1024, Output: 128},
		},
		Server:   batching.Defaults(model, gpu),
		Requests: 2000, Warmup: 200, Seed: 1,
		SLO: metrics.SLO{TTFT: 0.5, TPOT: 0.05},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("completed %d, attainment %.2f, stable %v\n", res.Completed, res.Attainment, !res.Stability.Unstable)
	fmt.Printf("TPOT p50 under 20 ms: %v\n", res.TPOT().Median() < 0.020)
	// Output:
	// completed 1800, attainment 1.00, stable true
	// TPOT p50 under 20 ms: true
}
