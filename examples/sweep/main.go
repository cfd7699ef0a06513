// Command sweep runs a closed-loop concurrency sweep of one vLLM-style
// engine replica: qwen2.5-7b on an RTX 4090 (TP 1, 6.41 GiB KV cache,
// chunked prefill), 1024 input and 256 output tokens, C = 1 … 64 clients.
// It prints, per C, the throughput, latency percentiles, KV-cache usage,
// MBU/MFU and preemptions, beside the roofline floor of a decode step at C
// running requests — the worked example of
// docs/reference-numbers.md#roofline-floors, now with queueing, batching
// and prefill interference.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

func main() {
	requests := flag.Int("n", 600, "requests per concurrency point")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if err := run(os.Stdout, *requests, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, n int, seed uint64) error {
	model, err := cost.Model("qwen2.5-7b")
	if err != nil {
		return err
	}
	gpu, err := cost.GPU("rtx4090")
	if err != nil {
		return err
	}
	engine := batching.Defaults(model, gpu)
	engine.Deployment.KVCacheMemory = 6.41 * cost.GiB
	pool, err := engine.Pool()
	if err != nil {
		return err
	}
	floor := cost.Deployment{Model: model, GPU: gpu, TP: 1, Eff: cost.Efficiency{Bandwidth: 1, FLOPs: 1}}
	fmt.Fprintf(w, "qwen2.5-7b on rtx4090, TP 1, KV pool %d tokens (%d blocks), chunked prefill, 1024 in / 256 out, closed loop\n", pool.Tokens, pool.Blocks)
	fmt.Fprintf(w, "%4s %9s %9s %9s %8s %8s %8s %8s %6s %5s %5s %7s %9s\n",
		"C", "out_tok/s", "ttft_p50", "ttft_p99", "itl_p50", "itl_p99", "tpot_p50", "e2e_p50", "kv%", "mbu", "mfu", "preempt", "floor_ms")
	cfgs := make([]sim.Config, 0, 7)
	concurrency := []int{1, 2, 4, 8, 16, 32, 64}
	for _, c := range concurrency {
		cfgs = append(cfgs, sim.Config{
			Workload: workload.Workload{Clients: c, Lengths: workload.Fixed{Input: 1024, Output: 256}},
			Server:   engine,
			Requests: n, Warmup: min(2*c, n/10), Seed: seed,
		})
	}
	results, err := jobs.RunAll(cfgs, 0)
	if err != nil {
		return err
	}
	for i, res := range results {
		c := concurrency[i]
		kv, _ := res.Stat("mean_kv_cache_usage")
		mbu, _ := res.Stat("mbu")
		mfu, _ := res.Stat("mfu")
		pre, _ := res.Stat("preemptions")
		f := floor.Step(cost.DecodeBatch(c, 1024+256/2)).Time
		fmt.Fprintf(w, "%4d %9.0f %9.1f %9.1f %8.2f %8.2f %8.2f %8.0f %6.1f %5.2f %5.2f %7.0f %9.2f\n",
			c, res.OutputThroughput, 1000*res.TTFT().Median(), 1000*res.TTFT().Percentile(99),
			1000*res.ITL().Median(), 1000*res.ITL().Percentile(99), 1000*res.TPOT().Median(), 1000*res.E2E().Median(),
			100*kv, mbu, mfu, pre, 1000*f)
	}
	fmt.Fprintln(w, "times in ms; floor = ideal roofline decode step at C running requests, context 1152")
	return nil
}
