package batching_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Every prompt starts with the same 2,000-token system prompt (vLLM's
// --random-prefix-len): with prefix caching, the default, each request
// after the first computes only its own tokens.
func Example_prefixCaching() {
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	w := workload.Workload{
		Arrivals: workload.Poisson{Rate: 8},
		Lengths:  workload.SharedPrefix{Tokens: 2000, Lengths: workload.Random{InputLen: 500, OutputLen: 200, RangeRatio: 0.5}},
	}
	for _, caching := range []bool{false, true} {
		engine := batching.Defaults(model, gpu)
		engine.EnablePrefixCaching = caching
		res, err := sim.Run(sim.Config{Workload: w, Server: engine, Requests: 2000, Warmup: 200, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		hit, _ := res.Stat("prefix_cache_hit_rate")
		fmt.Printf("caching %-5v hit rate %2.0f%%, TTFT p50 %3.0f ms\n", caching, 100*hit, 1000*res.TTFT().Median())
	}
	// Output:
	// caching false hit rate  0%, TTFT p50  87 ms
	// caching true  hit rate 80%, TTFT p50  33 ms
}
