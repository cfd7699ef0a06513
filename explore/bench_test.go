package explore

import "testing"

// BenchmarkPlan times the page's plan view natively (Plan on the default
// request: two GPUs, TP 1 to 8, up to 16 replicas), the call the browser
// page runs in wasm on a change of the model or the plan's rate; run with
// -benchmem for its bytes and allocations a plan.
func BenchmarkPlan(b *testing.B) {
	r := Default()
	for b.Loop() {
		if _, err := Plan(r); err != nil {
			b.Fatal(err)
		}
	}
}
