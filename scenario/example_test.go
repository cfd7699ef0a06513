package scenario_test

import (
	"fmt"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// A rate sweep with three replications per rate: Jobs numbers every run
// and gives replication r the same seed at every rate.
func Example() {
	s, err := scenario.Parse([]byte(`
name: fcfs-rates
seed: 1
requests: 2000
warmup: 200
replications: 3
workload:
  arrival: {process: poisson, rate: 1}
  lengths: {kind: fixed, input: 1, output: 1}
server: {kind: fcfs, servers: 1, service: exp:50ms}
slo: {e2el_ms: 250, target: 0.95}
sweep: {param: workload.arrival.rate, values: [4, 8, 12]}
`), "fcfs-rates.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := s.Experiment()
	if err != nil {
		fmt.Println(err)
		return
	}
	last, cfg := x.Job(x.Size() - 1)
	res, err := sim.Run(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d points, %d jobs; last job: rate %v, replication %d, attainment %.2f\n",
		len(x.Points), x.Size(), x.Points[last.Point].Value, last.Replication, res.Attainment)

	_, err = scenario.Parse([]byte("workload:\n  arrival: {rate: 4}\nserver:\n  model: llama-2\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// 3 points, 9 jobs; last job: rate 12, replication 2, attainment 0.89
	// bad.yaml:4: server.model: unknown model "llama-2" (nearest: llama-2-7b; known: gpt-oss-120b, gpt-oss-20b, llama-2-7b, llama-3-8b, llama-3.1-405b, llama-3.1-70b, llama-3.1-8b, llama-3.2-1b, llama-3.2-3b, mistral-7b, qwen2.5-72b, qwen2.5-7b, qwen3-32b, qwen3-8b; or a local directory with its config.json, or a model spec file, .json or .yaml)
}
