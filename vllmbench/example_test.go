package vllmbench_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// A run's result file as `vllm bench serve --save-result` writes it,
// from the typed sim.Result: vLLM's keys first, servesim's under one key.
func ExampleResultJSON() {
	sc, err := scenario.Parse([]byte("requests: 20\nworkload: {arrival: {rate: 5}}\n"), "bench.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := sc.Config()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	o := &vllmbench.Options{Model: sc.Server.Model, Backend: "vllm", RequestRate: 5, Burstiness: 1,
		NumPrompts: sc.Requests, DatasetName: "random", Percentiles: []float64{99}, Metrics: []string{"ttft", "tpot"}}
	data, err := vllmbench.ResultJSON(o, sc, res, "20260101-000000", time.Unix(0, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out["backend"], out["num_prompts"], out["completed"], out["request_rate"], out["servesim"] != nil)

	var summary bytes.Buffer
	if err := vllmbench.WriteSummary(&summary, o, sc, res); err != nil {
		fmt.Println(err)
		return
	}
	line, _, _ := bytes.Cut(summary.Bytes(), []byte("\n"))
	fmt.Println(string(line))
	// Output:
	// vllm 20 20 5 true
	// ============ Serving Benchmark Result ============
}

func ExamplePyFloat() {
	fmt.Println(vllmbench.PyFloat(20), vllmbench.PyFloat(2.5), vllmbench.PyFloat(math.Inf(1)))
	// Output: 20.0 2.5 inf
}

// `vllm bench serve --num-prompts 200 --request-rate 10 --burstiness 0.5
// --goodput ttft:500` as a Go program: vLLM's defaults, the flags set as
// fields, and the scenario Scenario builds from them run.
func ExampleOptions_Scenario() {
	o := vllmbench.Defaults(true)
	o.NumPrompts, o.RequestRate, o.Burstiness = 200, 10, 0.5
	o.SLO.TTFTms = 500
	sc, err := o.Scenario()
	if err != nil {
		fmt.Println(err)
		return
	}
	a := sc.Workload.Arrival
	fmt.Println(sc.Requests, "requests,", a.Process, "arrivals at", a.Rate, "req/s, rescaled:", a.Normalize, "goodput:", o.GoodputGiven)
	cfg, err := sc.Config()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Completed, "completed")

	o.NumPrompts = 0
	if _, err := o.Scenario(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 200 requests, gamma arrivals at 10 req/s, rescaled: true goodput: true
	// 200 completed
	// --num-prompts 0 must be >= 1 (custom and spec_bench take <= 0 as every row)
}

// vLLM's command line on a flag set: Define gives the flags vLLM's
// defaults (bench's, for a set named "bench"), Resolve folds the second
// names (-tp) into the first, and Scenario builds the run.
func ExampleFlags() {
	var o vllmbench.Flags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	o.Define(fs)
	if err := fs.Parse([]string{"--model", "llama-3.1-8b", "-tp", "2", "--request-rate", "4", "--num-prompts", "50"}); err != nil {
		fmt.Println(err)
		return
	}
	if err := o.Resolve(fs, io.Discard); err != nil {
		fmt.Println(err)
		return
	}
	sc, err := o.Scenario()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.Server.TensorParallelSize, o.RequestRate, sc.Requests, o.Backend)
	// Output: 2 4 50 openai
}
