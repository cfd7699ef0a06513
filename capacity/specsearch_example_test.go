package capacity_test

import (
	"fmt"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// ExampleSpecSweep compares EAGLE-3 at k = 2 and 4 with plain decoding
// for Llama-3.1-8B on one H100 (MT-Bench acceptance): λ* under a 15 ms
// TPOT bound for each, and the rate at which each k stops paying.
func ExampleSpecSweep() {
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	sw := capacity.SpecSweep{
		Ks: []int{0, 2, 4},
		Config: func(k int) (sim.Config, error) {
			c := batching.Defaults(model, gpu)
			if k > 0 {
				c.Speculative = &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: k, AcceptanceDataset: "mt-bench"}
			}
			return sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 5},
				Lengths: workload.Fixed{Input: 512, Output: 128}}, Server: c, Requests: 200}, nil
		},
		Search: capacity.Search{Criteria: capacity.DefaultCriteria(metrics.SLO{TPOT: 0.015}, 0.9), Seed: 1,
			Replications: 1, Start: 5, Precision: 0.1},
	}
	res, err := sw.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	res.WriteTable(os.Stdout)
	// Output:
	//    k  lambda* (req/s)         stops paying at (req/s)     TPOT off/on at 4.32 req/s (ms)
	//  off  [18.3, 20)              -                           -
	//    2  [23.8, 25.9)            pays at every rate          7.72 / 3.67
	//    4  [21.8, 23.8)            43.2 [38.9, 43.2)           7.72 / 3.15
	// best: k=2 (lambda* [23.8, 25.9))
	// crossover rates compared: 4.32, 8.65, 13, 17.3, 21.6, 25.9, 30.3, 34.6, 38.9, 43.2, 47.6, 51.9 req/s
}
