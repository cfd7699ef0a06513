package report

import (
	"encoding/json"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/vllmbench"
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

// TestFromBenchIsItsFile: the run FromBench builds from a bench run's
// typed document is the run Parse reads from the same run's result file,
// setup, metrics, samples, series, SLO and verdict, member for member, for
// flag sets that cover the header (--metadata, a rate, a concurrency cap),
// with and without --save-detailed and --goodput, and an overloaded run
// whose requests fail.
func TestFromBenchIsItsFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		args     []string
		detailed bool
	}{
		{"defaults", []string{"--num-prompts", "200"}, false},
		{"detailed with an SLO", []string{"--num-prompts", "500", "--request-rate", "5", "--goodput", "ttft:500", "tpot:50", "--metadata", "team=capacity"}, true},
		{"closed loop, e2el percentiles", []string{"--num-prompts", "200", "--max-concurrency", "8", "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99"}, true},
		{"overloaded with failures", []string{"--num-prompts", "400", "--request-rate", "200", "--random-input-len", "1800", "--random-range-ratio", "0.5", "--goodput", "ttft:2000", "--max-model-len", "2000"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var o vllmbench.Flags
			fs := cliflag.NewFlagSet("bench")
			o.Define(fs)
			args, err := vllmbench.Argparse(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			if err := o.Resolve(fs, io.Discard); err != nil {
				t.Fatal(err)
			}
			o.SaveDetailed = tt.detailed
			sc, res := runBench(t, &o.Options)
			now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
			date := now.Format(vllmbench.DateLayout)
			data, err := vllmbench.ResultJSON(&o.Options, sc, res, date, now)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := Parse(data, "servesim bench")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := vllmbench.NewDocument(&o.Options, sc, res, date, now)
			if err != nil {
				t.Fatal(err)
			}
			typed := FromBench(doc, res, "servesim bench")
			for _, r := range []*Run{typed, parsed} { // NaN != NaN to reflect.DeepEqual
				for k, v := range r.Points[0].Metrics {
					if math.IsNaN(v) {
						r.Points[0].Metrics[k] = -1
					}
				}
			}
			if !reflect.DeepEqual(typed.Setup, parsed.Setup) {
				t.Errorf("setup:\n%v\nwant %v", typed.Setup, parsed.Setup)
			}
			tp, pp := typed.Points[0], parsed.Points[0]
			if !slices.Equal(tp.Keys, pp.Keys) || !maps.Equal(tp.Metrics, pp.Metrics) {
				t.Errorf("metrics:\n%v\nwant %v", tp.Keys, pp.Keys)
			}
			if !reflect.DeepEqual(tp.Samples, pp.Samples) {
				for k := range pp.Samples {
					t.Errorf("%s: %d samples, want %d", k, len(tp.Samples[k]), len(pp.Samples[k]))
				}
			}
			tc, pc := *typed, *parsed
			tc.Points, pc.Points = nil, nil
			if !reflect.DeepEqual(tc, pc) {
				t.Errorf("run:\n%+v\nwant %+v", tc, pc)
			}
			if !slices.Equal(tp.Attainment, pp.Attainment) || tp.Unstable != pp.Unstable || tp.Pass != pp.Pass || tp.Runs != pp.Runs || tp.Value != pp.Value || !reflect.DeepEqual(tp.Verdicts, pp.Verdicts) {
				t.Errorf("point: attainment %v unstable %d pass %v runs %d value %q verdicts %v\nwant %v %d %v %d %q %v", tp.Attainment, tp.Unstable, tp.Pass, tp.Runs, tp.Value, tp.Verdicts, pp.Attainment, pp.Unstable, pp.Pass, pp.Runs, pp.Value, pp.Verdicts)
			}
			// The series as the page reads them (their exported fields;
			// FromBench keeps the run's own, with its sampling state).
			exported := func(ss []*metrics.Series) (out []metrics.Series) {
				for _, x := range ss {
					out = append(out, metrics.Series{Name: x.Name, Names: x.Names, Times: x.Times, Values: x.Values})
				}
				return out
			}
			if !reflect.DeepEqual(exported(tp.Series), exported(pp.Series)) {
				t.Errorf("%d series, want %d, or their samples differ", len(tp.Series), len(pp.Series))
			}
			tp.Series, pp.Series, tp.X, pp.X = nil, nil, 0, 0 // compared above; X is NaN in both
			if !reflect.DeepEqual(tp, pp) || !reflect.DeepEqual(tc, pc) {
				t.Errorf("FromBench and Parse differ")
			}
			t.Logf("%d setup fields, %d metrics, samples %d, pass %v, failed %d", len(typed.Setup), len(tp.Keys), len(tp.Samples), tp.Pass, res.Failed+res.Rejected)
		})
	}
}
