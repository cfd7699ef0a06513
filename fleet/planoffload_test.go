package fleet_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// offloadPlan is a plan of Llama-3.1-8B on H100s at TP 1 (BF16) whose
// engine template is servesim day's (batching.Defaults, the model's whole
// context), offloading as off, at 3 req/s of Azure-conversation traffic.
func offloadPlan(t *testing.T, off *batching.KVOffload) (plan.Plan, *plan.Result) {
	t.Helper()
	model, _ := cost.Model("llama-3.1-8b")
	h100, _ := cost.GPU("h100-sxm")
	p := plan.NewPlan(model)
	p.Engine = batching.Defaults(model, h100)
	p.Engine.MaxNumSeqs, p.Engine.MaxNumBatchedTokens, p.Engine.KVOffload = 0, 0, off
	p.MaxModelLen = model.MaxContext
	p.Space = plan.Space{GPUs: []plan.GPUOption{{GPU: h100}}, TP: []int{1}, Precisions: []cost.Precision{cost.BF16}}
	p.Objective = plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation()},
		Rate:     3,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.1}, 0.99),
	}
	p.Search.Requests, p.Search.Warmup, p.Search.Seed, p.Search.Round, p.Search.MaxReplicas = 300, 30, 1, 4, 8
	res, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// TestRankPlanOffloadMatchesDay: servesim plan --policies with LMCache
// offloading (the engine's, typed, as runPlan hands it to the day) runs
// each deployment and policy with and without it; the case with it bills
// the day exactly as servesim day does with the same flags (the same
// engine: day's defaults, but for the max-model-len the plan names),
// counters included, and the case without it has no offload counters.
func TestRankPlanOffloadMatchesDay(t *testing.T) {
	t.Parallel()
	offFlags := []string{"--kv-offloading-size", "64", "--kv-offloading-backend", "lmcache"}
	dayNumbers := []string{"--rate", "2", "--hours", "2", "--peak-hour", "1", "--trough", "0.25", "--storage-bandwidth", "1e9", "--seed", "1"}

	var df fleet.DayFlags
	fs := cliflag.NewFlagSet("day")
	df.Define(fs)
	args := append(append([]string{"--gpu", "h100-sxm", "--policy", "in-flight:8", "--ttft", "2", "--tpot", "0.1"}, dayNumbers...), offFlags...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	d, err := df.Spec()
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := d.Options()
	if err != nil {
		t.Fatal(err)
	}
	day, err := fleet.Run(o)
	if err != nil {
		t.Fatal(err)
	}

	p, res := offloadPlan(t, d.KVOffload)
	var pf fleet.PlanDayFlags
	fs = cliflag.NewFlagSet("plan")
	pf.Define(fs)
	if err := fs.Parse([]string{"--policies", "in-flight:8", "--day-rate", "2", "--day-hours", "2", "--day-peak-hour", "1", "--day-trough", "0.25", "--storage-bandwidth", "1e9"}); err != nil {
		t.Fatal(err)
	}
	pday, err := pf.Day(map[string]bool{"policies": true}, "table", p.Search.MaxReplicas, p.Search.Seed)
	if err != nil {
		t.Fatal(err)
	}
	pday.KVOffload = p.Engine.KVOffload // runPlan's wiring
	pd, err := fleet.RankPlan(p, res, *pday)
	if err != nil {
		t.Fatal(err)
	}
	if len(pd.Cases) != 2*len(pd.Deployments) || len(pd.Deployments) == 0 {
		t.Fatalf("%d cases for %d deployments, want two each", len(pd.Cases), len(pd.Deployments))
	}
	r, err := pd.Rank()
	if err != nil {
		t.Fatal(err)
	}
	var with, without *fleet.Report
	for i, c := range r.Cases {
		switch {
		case strings.HasSuffix(c.Name, " in-flight:8 offload:64:lmcache"):
			with = r.Reports[i]
			// The plan names its max-model-len: the model's whole
			// context, day's 0.
			want := o.Fleet.Pools[0].Engine
			want.MaxModelLen = p.Model.MaxContext
			if !reflect.DeepEqual(c.Pools[0].Engine, want) {
				t.Errorf("the plan's engine with offload\n%+v\nwant day's\n%+v", c.Pools[0].Engine, want)
			}
		case strings.HasSuffix(c.Name, " in-flight:8"):
			without = r.Reports[i]
			if c.Pools[0].Engine.KVOffload != nil {
				t.Errorf("%s offloads", c.Name)
			}
		}
	}
	if with == nil || without == nil {
		t.Fatalf("cases %v: want one with offload:64:lmcache and one without", caseNames(r.Cases))
	}
	got, want := with.Total, day.Total
	got.Name, want.Name = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the plan's day with offload bills\n%+v\nservesim day with the same flags\n%+v", got, want)
	}
	if v, ok := got.Stat("kv_offload_sync_time"); !ok || !(v > 0) {
		t.Errorf("the offload case reports kv_offload_sync_time %v (%v), want > 0", v, ok)
	}
	if _, ok := without.Total.Stat("kv_offload_hit_rate"); ok {
		t.Error("the case without offload reports offload counters")
	}
	var b bytes.Buffer
	if err := pd.Write(&b, "plan day"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--kv-offloading-size 64 --kv-offloading-backend lmcache\n  without offload: drop --kv-offloading-size 64 --kv-offloading-backend lmcache\n") {
		t.Errorf("the output lacks the offload case's vllm serve flags:\n%s", b.String())
	}
}

// caseNames lists the cases' names.
func caseNames(cases []fleet.Case) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Name)
	}
	return out
}

// TestRankPlanOffloadErrors: a bad day offload is a field error naming
// its flag, checked alone and against each deployment's engine.
func TestRankPlanOffloadErrors(t *testing.T) {
	t.Parallel()
	p, res := smallPlan()
	bad := batching.DefaultKVOffload(8)
	bad.Backend = "mooncake"
	chunk := batching.DefaultKVOffload(8)
	chunk.BlockSize = 24
	for _, tc := range []struct {
		off   *batching.KVOffload
		field string
	}{{bad, "kv-offloading-backend"}, {chunk, "kv-offload.block_size"}} {
		d := planDay(fleet.NamedPolicy{Name: "fixed:1", Policy: fleet.Policy{Kind: fleet.Fixed, Replicas: 1}})
		d.KVOffload = tc.off
		_, err := fleet.RankPlan(p, res, d)
		if fe := fielderr.Of(err); fe == nil || fe.Field != tc.field {
			t.Errorf("%+v: error %v, want a field error on %s", tc.off, err, tc.field)
		}
	}
}
