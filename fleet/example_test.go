package fleet_test

import (
	"fmt"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// Two hours of traffic that doubles at the hour on Llama-3.1-8B H100s,
// scaled by the HPA rule on running requests: the bill by hour and the
// scaling events.
func Example() {
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	pool, err := fleet.NewPool("h100", batching.Defaults(model, gpu), fleet.Target(fleet.Running, 16, 1, 4))
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := fleet.Run(fleet.Options{
		Day: fleet.Day{Span: 7200, Bucket: 3600, Rates: []float64{3, 12},
			Phases: []fleet.Phase{{From: 0, Lengths: workload.AzureConversation()}}},
		Fleet: fleet.Fleet{Pools: []fleet.Pool{pool}, Startup: fleet.DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}},
		Seed:  1, Tail: fleet.DefaultTail,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = rep.WriteHours(os.Stdout)
	for _, e := range rep.Events[:8] {
		fmt.Printf("%6.0f s %s %d -> %d\n", e.Time, e.Kind, e.Replica, e.Replicas)
	}
	fmt.Println(rep.Events[1].Reason)
	// Output:
	// hour  req/s  replicas  p99 TTFT ms  p99 TPOT ms  attain %  goodput      $   kWh  J/tok
	//      0   3.02      1.00          133           11     100.0     3.02   3.95  0.46  0.717
	//      1  11.92      2.70          163           20     100.0    11.92  10.65  1.07  0.424
	// $14.60, 3.7 GPU-h (0.38 starting), 1.5 kWh, 0.483 J/token, attainment 100.00%, worst hour 0 at 100.00%
	//      0 s ready 0 -> 1
	//   3615 s start 1 -> 2
	//   3615 s start 2 -> 3
	//   3615 s start 3 -> 4
	//   3841 s ready 1 -> 4
	//   3841 s ready 2 -> 4
	//   3841 s ready 3 -> 4
	//   4155 s drain 3 -> 3
	// running 54 over 1 ready (target 16 each): recommend 4, stabilised 4
}

// A per-hour multiplier table becomes a day's rates at a mean rate.
func ExampleScaled() {
	fmt.Println(fleet.Scaled(10, []float64{1, 2, 3, 2}))
	// Output: [5 10 15 10]
}

// A policy as the command line gives it.
func ExampleParsePolicy() {
	p, err := fleet.ParsePolicy("kv-usage:0.7", 1, 8)
	fmt.Println(p.Kind, p.Metric, p.Target, p.Period, p.DownWindow, p.Min, p.Max, err)
	_, err = fleet.ParsePolicy("running:0", 1, 8)
	fmt.Println(err)
	// Output:
	// target kv-usage 0.7 15 300 1 8 <nil>
	// fleet: policy target 0 must be a finite number > 0
}

// Plan Llama-3.1-8B at 3 req/s on H100s (TP 1 or 2), then rank the
// plan's frontier under a fixed fleet of the plan's count and the HPA on
// running requests over two hours of a day whose busiest hour is 3 req/s
// (smallPlan, in planday_test.go, runs plan.NewPlan's plan over that
// space). The HPA's start-ups cost more than the one replica the plan
// sized for the peak.
func ExampleRankPlan() {
	p, res := smallPlan()
	d := fleet.DaySpec{Hours: 2, PeakHour: 1, Trough: 0.25, StorageBandwidth: 1e9, Attainment: 0.99, Seed: 1,
		Rank: []fleet.NamedPolicy{{Name: "fixed", Policy: fleet.Policy{Kind: fleet.Fixed}}, {Name: "running:8", Policy: fleet.Target(fleet.Running, 8, 1, 4)}}}
	pd, err := fleet.RankPlan(p, res, d)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := pd.Rank()
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, c := range r.Cases {
		t := r.Reports[i].Total
		fmt.Printf("%s: $%.2f, %.1f GPU-h, %.2f%%\n", c.Name, t.Dollars, t.GPUHours, 100*t.Attainment())
	}
	// Output:
	// h100-sxm tp1 seqs1024 mnbt8192 chunked bf16 fixed:1: $7.90, 2.0 GPU-h, 100.00%
	// h100-sxm tp1 seqs1024 mnbt8192 chunked bf16 running:8: $14.62, 3.7 GPU-h, 100.00%
	// h100-sxm tp2 seqs1024 mnbt8192 chunked bf16 fixed:1: $15.80, 4.0 GPU-h, 100.00%
	// h100-sxm tp2 seqs1024 mnbt8192 chunked bf16 running:8: $18.40, 4.7 GPU-h, 100.00%
}
