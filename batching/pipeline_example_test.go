package batching_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Llama-3.1-70B does not fit one H100; split over two pipeline stages of
// TP 2 it runs on four, and the bubble shows at low load: one request at
// a time keeps one stage of two busy. Three clients that send together
// join one batch under vLLM v1's batch queue (the default), which then
// decodes in one lane, half the stages idle; v0's virtual engines spread
// them over both.
func ExamplePipeline() {
	model, _ := cost.Model("llama-3.1-70b")
	gpu, _ := cost.GPU("h100-sxm")
	e := batching.Defaults(model, gpu)
	e.Deployment.TP = 2
	e.MaxModelLen = 8192
	p := batching.Pipeline{Engine: e, Stages: 2}
	st, _ := p.Stage()
	fmt.Println("GPUs:", p.GPUs(), "layers per stage:", st.Deployment.Model.Layers)
	for _, s := range []batching.PipelineScheduler{batching.BatchQueue, batching.VirtualEngines} {
		p.Scheduler = s
		for _, clients := range []int{1, 3, 16} {
			res, err := sim.Run(sim.Config{
				Workload: workload.Workload{Clients: clients, Lengths: workload.Fixed{Input: 1000, Output: 100}},
				Server:   p, Requests: 200, Seed: 1,
			})
			if err != nil {
				fmt.Println(err)
				return
			}
			busy, _ := res.Stat("busy_fraction")
			fmt.Printf("%s %2d clients: %5.0f tok/s, stage busy %.0f%%\n", s, clients, res.OutputThroughput, 100*busy)
		}
	}
	// Output:
	// GPUs: 4 layers per stage: 40
	// v1  1 clients:    32 tok/s, stage busy 50%
	// v1  3 clients:    89 tok/s, stage busy 50%
	// v1 16 clients:   353 tok/s, stage busy 87%
	// v0  1 clients:    32 tok/s, stage busy 50%
	// v0  3 clients:    91 tok/s, stage busy 96%
	// v0 16 clients:   353 tok/s, stage busy 87%
}
