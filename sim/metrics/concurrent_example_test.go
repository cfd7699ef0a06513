package metrics_test

import (
	"fmt"

	"github.com/servesim/servesim/sim/metrics"
)

// Three completed requests: the second is sent while the first runs; the
// third is sent the instant the first ends, so it is not counted with it.
func ExamplePeakConcurrent() {
	rs := []metrics.Request{
		{Sent: 0, Done: 2, Status: metrics.Completed},
		{Sent: 1, Done: 3, Status: metrics.Completed},
		{Sent: 2, Done: 4, Status: metrics.Completed},
	}
	fmt.Println(metrics.PeakConcurrent(rs))
	// Output: 2
}
