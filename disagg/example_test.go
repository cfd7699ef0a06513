package disagg_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Two H100 prefill instances and two A100 decode instances of
// llama-3.1-8b over 400 Gb/s RDMA, at 8 req/s of 2000-token prompts.
func Example() {
	m, _ := cost.Model("llama-3.1-8b")
	h100, _ := cost.GPU("h100-sxm")
	a100, _ := cost.GPU("a100-80gb")
	p, d := batching.Defaults(m, h100), batching.Defaults(m, a100)
	p.MaxModelLen, d.MaxModelLen = 8192, 8192
	pd := disagg.Config{
		Prefill: disagg.Pool{Engine: p, Instances: 2},
		Decode:  disagg.Pool{Engine: d, Instances: 2},
		Router:  batching.LeastOutstanding,
	}
	fmt.Printf("one 2000-token transfer: %.2f ms\n", 1000*pd.TransferTime(2000))
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 8},
			Lengths: workload.Random{InputLen: 2000, OutputLen: 200, RangeRatio: 0.2}},
		Server: pd, Requests: 500, Warmup: 50, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("completed:", res.Completed)
	for _, n := range []string{"queue", "prefill", "transfer", "decode_first"} {
		v, _ := res.Stat("mean_ttft_" + n + "_ms")
		fmt.Printf("mean TTFT %s: %.1f ms\n", n, v)
	}
	// Output:
	// one 2000-token transfer: 11.44 ms
	// completed: 450
	// mean TTFT queue: 10.6 ms
	// mean TTFT prefill: 45.7 ms
	// mean TTFT transfer: 11.4 ms
	// mean TTFT decode_first: 33.1 ms
}

// A Spec as servesim pd's flags give it: three H100 prefill instances of
// llama-3.1-8b, one decode instance on an A100 at TP 2, which gets vLLM
// serve's defaults for an A100.
func ExampleSpec_Build() {
	m, _ := cost.Model("llama-3.1-8b")
	h100, _ := cost.GPU("h100-sxm")
	pre := batching.Defaults(m, h100)
	pd, err := disagg.Spec{Prefill: 3, Decode: 1, DecodeGPU: "a100-80gb", DecodeTP: 2, Link: "rdma-ib-400g"}.Build(pre, batching.RoundRobin)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := pd.Decode.Engine
	fmt.Printf("%dP%dD, %d GPUs; decode on %s TP %d, %d seqs, %d tokens; link %s\n",
		pd.Prefill.Instances, pd.Decode.Instances, pd.GPUs(), d.Deployment.GPU.Name, d.Deployment.TP, d.MaxNumSeqs, d.MaxNumBatchedTokens, pd.Link.Name)
	// Output:
	// 3P1D, 5 GPUs; decode on a100-80gb TP 2, 256 seqs, 2048 tokens; link rdma-ib-400g
}
