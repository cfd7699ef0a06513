package fleet

import (
	"fmt"
	"math"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// evenTrace is a trace of n requests one second apart: as a day's shape
// its points are u_k = k exactly, so request k arrives at Λ⁻¹(k).
func evenTrace(n int) *workload.Trace {
	t := &workload.Trace{}
	for i := range n {
		t.Rows = append(t.Rows, workload.TraceRow{Time: float64(i), Input: 16, Output: 1})
	}
	return t
}

// stepEngine is a model-free engine whose every step takes d seconds.
func stepEngine(d float64, maxSeqs int) batching.Config {
	return batching.Config{
		Deployment: cost.Deployment{TP: 1}, MaxNumSeqs: maxSeqs, MaxNumBatchedTokens: max(maxSeqs, 64),
		EnableChunkedPrefill: true, BlockSize: 16, KVBlocks: 200_000,
		StepTime: func(cost.Batch) float64 { return d },
	}
}

var testPower = Power{Idle: 100, Board: 700}

// TestTargetTrackingStepLoad: a deterministic step load (10, 25, then 5
// req/s, every request in flight 10 s) under the HPA rule on in-flight
// requests (target 30 per replica, 15 s period, 60 s down window, 30 s
// start-up) gives the replica count computed by hand:
//
//	t = 15:  100 in flight → ⌈100/30⌉ = 4: start 3, ready at 45
//	t = 315: 250 in flight → ⌈250/30⌉ = 9: start 5, ready at 345
//	t = 615: 50 in flight → 2, held by the window (9 at 600) until
//	t = 675, when every recommendation of [615, 675] is 2: drain 7.
func TestTargetTrackingStepLoad(t *testing.T) {
	t.Parallel()
	pol := Target(InFlight, 30, 1, 20)
	pol.DownWindow = 60
	o := Options{
		Day: Day{Span: 900, Bucket: 300, Rates: []float64{10, 25, 5}, Trace: evenTrace(100),
			Phases: []Phase{{0, workload.Fixed{Input: 16, Output: 500}}}},
		Fleet: Fleet{Pools: []Pool{{Name: "a", Engine: stepEngine(0.02, 1024), Policy: pol, Price: 2, Power: testPower}},
			Startup: Startup{NodeStart: 30, StorageBandwidth: math.Inf(1)}},
		Tail: DefaultTail,
	}
	rep, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		t float64
		n int
	}{{0, 1}, {14.9, 1}, {15, 4}, {314.9, 4}, {315, 9}, {674.9, 9}, {675, 2}, {899, 2}}
	for _, w := range want {
		if got := rep.ReplicasAt("a", w.t); got != w.n {
			t.Errorf("replicas at %v s = %d, want %d", w.t, got, w.n)
		}
	}
	var starts, readies, drains, stops []float64
	for _, e := range rep.Events {
		switch e.Kind {
		case Start:
			starts = append(starts, e.Time)
		case Ready:
			readies = append(readies, e.Time)
		case Drain:
			drains = append(drains, e.Time)
		case Stop:
			stops = append(stops, e.Time)
		}
		if e.Reason == "" {
			t.Errorf("event %+v has no reason", e)
		}
	}
	wantTimes := func(name string, got []float64, want ...float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s at %v, want %v", name, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s at %v, want %v", name, got, want)
				return
			}
		}
	}
	wantTimes("starts", starts, 15, 15, 15, 315, 315, 315, 315, 315)
	wantTimes("readies", readies, 0, 45, 45, 45, 345, 345, 345, 345, 345)
	wantTimes("drains", drains, 675, 675, 675, 675, 675, 675, 675)
	if len(stops) != 7 {
		t.Fatalf("stops at %v, want 7 within a request's 10 s after 675", stops)
	}
	for _, s := range stops {
		if s < 675 || s > 675+10.1 {
			t.Errorf("stop at %v s, want in [675, 685.1]: a drained replica stops when its last request ends", s)
		}
	}
	// GPU-hours: 1 replica all day, 3 from 15, 5 from 315, 7 of those
	// until they drained; start-up is 8 × 30 s.
	var tail float64
	for _, s := range stops {
		tail += s - 675
	}
	wantGPUs := (900 + 3*(900-15) + 5*(900-315) - 7*(900-675) + tail) / 3600
	if got := rep.Total.GPUHours; math.Abs(got-wantGPUs) > 1e-9 {
		t.Errorf("GPU-hours %v, want %v", got, wantGPUs)
	}
	if got, want := rep.Total.StartupGPUHours, 8*30.0/3600; math.Abs(got-want) > 1e-12 {
		t.Errorf("start-up GPU-hours %v, want %v", got, want)
	}
	if got := rep.Total.Dollars; math.Abs(got-2*wantGPUs) > 1e-9 {
		t.Errorf("dollars %v, want 2 $/h × %v h", got, wantGPUs)
	}
}

