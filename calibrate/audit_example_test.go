package calibrate_test

import (
	"fmt"

	"github.com/servesim/servesim/calibrate"
)

// A run that reports a TTFT of 20 ms for 8000-token prompts of
// Llama-3.1-8B at one client on an H100 needs more FLOP/s than the GPU
// has: its prompts must have come from the prefix cache.
func ExampleSimulator_Audit() {
	pt := calibrate.Point{ID: "run", Source: "results.json", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1,
		Precision: "bf16", Concurrency: 1, NumPrompts: 10, Input: 8000, Output: 100,
		Measured: calibrate.Metrics{TTFT: 0.020, TPOT: 0.008}}
	rows, _ := calibrate.Simulator{}.Audit([]calibrate.Point{pt})
	r := rows[0]
	fmt.Printf("compute %.0f%%, bandwidth %.0f%%, flagged %v\n", 100*r.Compute, 100*r.Bandwidth, r.Flagged)
	fmt.Println(r.Cause[:len("prefix-cache hits")])
	// Output:
	// compute 649%, bandwidth 60%, flagged true
	// prefix-cache hits
}
