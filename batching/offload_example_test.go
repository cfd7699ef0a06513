package batching_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Requests start with one of 60 prompts of 4,096 tokens, more than a
// 4 GiB KV pool caches (without offloading the engine recomputes most of
// them and falls behind): a 64 GiB host buffer (vLLM's
// --kv-offloading-size 64) holds them all, and a prefix the GPU evicted
// costs a load of some 5 ms instead of its prefill.
func ExampleKVOffload() {
	model, _ := cost.Model("qwen2.5-7b")
	gpu, _ := cost.GPU("h100-sxm")
	w := workload.Workload{
		Arrivals: workload.Poisson{Rate: 8},
		Lengths:  workload.PrefixRepetition{PrefixLen: 4096, SuffixLen: 256, NumPrefixes: 60, OutputLen: 128},
	}
	for _, size := range []float64{0, 64} {
		engine := batching.Defaults(model, gpu)
		engine.Deployment.KVCacheMemory = 4 * cost.GiB
		if size > 0 {
			engine.KVOffload = batching.DefaultKVOffload(size)
		}
		res, err := sim.Run(sim.Config{Workload: w, Server: engine, Requests: 1000, Warmup: 100, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		gpuHit, _ := res.Stat("prefix_cache_hit_rate")
		cpuHit, _ := res.Stat("kv_offload_hit_rate")
		wait, _ := res.Stat("mean_kv_offload_load_wait")
		fmt.Printf("host %2.0f GiB: hit rate GPU %2.0f%% CPU %2.0f%%, load wait %.1f ms, TTFT p50 %4.0f ms\n",
			size, 100*gpuHit, 100*cpuHit, 1000*wait, 1000*res.TTFT().Median())
	}
	// Output:
	// host  0 GiB: hit rate GPU 27% CPU  0%, load wait 0.0 ms, TTFT p50 4596 ms
	// host 64 GiB: hit rate GPU 27% CPU 62%, load wait 4.7 ms, TTFT p50   31 ms
}
