package report_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// A Go test that runs a simulation writes the page servesim report
// writes: here an FCFS queue at 8 req/s with an E2E objective.
func ExampleWriteHTML() {
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 8},
			Lengths:  workload.Random{InputLen: 128, OutputLen: 32},
		},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}},
		Requests: 2000, Warmup: 200, Seed: 7,
		SLO: metrics.SLO{E2E: 1.0},
	})
	if err != nil {
		log.Fatal(err)
	}
	run := report.FromResult(res, "FCFS at 8 req/s")
	var page bytes.Buffer
	if err := report.WriteHTML(&page, []*report.Run{run}, report.Options{Title: "One queue"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Count(page.String(), `<svg class="chart"`), "charts:")
	for _, c := range report.Charts(run) {
		fmt.Println(c.Title)
	}
	// Output:
	// 7 charts:
	// TTFT: mean and percentiles
	// TPOT: mean and percentiles
	// ITL: mean and percentiles
	// E2EL: mean and percentiles
	// TTFT distribution (CDF)
	// TPOT distribution (CDF)
	// E2EL distribution (CDF)
}
