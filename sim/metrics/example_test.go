package metrics_test

import (
	"fmt"

	"github.com/servesim/servesim/sim/metrics"
)

// A Sample gives numpy's linear-interpolation percentiles; one engine
// step's tokens go in as one weighted entry. An SLO judges a request
// record.
func ExampleSample() {
	itl := &metrics.Sample{}
	itl.AddN(0.020, 3) // one step: three requests got a token 20 ms after their last
	itl.Add(0.050)
	fmt.Printf("n=%d mean=%.4f p50=%.3f p99=%.4f\n", itl.Count(), itl.Mean(), itl.Percentile(50), itl.Percentile(99))

	r := metrics.Request{Status: metrics.Completed, Output: 11, Sent: 0, FirstToken: 0.4, Done: 0.9}
	tpot, _ := r.TPOT()
	slo := metrics.SLO{TTFT: 0.5, TPOT: 0.04}
	fmt.Printf("ttft=%.1f tpot=%.2f passes=%v\n", r.TTFT(), tpot, slo.Passes(&r))
	// Output:
	// n=4 mean=0.0275 p50=0.020 p99=0.0491
	// ttft=0.4 tpot=0.05 passes=false
}
