package plan_test

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/scenario"
)

// TestFlagsConfigure: the list flags given replace the plan: block's
// lists and the search settings given replace the plan's; a bad list is
// named by its flag when given, by its plan: key when the block gave it.
func TestFlagsConfigure(t *testing.T) {
	t.Parallel()
	parse := func(t *testing.T, args ...string) (*plan.Flags, *flag.FlagSet) {
		t.Helper()
		var p plan.Flags
		fs := cliflag.NewFlagSet("plan")
		p.Define(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return &p, fs
	}

	p, fs := parse(t, "--tp-degrees", "1,2", "--precisions", "fp8", "--max-replicas", "3", "--gpus", "h100-sxm")
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var pl plan.Plan
	pl.Search = plan.DefaultSearch()
	block := &scenario.Plan{TP: []int{4, 8}}
	if err := p.Configure(&pl, block, "", cliflag.Given(fs)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pl.Space.TP, []int{1, 2}) || pl.Search.MaxReplicas != 3 || len(pl.Space.GPUs) != 1 || pl.Space.GPUs[0].GPU.Name != "h100-sxm" {
		t.Errorf("space %+v, max replicas %d; want TP [1 2] on h100-sxm, 3", pl.Space, pl.Search.MaxReplicas)
	}
	if p.Format != "table" {
		t.Errorf("--format default %q, want table", p.Format)
	}

	p, _ = parse(t, "--boundary-replications", "1", "--replications", "2")
	if err := p.Check(); err == nil || err.Error() != "--boundary-replications 1 must be >= --replications 2" {
		t.Errorf("Check: %v", err)
	}

	for _, tt := range []struct {
		args  []string
		block *scenario.Plan
		want  string
	}{
		{[]string{"--gpus", "nope"}, nil, "--gpus: "},
		{nil, &scenario.Plan{GPUs: []string{"nope"}}, "plan.gpus: "},
		{[]string{"--chunked-prefill-options", "maybe"}, nil, `--chunked-prefill-options: "maybe": want on or off`},
	} {
		p, fs := parse(t, tt.args...)
		var pl plan.Plan
		err := p.Configure(&pl, tt.block, "", cliflag.Given(fs))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q with block %+v: error %v, want it to begin %q", tt.args, tt.block, err, tt.want)
		}
	}
}
