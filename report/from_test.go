package report

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// TestResultPointIsItsJSON: the point FromResult reads from a Result's
// typed fields is the one parseBench reads from the Result's JSON (the
// path FromResult took before), member for member: the same metrics in
// the same order, NaN where the JSON has null, and the same verdict, for
// an open-loop run with an SLO, a closed-loop run without one (rate
// "inf", max_concurrency set), and an overloaded run cut short.
func TestResultPointIsItsJSON(t *testing.T) {
	t.Parallel()
	service := distribution.Exponential{Rate: 10}
	lengths := workload.Random{InputLen: 128, OutputLen: 32}
	for _, tt := range []struct {
		name string
		cfg  sim.Config
	}{
		{"open loop with an SLO", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 8}, Lengths: lengths},
			Server: queue.FCFS{Servers: 1, Service: service}, Requests: 200, Warmup: 20, Seed: 7, SLO: metrics.SLO{E2E: 1.0}}},
		{"closed loop", sim.Config{Workload: workload.Workload{Clients: 3, Lengths: lengths},
			Server: queue.FCFS{Servers: 1, Service: service}, Requests: 100, Seed: 3}},
		{"overloaded and cut short", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 40}, Lengths: lengths},
			Server: queue.FCFS{Servers: 1, Service: service}, Requests: 2000, MaxInSystem: 50, Seed: 5, SLO: metrics.SLO{TTFT: 0.5}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := sim.Run(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := jsonobj.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := parseBench(obj)
			if err != nil {
				t.Fatal(err)
			}
			want, got := b.point, resultPoint(res)
			if len(got.Keys) != len(want.Keys) || len(got.Metrics) != len(want.Metrics) {
				t.Fatalf("keys %v\nwant %v", got.Keys, want.Keys)
			}
			nan := 0
			for i, k := range want.Keys {
				g, w := got.Metrics[k], want.Metrics[k]
				if got.Keys[i] != k || !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
					t.Errorf("metric %d: %s = %v, want %s = %v", i, got.Keys[i], g, k, w)
				}
				if math.IsNaN(w) {
					nan++
				}
			}
			if got.Unstable != want.Unstable || got.Runs != want.Runs || !math.IsNaN(got.X) {
				t.Errorf("unstable %d runs %d x %v, want %d %d NaN", got.Unstable, got.Runs, got.X, want.Unstable, want.Runs)
			}
			t.Logf("%d metrics, %d of them null; unstable %d", len(want.Keys), nan, want.Unstable)
		})
	}
}
