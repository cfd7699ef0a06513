package chart_test

import (
	"fmt"

	"github.com/servesim/servesim/report/chart"
)

// One point still gets a readable axis: a padded range with at least
// three distinct labels around it.
func ExampleNewRange() {
	r := chart.NewRange(chart.Axis{Label: "output throughput", Unit: "tok/s"}, []float64{19.3}, 5)
	for _, t := range r.Ticks {
		fmt.Print(t.Label, " ")
	}
	fmt.Println()
	// Output:
	// 18 19 20 21
}
