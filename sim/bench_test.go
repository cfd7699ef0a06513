package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// benchConfig is one run of the open-loop experiment of
// docs/reference-numbers.md#open-vs-closed-loop: Poisson arrivals at
// 10 req/s into FCFS(1) with the 20/180 ms mixture, 50,000 requests,
// 5,000 warm-up, E2E ≤ 250 ms.
func benchConfig() sim.Config {
	return sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 10}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   fcfs(1, mixture),
		Requests: 50_000, Warmup: 5_000, Seed: 101,
		SLO: metrics.SLO{E2E: 0.250},
	}
}

// BenchmarkOpenLoop runs the engine: events, request records, metrics and
// the attainment verdict. Compare requests/s with BenchmarkLindley, which
// computes the same attainment from the same arrival and service numbers
// with a bare recursion.
func BenchmarkOpenLoop(b *testing.B) {
	cfg := benchConfig()
	b.ReportAllocs()
	var res *sim.Result
	for b.Loop() {
		var err error
		res, err = sim.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
	}
	// Golden behaviour: one arrival and one departure event per request.
	if res.Events != 100_000 || res.Completed != 45_000 {
		b.Fatalf("events %d, completed %d: behaviour changed", res.Events, res.Completed)
	}
	if want := lindley(cfg); res.Good != want {
		b.Fatalf("engine good %d != Lindley good %d", res.Good, want)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)*float64(cfg.Requests)/sec, "requests/s")
	b.ReportMetric(float64(b.N)*float64(res.Events)/sec, "events/s")
}

// lindley computes the run's SLO-passing count by the Lindley recursion on
// the same random streams the engine uses ("arrivals", "service").
func lindley(cfg sim.Config) int {
	arr, _ := cfg.Workload.Arrivals.Stream(event.NewStream(cfg.Seed, "arrivals"), cfg.Requests)
	svc := event.NewStream(cfg.Seed, "service")
	var f float64
	good := 0
	for i := 0; i < cfg.Requests; i++ {
		a := arr.Next()
		f = math.Max(a, f) + mixture.Sample(svc)
		if i >= cfg.Warmup && f-a <= cfg.SLO.E2E {
			good++
		}
	}
	return good
}

func BenchmarkLindley(b *testing.B) {
	cfg := benchConfig()
	b.ReportAllocs()
	for b.Loop() {
		lindley(cfg)
	}
	b.ReportMetric(float64(b.N)*float64(cfg.Requests)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkOpenLoopSummary is BenchmarkOpenLoop in summary mode (no
// records; quantile sketches).
func BenchmarkOpenLoopSummary(b *testing.B) {
	cfg := benchConfig()
	cfg.SummaryOnly = true
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(cfg.Requests)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkEngineOverLindley runs BenchmarkOpenLoop's engine and
// BenchmarkLindley's bare recursion in alternation, so both see the same
// machine load, and reports their wall-time ratio ("x-lindley"; the aim is
// at most 2): what the event engine, the request records and the metrics
// cost over the arithmetic the queue itself needs.
func BenchmarkEngineOverLindley(b *testing.B) {
	cfg := benchConfig()
	var engine, bare time.Duration
	for b.Loop() {
		t0 := time.Now()
		res, err := sim.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		good := lindley(cfg)
		bare += time.Since(t1)
		engine += t1.Sub(t0)
		if good != res.Good {
			b.Fatalf("engine good %d != Lindley good %d", res.Good, good)
		}
	}
	b.ReportMetric(engine.Seconds()/bare.Seconds(), "x-lindley")
	b.ReportMetric(float64(b.N)*float64(cfg.Requests)/engine.Seconds(), "requests/s")
}