// TestScheduleCostIsMinimumFleets: a zero-delay schedule sized to each
// bucket's minimum fleet costs exactly the sum of those fleets. Each
// replica serves one request at a time for exactly 1 s (10 steps of
// 0.1 s) and arrivals are evenly spaced, so a bucket at r req/s needs
// ⌈r⌉ replicas (D/D/c: ⌈r·s⌉); with them every request starts at once.
func TestScheduleCostIsMinimumFleets(t *testing.T) {
	t.Parallel()
	const B, price = 600.0, 3.0
	run := func(rates []float64, counts []int) *Report {
		t.Helper()
		var sched []Step
		for i, n := range counts {
			sched = append(sched, Step{At: float64(i) * B, Replicas: n})
		}
		o := Options{
			Day: Day{Span: B * float64(len(rates)), Bucket: B, Rates: rates, Trace: evenTrace(10),
				Phases: []Phase{{0, workload.Fixed{Input: 16, Output: 10}}}},
			Fleet: Fleet{Pools: []Pool{{Name: "p", Engine: stepEngine(0.1, 1), Policy: Policy{Kind: Scheduled, Schedule: sched}, Price: price, Power: testPower}},
				Startup: Startup{StorageBandwidth: math.Inf(1)}, SLO: metrics.SLO{TTFT: 0.15}},
			Tail: DefaultTail,
		}
		rep, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	minimum := func(rates []float64) (counts []int, dollars float64) {
		for _, r := range rates {
			n := int(math.Ceil(r)) // ⌈r·s⌉ with s = 1 s
			counts = append(counts, n)
			dollars += float64(n) * B / 3600 * price
		}
		return counts, dollars
	}
	// Rising: no replica ever drains, so the cost is exact.
	rise := []float64{0.5, 1.5, 2.5}
	counts, want := minimum(rise)
	rep := run(rise, counts)
	if got := rep.Total.Dollars; math.Abs(got-want) > 1e-9 {
		t.Errorf("rising day: $%v, want the minimum fleets' $%v", got, want)
	}
	if a := rep.Total.Attainment(); a != 1 {
		t.Errorf("rising day: attainment %v, want 1 with the minimum fleets", a)
	}
	// Up and down: each drained replica adds at most its request's 1 s.
	day := []float64{0.5, 1.5, 2.5, 1.5, 0.5}
	counts, want = minimum(day)
	rep = run(day, counts)
	drains := 0
	for _, e := range rep.Events {
		if e.Kind == Drain {
			drains++
		}
	}
	got := rep.Total.Dollars
	if drains != 2 || got < want-1e-9 || got > want+float64(drains)*1.0/3600*price+1e-9 {
		t.Errorf("day: $%v with %d drains, want the minimum fleets' $%v plus at most 1 s of each of 2 drained replicas", got, drains, want)
	}
	if a := rep.Total.Attainment(); a != 1 {
		t.Errorf("day: attainment %v, want 1", a)
	}
	// One replica fewer in the busiest bucket misses the SLO there.
	counts[2]--
	rep = run(day, counts)
	if a := rep.Hours[2].Attainment(); a > 0.9 {
		t.Errorf("day with %d replicas at 2.5 req/s: bucket attainment %v, want well below 1", counts[2], a)
	}
}

// TestEnergyIsPowerIntegral: the day's energy equals the power model
// integrated over the recorded steps: each replica draws idle power
// while billed and Watts(u) − idle more during a step of utilisation u.
func TestEnergyIsPowerIntegral(t *testing.T) {
	t.Parallel()
	model, _ := cost.Model("llama-3.2-1b")
	gpu, _ := cost.GPU("h100-sxm")
	eng := batching.Defaults(model, gpu)
	p, err := NewPool("h100", eng, Target(Running, 8, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	p.Policy.DownWindow = 30
	o := Options{
		Day: Day{Span: 240, Bucket: 60, Rates: []float64{5, 40, 10, 2},
			Phases: []Phase{{0, workload.Random{InputLen: 512, OutputLen: 128, RangeRatio: 0.5}}, {120, workload.Random{InputLen: 2048, OutputLen: 64, RangeRatio: 0.5}}}},
		Fleet: Fleet{Pools: []Pool{p}, Startup: Startup{NodeStart: 5, StorageBandwidth: 10e9}},
		Seed:  3, Tail: DefaultTail, RecordSteps: true,
	}
	rep, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	// Billed intervals from the events.
	type span struct{ from, to float64 }
	bill := map[int]*span{}
	for _, e := range rep.Events {
		switch e.Kind {
		case Start:
			bill[e.Replica] = &span{e.Time, o.Day.Span}
		case Ready:
			if _, ok := bill[e.Replica]; !ok {
				bill[e.Replica] = &span{0, o.Day.Span}
			}
		case Stop, Cancel:
			bill[e.Replica].to = min(e.Time, o.Day.Span)
		}
	}
	if len(bill) < 2 {
		t.Fatalf("%d replicas: the load should have scaled the pool", len(bill))
	}
	var want, busy float64
	for _, s := range bill {
		want += p.Power.Idle * (s.to - s.from)
	}
	var utils []float64
	for _, st := range rep.Steps {
		// The part of the step inside the span draws Watts(u), of which
		// idle is already counted.
		in := max(0, min(st.Start+st.Duration, o.Day.Span)-st.Start)
		want += (p.Power.Watts(st.Util) - p.Power.Idle) * in
		busy += in
		utils = append(utils, st.Util)
	}
	if got := rep.Total.Joules; math.Abs(got-want) > 1e-9*want {
		t.Errorf("energy %v J, want ∫ power = %v J", got, want)
	}
	// Utilisation is a real fraction that varies with the batch.
	lo, hi := 1.0, 0.0
	for _, u := range utils {
		lo, hi = min(lo, u), max(hi, u)
	}
	if !(lo > 0 && hi <= 1 && hi > lo) {
		t.Errorf("step utilisation in [%v, %v], want a spread inside (0, 1]", lo, hi)
	}
	if rep.Total.OutputTokens == 0 || rep.Total.JoulesPerToken() <= 0 {
		t.Errorf("J/token %v over %d tokens", rep.Total.JoulesPerToken(), rep.Total.OutputTokens)
	}
}

// TestHeldAndTwoPools: requests that arrive while no replica is ready
// wait in the router and are served once one is; a second pool's
// replicas take their share and are billed from their scheduled start.
func TestHeldAndTwoPools(t *testing.T) {
	t.Parallel()
	held := Pool{Name: "late", Engine: stepEngine(0.01, 64), Price: 1, Power: testPower,
		Policy: Policy{Kind: Scheduled, Schedule: []Step{{0, 0}, {50, 1}}}}
	o := Options{
		Day: Day{Span: 100, Bucket: 100, Rates: []float64{2}, Trace: evenTrace(10),
			Phases: []Phase{{0, workload.Fixed{Input: 16, Output: 10}}}},
		Fleet: Fleet{Pools: []Pool{held}, Startup: Startup{StorageBandwidth: math.Inf(1)}, SLO: metrics.SLO{TTFT: 1}},
		Tail:  DefaultTail,
	}
	rep, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	// Arrivals at k/2 s: those at or before 49 s wait 1 s or more for
	// the replica ready at 50 s (k = 0..98: 99 of 200 miss).
	h := rep.Hours[0]
	if h.Requests != 200 || h.Completed != 200 || h.Good != 101 {
		t.Errorf("held: %d requests, %d completed, %d good; want 200, 200, 101", h.Requests, h.Completed, h.Good)
	}
	if got, want := rep.Total.GPUHours, 50.0/3600; math.Abs(got-want) > 1e-12 {
		t.Errorf("held: %v GPU-h, want %v (from 50 s)", got, want)
	}

	fixed := Pool{Name: "base", Engine: stepEngine(0.01, 64), Price: 2, Power: testPower, Policy: Policy{Kind: Fixed, Replicas: 1}}
	two := held
	two.Policy.Schedule = []Step{{0, 0}, {50, 2}}
	o.Fleet.Pools = []Pool{fixed, two}
	o.Day.Rates = []float64{40} // 4 in flight: the base replica is busy at most arrivals
	rep, err = Run(o)
	if err != nil {
		t.Fatal(err)
	}
	b, l := rep.Pools[0], rep.Pools[1]
	if math.Abs(b.GPUHours-100.0/3600) > 1e-12 || math.Abs(l.GPUHours-2*50.0/3600) > 1e-12 {
		t.Errorf("pools: %v and %v GPU-h, want %v and %v", b.GPUHours, l.GPUHours, 100.0/3600, 100.0/3600)
	}
	if math.Abs(rep.Total.Dollars-(2*100+1*100)/3600.0) > 1e-12 {
		t.Errorf("dollars %v, want %v", rep.Total.Dollars, 300/3600.0)
	}
	// The late pool served requests: it drew more than idle power.
	if idle := testPower.Idle * 100; !(l.Joules > idle) {
		t.Errorf("late pool drew %v J, no more than its idle %v J: the router never used it", l.Joules, idle)
	}
	if rep.Total.Attainment() != 1 {
		t.Errorf("attainment %v with a replica always ready, want 1", rep.Total.Attainment())
	}
}

// TestDeterministic: the same options give the same report, event by
// event and hour by hour, whatever GOMAXPROCS (a run is one goroutine).
func TestDeterministic(t *testing.T) {
	t.Parallel()
	o := Options{
		Day: Day{Span: 120, Bucket: 30, Rates: []float64{20, 80, 10, 40}, Phases: []Phase{{0, workload.Fixed{Input: 64, Output: 30}}}},
		Fleet: Fleet{Pools: []Pool{{Name: "a", Engine: stepEngine(0.01, 16), Policy: Target(QueueTime, 0.05, 1, 6), Price: 1, Power: testPower}},
			Startup: Startup{NodeStart: 5, StorageBandwidth: math.Inf(1)}},
		Seed: 9, Tail: DefaultTail,
	}
	dump := func() string {
		r, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Events) < 3 {
			t.Fatalf("%d events: the queue-time policy should have scaled", len(r.Events))
		}
		return fmt.Sprintf("%+v %+v %+v", r.Events, r.Hours, r.Total)
	}
	if a, b := dump(), dump(); a != b {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

// TestRank: cases meeting the target come first by dollars, then the
// others by attainment.
func TestRank(t *testing.T) {
	t.Parallel()
	mk := func(d float64, good int64) *Report {
		return &Report{Total: Bill{Dollars: d, Requests: 100, Good: good}}
	}
	reps := []*Report{mk(5, 100), mk(3, 98), mk(4, 99), mk(1, 50), mk(4, 100)}
	order, met := Rank(reps, 0.99)
	if want := []int{2, 4, 0, 1, 3}; met != 3 || fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("Rank = %v, %d met; want %v, 3", order, met, want)
	}
}
