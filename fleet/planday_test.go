package fleet_test

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// smallPlan is Llama-3.1-8B at 3 req/s of Azure-conversation traffic on
// H100s at TP 1 and 2 (BF16), with short runs, run once for every test.
var smallPlan = sync.OnceValues(func() (plan.Plan, *plan.Result) {
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		panic(err)
	}
	h100, err := cost.GPU("h100-sxm")
	if err != nil {
		panic(err)
	}
	p := plan.NewPlan(model)
	p.Space = plan.Space{GPUs: []plan.GPUOption{{GPU: h100}}, TP: []int{1, 2}, Precisions: []cost.Precision{cost.BF16}}
	p.Objective = plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation()},
		Rate:     3,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.1}, 0.99),
	}
	p.Search.Requests, p.Search.Warmup, p.Search.Seed, p.Search.Round, p.Search.NoPrune = 400, 40, 1, 4, true
	res, err := p.Run()
	if err != nil {
		panic(err)
	}
	return p, res
})

// planDay is the day RankPlan is given: its numbers only (the plan gives
// the model, SLO, lengths and deployments).
func planDay(policies ...fleet.NamedPolicy) fleet.DaySpec {
	return fleet.DaySpec{Rank: policies, Hours: 24, PeakHour: 14, Trough: 1, StorageBandwidth: 1e9, Attainment: 0.99, Seed: 1}
}

var bareFixed = fleet.NamedPolicy{Name: "fixed", Policy: fleet.Policy{Kind: fleet.Fixed}}

// TestRankPlanFlatFixed: on a flat day whose rate is the plan's target, a
// bare fixed policy holds each frontier deployment's plan count all day,
// ready from the start, so the day costs exactly the plan's dollars an
// hour (replicas × GPUs × price) times its 4 hours, none of it starting,
// and every deployment's GPU-hours are its GPUs times 4.
func TestRankPlanFlatFixed(t *testing.T) {
	t.Parallel()
	p, res := smallPlan()
	const hours = 4
	d := planDay(bareFixed)
	d.Hours, d.PeakHour = hours, 2
	pd, err := fleet.RankPlan(p, res, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(pd.Deployments) != len(res.Frontier()) || len(pd.Cases) != len(pd.Deployments) || len(pd.Skipped) != 0 {
		t.Fatalf("%d deployments, %d cases, skipped %v; the frontier has %d", len(pd.Deployments), len(pd.Cases), pd.Skipped, len(res.Frontier()))
	}
	for _, r := range pd.Options.Day.Rates {
		if math.Abs(r-res.Rate) > 1e-12*res.Rate {
			t.Fatalf("flat day rate %v, want the plan's %v", r, res.Rate)
		}
	}
	reports, err := fleet.Compare(pd.Options, pd.Cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range pd.Deployments {
		tot := reports[i].Total
		if want := hours * x.CostPerHour; math.Abs(tot.Dollars-want) > 1e-9*want {
			t.Errorf("%s: $%v over the day, want %d h × $%v/h = $%v", pd.Cases[i].Name, tot.Dollars, hours, x.CostPerHour, want)
		}
		if tot.StartupGPUHours != 0 || math.Abs(tot.GPUHours-hours*float64(x.TotalGPUs)) > 1e-9 || tot.MaxReplicas != x.Replicas {
			t.Errorf("%s: %v GPU-h (%v starting), %d replicas; want %d GPUs × %d h, none starting, %d replicas",
				pd.Cases[i].Name, tot.GPUHours, tot.StartupGPUHours, tot.MaxReplicas, x.TotalGPUs, hours, x.Replicas)
		}
	}
}

// TestRankPlanOrder: the ranking of a plan's deployments × policies on a
// diurnal day is fleet.Rank's on the same cases and day built by hand
// from the frontier's engines and prices; without a rate, the day's
// busiest hour is the plan's target rate.
func TestRankPlanOrder(t *testing.T) {
	t.Parallel()
	p, res := smallPlan()
	policies := []fleet.NamedPolicy{bareFixed, {Name: "fixed:1", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 1}},
		{Name: "in-flight:8", Policy: fleet.Target(fleet.InFlight, 8, 1, 8)}}
	d := planDay(policies...)
	d.Hours, d.PeakHour, d.Trough = 2, 1, 0.25
	pd, err := fleet.RankPlan(p, res, d)
	if err != nil {
		t.Fatal(err)
	}

	want := fleet.Options{Seed: 1, Tail: fleet.DefaultTail,
		Day:   fleet.Day{Span: 7200, Bucket: 3600, Phases: []fleet.Phase{{From: 0, Lengths: workload.AzureConversation()}}},
		Fleet: fleet.Fleet{Startup: fleet.DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}}}
	var cases []fleet.Case
	for _, x := range res.Frontier() {
		e := x.Replica.(plan.Engine)
		for _, np := range policies {
			pol, name := np.Policy, np.Name
			if name == "fixed" {
				pol.Replicas, name = x.Replicas, "fixed:"+strconv.Itoa(x.Replicas)
			}
			pool, err := fleet.NewPool(x.Settings.String(), e.Config, pol)
			if err != nil {
				t.Fatal(err)
			}
			pool.Price = x.PricePerGPUHour
			cases = append(cases, fleet.Case{Name: x.Settings.String() + " " + name, Pools: []fleet.Pool{pool}})
		}
	}
	if len(res.Frontier()) < 2 {
		t.Fatalf("the plan's frontier has %d deployments: the ranking would not mix them", len(res.Frontier()))
	}
	if !reflect.DeepEqual(pd.Cases, cases) {
		t.Fatalf("cases\n%+v\nwant\n%+v", pd.Cases, cases)
	}
	// The sine's shape, its busiest hour at the plan's rate.
	shape := fleet.Sinusoid(24, 1, 0.25)
	for i, r := range pd.Options.Day.Rates {
		if w := res.Rate * shape[i] / slices.Max(shape); math.Abs(r-w) > 1e-12*w {
			t.Errorf("hour %d at %v req/s, want %v", i, r, w)
		}
	}
	want.Day.Rates = pd.Options.Day.Rates
	if !reflect.DeepEqual(pd.Options, want) {
		t.Fatalf("options\n%+v\nwant\n%+v", pd.Options, want)
	}

	got, err := pd.Rank()
	if err != nil {
		t.Fatal(err)
	}
	// The oracle runs the cases one by one (Compare runs them in
	// parallel): the same reports, ranked as fleet.Rank ranks them.
	reports := make([]*fleet.Report, len(cases))
	for k, c := range cases {
		o := want
		o.Fleet.Pools = c.Pools
		if reports[k], err = fleet.Run(o); err != nil {
			t.Fatal(err)
		}
	}
	order, met := fleet.Rank(reports, 0.99)
	var gotNames, wantNames []string
	for i, k := range order {
		gotNames, wantNames = append(gotNames, got.Cases[i].Name), append(wantNames, cases[k].Name)
		if !reflect.DeepEqual(got.Reports[i], reports[k]) {
			t.Errorf("%s: Compare's report differs from its case run alone", cases[k].Name)
		}
	}
	if !slices.Equal(gotNames, wantNames) || got.Met != met {
		t.Errorf("ranked %v (%d meet the target), want %v (%d)", gotNames, got.Met, wantNames, met)
	}

	var b bytes.Buffer
	if err := pd.Write(&b, "plan day"); err != nil {
		t.Fatal(err)
	}
	for _, x := range pd.Deployments {
		if !strings.Contains(b.String(), x.Serve) || x.Serve == "" {
			t.Errorf("the output lacks the vllm serve line of %s:\n%s", x.Settings, b.String())
		}
	}
}

