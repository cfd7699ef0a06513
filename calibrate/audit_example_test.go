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

// 128 clients decoding 1024 + 1024-token requests of Llama-3.1-8B on an
// H100 at a mean TPOT of 20 ms (and 1 s TTFT: 122 decoding at a time)
// leave about 67 µs a sequence beyond the
// step's weight and KV reads at peak bandwidth: a profile that adds more
// than that to every step for each sequence would predict them slower.
func ExampleAuditRoom() {
	pt := calibrate.Point{ID: "run", Source: "results.json", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1,
		Precision: "bf16", BackendVersion: "0.19.0", Concurrency: 128, NumPrompts: 1280, Input: 1024, Output: 1024,
		Measured: calibrate.Metrics{TTFT: 1, TPOT: 0.020}}
	rows, _ := calibrate.Simulator{}.Audit([]calibrate.Point{pt})
	fmt.Printf("batch %d, room %.1f µs\n", rows[0].DecodeBatch, 1e6*rows[0].PerSeqRoom)
	fmt.Print(calibrate.AuditRoom(rows, calibrate.CatalogPerSeq))
	// Output:
	// batch 122, room 67.1 µs
	// | vLLM | decode batch | rows | room per sequence, median | least | rows below the profile's per_seq_s |
	// |---|---|---:|---:|---:|---:|
	// | 0.18+ | 32-127 | 1 | 67.1 µs | 67.1 µs | 0 |
}
