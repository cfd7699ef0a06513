package plan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/scenario"
)

const planHead = `workload: {arrival: {rate: 5}, lengths: {kind: random, input: 256, output: 64}}
server: {kind: vllm, model: llama-3.1-8b, gpu: h100-sxm}
slo: {ttft_ms: 2000, tpot_ms: 100}
requests: 100
`

func parseScenario(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse([]byte(text), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestFromScenario: the plan takes the file's target rate, SLO, runs and
// search settings; the scheduler knobs the server leaves unset are each
// GPU's default (0), and the block's space is ChoicesOf's.
func TestFromScenario(t *testing.T) {
	t.Parallel()
	sc := parseScenario(t, planHead+"plan:\n  rate: 12\n  max_replicas: 3\n  budget: 50\n  no_prune: true\n  tp: [1, 2]\n  precisions: [fp8]\n  prices: {rtx4090: 0.5}\n")
	pl, err := plan.FromScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	s := pl.Search
	if pl.Objective.Rate != 12 || s.MaxReplicas != 3 || s.Budget != 50 || !s.NoPrune || s.Frontier != 0 || s.Requests != 100 {
		t.Errorf("rate %v, search %+v", pl.Objective.Rate, s)
	}
	if pl.Engine.MaxNumSeqs != 0 || pl.Engine.MaxNumBatchedTokens != 0 || pl.Router != batching.Router(sc.Server.Router) || pl.Objective.Criteria.SLO.TPOT != 0.1 {
		t.Errorf("engine %d/%d, router %s, criteria %+v", pl.Engine.MaxNumSeqs, pl.Engine.MaxNumBatchedTokens, pl.Router, pl.Objective.Criteria)
	}
	c, err := plan.ChoicesOf(sc.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.TP, []int{1, 2}) || !slices.Equal(c.Precisions, []cost.Precision{cost.FP8}) || c.Prices["rtx4090"] != 0.5 {
		t.Errorf("choices %+v", c)
	}
	// Without a block: the arrival rate and DefaultSearch.
	pl, err = plan.FromScenario(parseScenario(t, planHead))
	if err != nil || pl.Objective.Rate != 5 || pl.Search.MaxReplicas != plan.DefaultSearch().MaxReplicas {
		t.Errorf("no block: rate %v, search %+v, %v", pl.Objective.Rate, pl.Search, err)
	}
	for _, tt := range []struct{ old, new, want string }{
		{"slo: {ttft_ms: 2000, tpot_ms: 100}", "", "no SLO to plan for"},
		{"gpu: h100-sxm}", "gpu: h100-sxm, data_parallel_size: 2}", "the plan chooses the deployment"},
		{"rate: 5}", "rate: inf}", "the target must be a finite rate > 0"},
	} {
		sc := parseScenario(t, strings.Replace(planHead, tt.old, tt.new, 1))
		if _, err := plan.FromScenario(sc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.new, err, tt.want)
		}
	}
	if _, err := plan.ChoicesOf(&scenario.Plan{Precisions: []string{"int3"}}); err == nil || !strings.Contains(err.Error(), "plan.precisions") {
		t.Errorf("an unknown precision: %v", err)
	}
}

// TestPlanBlockBounds: a plan: block's list past a plan's bound is a
// field error at its key, as the flags' are.
func TestPlanBlockBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ block, field string }{
		{"  tp: [1, 3000]\n", "plan.tp[1]"},
		{"  max_num_seqs: [2000000000]\n", "plan.max_num_seqs[0]"},
		{"  max_num_batched_tokens: [4000000000]\n", "plan.max_num_batched_tokens[0]"},
		{"  data_parallel: [1, 1000000]\n", "plan.data_parallel[1]"},
	} {
		_, err := scenario.Parse([]byte(planHead+"plan:\n"+tt.block), "p.yaml")
		if fe := fielderr.Of(err); fe == nil || fe.Field != tt.field || !errors.Is(err, scenario.ErrInvalid) {
			t.Errorf("%q: %v, want a field error at %s", tt.block, err, tt.field)
		}
	}
}

// TestChoicesOver: each list set over replaces the base's, an unset one
// keeps it; prices and profiles merge, the later winning.
func TestChoicesOver(t *testing.T) {
	t.Parallel()
	prof := cost.Profile{}
	base := plan.Choices{GPUs: []string{"h100-sxm"}, TP: []int{1, 2}, Prices: map[string]float64{"a": 1, "b": 2}, ChunkedPrefill: []bool{true}}
	got := base.Over(plan.Choices{TP: []int{4}, Prices: map[string]float64{"b": 3}, Profiles: map[string]*cost.Profile{"h100-sxm": &prof}})
	if !slices.Equal(got.GPUs, base.GPUs) || !slices.Equal(got.TP, []int{4}) || !slices.Equal(got.ChunkedPrefill, []bool{true}) ||
		got.Prices["a"] != 1 || got.Prices["b"] != 3 || got.Profiles["h100-sxm"] != &prof {
		t.Errorf("Over: %+v", got)
	}
	if base.Prices["b"] != 2 {
		t.Error("Over changed the base's prices")
	}
	if got := base.Over(plan.Choices{}); !slices.Equal(got.TP, base.TP) || len(got.Prices) != 2 {
		t.Errorf("Over nothing: %+v", got)
	}
}