// TestRankPlanInvalid: a bad day number is a field error; no policy, or
// an invalid one for a deployment, is an error.
func TestRankPlanInvalid(t *testing.T) {
	t.Parallel()
	p, res := smallPlan()
	for _, tt := range []struct {
		name, want string
		field      bool
		edit       func(*fleet.DaySpec)
	}{
		{"attainment", "attainment", true, func(d *fleet.DaySpec) { d.Attainment = 2 }},
		{"hours", "hours", true, func(d *fleet.DaySpec) { d.Hours = 0 }},
		{"rate", "rate", true, func(d *fleet.DaySpec) { d.Rate = -1 }},
		{"no policy", "no policy", false, func(d *fleet.DaySpec) { d.Rank = nil }},
		{"bad policy", "policy bogus", false, func(d *fleet.DaySpec) {
			d.Rank = []fleet.NamedPolicy{{Name: "bogus", Policy: fleet.Policy{Kind: "bogus"}}}
		}},
	} {
		d := planDay(bareFixed)
		tt.edit(&d)
		_, err := fleet.RankPlan(p, res, d)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %q", tt.name, err, tt.want)
		}
		if fe := fielderr.Of(err); (fe != nil) != tt.field {
			t.Errorf("%s: field error %v", tt.name, fe)
		}
	}
}

// TestRankPlanNoDeployment: a plan that found no deployment has nothing
// to rank.
func TestRankPlanNoDeployment(t *testing.T) {
	t.Parallel()
	p, _ := smallPlan()
	for _, res := range []*plan.Result{nil, {Rate: 3}} {
		if _, err := fleet.RankPlan(p, res, planDay(bareFixed)); err == nil || !strings.Contains(err.Error(), "no deployment") {
			t.Errorf("%+v: %v, want an error saying the plan has no deployment", res, err)
		}
	}
}

// TestParsePolicies: a ';' list of policies, named as written; a bare
// fixed is the plan's count (0 replicas); a bad one is named.
func TestParsePolicies(t *testing.T) {
	t.Parallel()
	got, err := fleet.ParsePolicies(" fixed ; fixed:2;running:24", 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []fleet.NamedPolicy{bareFixed, {Name: "fixed:2", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 2}},
		{Name: "running:24", Policy: fleet.Target(fleet.Running, 24, 1, 4)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if _, err := fleet.ParsePolicies("fixed;bogus", 1, 4); err == nil || !strings.Contains(err.Error(), `"bogus"`) {
		t.Errorf("bogus: %v", err)
	}
}
