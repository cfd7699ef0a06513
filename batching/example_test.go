package batching_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// A vLLM-style replica of Llama-3.1-8B on one H100 under Poisson arrivals,
// judged against MLPerf's server latency limits.
func Example() {
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 10},
			Lengths:  workload.Random{InputLen: 1024, OutputLen: 256, RangeRatio: 0.5},
		},
		Server:   batching.Defaults(model, gpu),
		Requests: 2000, Warmup: 200, Seed: 1,
		SLO: metrics.SLO{TTFT: 2, TPOT: 0.1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	kv, _ := res.Stat("mean_kv_cache_usage")
	fmt.Printf("output %.0f tok/s, TTFT p99 %.0f ms, ITL p50 %.1f ms, KV usage %.0f%%, attainment %.1f%%\n",
		res.OutputThroughput, 1000*res.TTFT().Percentile(99), 1000*res.ITL().Median(), 100*kv, 100*res.Attainment)
	// Output:
	// output 2552 tok/s, TTFT p99 103 ms, ITL p50 11.3 ms, KV usage 9%, attainment 100.0%
}

// The deployment is one value: an all-reduce model set on it — here a slow
// PCIe-like link in place of the H100's NVLink fit, or an NCCL table from
// topology.LoadNCCLTable — prices every step of the simulation.
func ExampleConfig_deployment() {
	model, _ := cost.Model("llama-3.1-70b")
	gpu, _ := cost.GPU("h100-sxm")
	engine := batching.Defaults(model, gpu)
	engine.Deployment.TP = 4
	slow := engine
	slow.Deployment.Comm = cost.AlphaBetaTable{{Ranks: 4, Alpha: 30e-6, BusBandwidth: 12e9}}
	for _, c := range []struct {
		name   string
		engine batching.Config
	}{{"NVLink (catalog fit)", engine}, {"slow link", slow}} {
		res, err := sim.Run(sim.Config{
			Workload: workload.Workload{Clients: 8, Lengths: workload.Fixed{Input: 1024, Output: 128}},
			Server:   c.engine, Requests: 200, Seed: 1,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-20s ITL p50 %.1f ms\n", c.name, 1000*res.ITL().Median())
	}
	// Output:
	// NVLink (catalog fit) ITL p50 18.2 ms
	// slow link            ITL p50 24.7 ms
}

// gpt-oss-120b as `vllm serve --data-parallel-size 4 --enable-expert-parallel`
// on four H100s: four groups with their own schedulers and KV pools that
// share the experts and step together. Each GPU holds a quarter of the
// experts, so each group's KV pool is larger than that of one GPU serving
// the whole model.
func ExampleConfig_dataParallel() {
	model, _ := cost.Model("gpt-oss-120b")
	gpu, _ := cost.GPU("h100-sxm")
	engine := batching.Defaults(model, gpu)
	engine.Deployment.DP, engine.Deployment.EP = 4, 4
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 8},
			Lengths:  workload.Random{InputLen: 2048, OutputLen: 256, RangeRatio: 0.5},
		},
		Server: engine, Requests: 800, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	groups, _ := res.Stat("dp_groups")
	first, _ := res.Stat("dp0_requests")
	fmt.Printf("%d GPUs, %.0f groups (group 0 served %.0f requests), TTFT p50 %.0f ms, TPOT p50 %.1f ms\n",
		engine.GPUs(), groups, first, 1000*res.TTFT().Median(), 1000*res.TPOT().Median())
	group, _ := engine.Pool()
	alone, _ := batching.Defaults(model, gpu).Pool()
	fmt.Printf("KV pool: %d tokens a group, %d on one GPU alone\n", group.Tokens, alone.Tokens)
	// Output:
	// 4 GPUs, 4 groups (group 0 served 208 requests), TTFT p50 45 ms, TPOT p50 12.2 ms
	// KV pool: 1539488 tokens a group, 300192 on one GPU alone
}
