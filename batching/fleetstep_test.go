package batching_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/simtest"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// fleetDump runs o, its every engine stepwise (batching.Stepwise: each
// step's end an event through the full scheduler) when stepwise is set,
// and returns everything the day reports as bytes: the report (%+v
// prints every float in its shortest exact form, NaN included, and the
// recorded steps) and the run's result (simtest.Dump).
func fleetDump(t *testing.T, o fleet.Options, stepwise bool) []byte {
	t.Helper()
	o.Fleet.Pools = append([]fleet.Pool(nil), o.Fleet.Pools...)
	for i := range o.Fleet.Pools {
		if stepwise {
			o.Fleet.Pools[i].Engine = batching.Stepwise(o.Fleet.Pools[i].Engine)
		}
	}
	rep, err := fleet.Run(o)
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Result
	rep.Result = nil
	out := []byte(fmt.Sprintf("%+v\n", *rep))
	d, err := simtest.Dump(res)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, d...)
}

// TestFleetStepwiseIsExact: fleet days (a fixed fleet, a schedule, the
// HPA rule on in-flight requests and on KV usage over a diurnal shape, KV
// offload on shared prefixes, a model-free engine whose equal step times
// tie replicas' step ends; several seeds) report byte-identical results
// whether every step of every replica ends through the event queue and
// the full scheduler or through the engines' fast paths (decode runs
// ended in endStep, fast-forward).
func TestFleetStepwiseIsExact(t *testing.T) {
	t.Parallel()
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	eng := batching.Defaults(model, gpu)
	small := eng // a small KV pool: preemptions and KV-usage swings
	small.Deployment.KVCacheMemory = 2 << 30
	off := eng
	off.Deployment.KVCacheMemory = 1 << 30
	off.KVOffload = batching.DefaultKVOffload(16)
	flat := eng
	flat.Deployment = cost.Deployment{TP: 1}
	flat.KVBlocks = 20_000
	flat.StepTime = func(cost.Batch) float64 { return 0.0125 } // exact in binary: replicas' step ends tie
	azure := workload.AzureConversation()
	shared := workload.PrefixRepetition{PrefixLen: 2000, SuffixLen: 300, NumPrefixes: 6, OutputLen: 200}
	pool := func(name string, e batching.Config, p fleet.Policy) fleet.Pool {
		return fleet.Pool{Name: name, Engine: e, Policy: p, Price: 3, Power: fleet.Power{Idle: 100, Board: 700}}
	}
	day := func(span, bucket float64, rates []float64, l workload.Lengths, pools ...fleet.Pool) fleet.Options {
		return fleet.Options{
			Day:   fleet.Day{Span: span, Bucket: bucket, Rates: rates, Phases: []fleet.Phase{{From: 0, Lengths: l}}},
			Fleet: fleet.Fleet{Pools: pools, Startup: fleet.DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}},
			Tail:  fleet.DefaultTail,
		}
	}
	target := func(m fleet.Metric, v float64, lo, hi int) fleet.Policy {
		p := fleet.Target(m, v, lo, hi)
		p.DownWindow = 60
		return p
	}
	schedule := fleet.Policy{Kind: fleet.Scheduled, Schedule: []fleet.Step{{At: 0, Replicas: 2}, {At: 60, Replicas: 5}, {At: 150, Replicas: 3}}}
	diurnal := fleet.Scaled(30, fleet.Sinusoid(6, 3, 0.25))
	recorded := day(120, 120, []float64{25}, azure, pool("h100", eng, fleet.Policy{Kind: fleet.Fixed, Replicas: 3}))
	recorded.RecordSteps = true
	for _, tc := range []struct {
		name string
		o    fleet.Options
	}{
		{"fixed", day(240, 240, []float64{40}, azure, pool("h100", eng, fleet.Policy{Kind: fleet.Fixed, Replicas: 4}))},
		{"fixed recorded steps", recorded},
		{"schedule", day(240, 120, []float64{20, 50}, azure, pool("h100", eng, schedule))},
		{"target in-flight diurnal", day(360, 60, diurnal, azure, pool("h100", eng, target(fleet.InFlight, 40, 2, 12)))},
		{"target kv-usage small pool", day(300, 100, []float64{10, 30, 15}, azure, pool("h100", small, target(fleet.KVUsage, 0.5, 1, 10)))},
		{"target running two pools", day(240, 120, []float64{30, 10}, azure,
			pool("a", eng, target(fleet.Running, 24, 1, 8)), pool("b", small, fleet.Policy{Kind: fleet.Fixed, Replicas: 1}))},
		{"kv offload shared prefixes", day(240, 240, []float64{6}, shared, pool("h100", off, fleet.Policy{Kind: fleet.Fixed, Replicas: 2}))},
		{"equal step times tie", day(240, 120, []float64{60, 20}, azure, pool("flat", flat, target(fleet.InFlight, 30, 2, 10)))},
	} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				t.Parallel()
				o := tc.o
				o.Seed = seed
				want := fleetDump(t, o, true)
				got := fleetDump(t, o, false)
				if !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					lo := max(i-120, 0)
					t.Fatalf("the fast paths changed the day at byte %d of %d:\n stepwise: %q\n fast:     %q", i, len(want),
						want[lo:min(i+120, len(want))], got[lo:min(i+120, len(got))])
				}
			})
		}
	}
}
