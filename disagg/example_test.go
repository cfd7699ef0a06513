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
