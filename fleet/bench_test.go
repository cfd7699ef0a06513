package fleet

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// envFloat reads a benchmark size from the environment.
func envFloat(b *testing.B, name string, def float64) float64 {
	if s := os.Getenv(name); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) {
			b.Fatalf("%s=%q must be a number > 0", name, s)
		}
		return v
	}
	return def
}

// BenchmarkDay simulates SERVESIM_DAY_HOURS hours (default 1; 24 follows
// a diurnal sine, shorter spans a flat rate) at SERVESIM_DAY_RATE req/s
// on average (default 100; the target is 1000 over 24 h, 86.4
// million requests) of Azure-conversation lengths on Llama-3.1-8B H100s
// under the HPA rule on in-flight requests (target 40 a replica, about
// 11 req/s; SERVESIM_DAY_MIN replicas at the start, default the trough's
// or the flat rate's need; SERVESIM_DAY_DIURNAL=1 gives a shorter span the
// first hours of the diurnal day). It reports requests and events
// simulated per second, the ratio of its requests/s to one replica's
// engine alone in the same run (sim.Run at 10 req/s, 200,000 requests,
// summary mode), the peak heap under a 200 MB soft limit (the collector
// runs as the heap nears it, so the peak is the live heap unless that is
// larger), the peak resident set (Linux) and the day's attainment.
func BenchmarkDay(b *testing.B) {
	rate := envFloat(b, "SERVESIM_DAY_RATE", 100)
	hours := envFloat(b, "SERVESIM_DAY_HOURS", 1)
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	eng := batching.Defaults(model, gpu)
	lengths := workload.AzureConversation()

	// The single-replica engine, the yardstick.
	single := sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 10}, Lengths: lengths},
		Server: eng, Requests: 200_000, Seed: 1, SummaryOnly: true}
	t0 := time.Now()
	if _, err := sim.Run(single); err != nil {
		b.Fatal(err)
	}
	singleRate := float64(single.Requests) / time.Since(t0).Seconds()

	// The day starts with the replicas its trough needs (about 15 req/s
	// each), as a fleet that has served yesterday does.
	rates := []float64{rate}
	bucket := hours * 3600
	if hours == 24 || os.Getenv("SERVESIM_DAY_DIURNAL") != "" {
		rates, bucket = Scaled(rate, Sinusoid(24, 14, 0.25)), 3600
	}
	start := int(0.4*rate/15) + 1
	if bucket == hours*3600 {
		start = int(rate/12) + 1 // a flat rate: the replicas it needs
	}
	if v := envFloat(b, "SERVESIM_DAY_MIN", 0); v > 0 {
		start = int(v)
	}
	pool, err := NewPool("h100", eng, Target(InFlight, 40, start, 1000))
	if err != nil {
		b.Fatal(err)
	}
	o := Options{Day: Day{Span: hours * 3600, Bucket: bucket, Rates: rates, Phases: []Phase{{0, lengths}}},
		Fleet: Fleet{Pools: []Pool{pool}, Startup: DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}},
		Seed:  1, Tail: DefaultTail}
	b.ResetTimer()
	var rep *Report
	var sec float64
	memwatch.ResetPeakRSS()
	peak := memwatch.Peak(200e6, func() {
		for range b.N {
			t := time.Now()
			if rep, err = Run(o); err != nil {
				b.Fatal(err)
			}
			sec += time.Since(t).Seconds()
		}
	})
	n := float64(b.N)
	reqs := float64(rep.Total.Requests)
	b.ReportMetric(n*reqs/sec, "requests/s")
	b.ReportMetric(n*float64(rep.Result.Events)/sec, "events/s")
	b.ReportMetric(n*reqs/sec/singleRate, "x_single_replica")
	b.ReportMetric(float64(peak)/1e6, "peak_MB")
	if rss := memwatch.PeakRSS(); rss > 0 {
		b.ReportMetric(rss/1e6, "peak_RSS_MB")
	}
	b.ReportMetric(reqs, "requests")
	b.ReportMetric(float64(rep.Total.MaxReplicas), "max_replicas")
	b.ReportMetric(rep.Total.Attainment(), "attainment")
}
