package fleet_test

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/cliflag"
)

// TestDayFlagsSpec: servesim day's flags become a DaySpec, and each bad
// value is an error naming its flag.
func TestDayFlagsSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  []string
		gpus  int
		ranks int
		title string
		err   string
	}{
		{nil, 1, 0, "llama-3.1-8b on h100-sxm, policy running:24, 24 h at 4.00 req/s mean", ""},
		{[]string{"--gpu", "h100-sxm,a100-80gb", "--rank", "fixed:1;waiting:2", "--hours", "6", "--rate", "8"}, 2, 2, "llama-3.1-8b, 6 h at 8.00 req/s mean", ""},
		{[]string{"--policy", "bogus:3"}, 0, 0, "", "--policy: "},
		{[]string{"--rank", "fixed:1;bogus:3"}, 0, 0, "", "--rank "},
		{[]string{"--model", "no-such-model"}, 0, 0, "", "--model: "},
		{[]string{"--gpu", "h100-sxm,no-such-gpu"}, 0, 0, "", "--gpu: "},
		{[]string{"--prices", "h100-sxm"}, 0, 0, "", "--prices: "},
		{[]string{"--trace", "/no/such/trace.csv"}, 0, 0, "", "--trace: "},
		{[]string{"--attainment", "1.5"}, 0, 0, "", "--attainment"},
		{[]string{"--trough", "0"}, 0, 0, "", "--trough"},
		{[]string{"--pcie-bandwidth", "2e10"}, 0, 0, "", "--pcie-bandwidth: 2e+10 needs kv_offloading_size"},
		{[]string{"--kv-offloading-size", "8", "--kv-offloading-backend", "mooncake"}, 0, 0, "", `--kv-offloading-backend: "mooncake" is not modelled`},
		{[]string{"--kv-offloading-size", "8", "--kv-offloading-backend", "lmcache"}, 1, 0, "llama-3.1-8b on h100-sxm, policy running:24, 24 h at 4.00 req/s mean", ""},
		{[]string{"--kv-offloading-size", "2e6"}, 0, 0, "", "--kv-offloading-size: 2e+06 must be a number of GiB in [0, 1048576]"},
		{[]string{"--kv-offloading-size", "64", "--pcie-bandwidth", "25e9"}, 1, 0, "llama-3.1-8b on h100-sxm, policy running:24, 24 h at 4.00 req/s mean", ""},
	}
	for _, tt := range tests {
		var f fleet.DayFlags
		fs := cliflag.NewFlagSet("day")
		f.Define(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		d, err := f.Spec()
		switch {
		case tt.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one starting %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case len(d.GPUs) != tt.gpus || len(d.Rank) != tt.ranks || f.Title(d) != tt.title:
			t.Errorf("%q: %d GPUs, %d ranked, title %q; want %d, %d, %q", tt.args, len(d.GPUs), len(d.Rank), f.Title(d), tt.gpus, tt.ranks, tt.title)
		}
	}
}

// TestPlanDayFlags: without --policies there is no day, and a day flag
// alone is an error naming it; with --policies the day carries the flags'
// numbers and the plan's seed, its target policies bounded by the plan's
// replicas; a JSON plan, a bad policy and a bad day number are errors
// naming their flag.
func TestPlanDayFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		format string
		ranks  int
		err    string
	}{
		{nil, "table", -1, ""},
		{[]string{"--day-hours", "6"}, "table", 0, "--day-hours: ranks policies on a day: give --policies too"},
		{[]string{"--policies", "fixed;running:8", "--day-hours", "6", "--day-rate", "3"}, "table", 2, ""},
		{[]string{"--policies", "fixed"}, "json", 0, "--policies: writes a table: drop --format json"},
		{[]string{"--policies", "fixed;bogus:2"}, "table", 0, "--policies "},
		{[]string{"--policies", "fixed", "--day-trough", "0"}, "table", 0, "--day-trough"},
		{[]string{"--policies", "fixed", "--day-trace", "/no/such/trace.csv"}, "table", 0, "--day-trace: "},
	}
	for _, tt := range tests {
		var f fleet.PlanDayFlags
		fs := cliflag.NewFlagSet("plan")
		names := f.Define(fs)
		if len(names) != 8 || fs.Lookup(names[0]) == nil {
			t.Fatalf("Define named %v", names)
		}
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		d, err := f.Day(cliflag.Given(fs), tt.format, 16, 7)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want one with %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tt.args, err)
		case tt.ranks < 0:
			if d != nil {
				t.Errorf("%v: a day %+v without --policies", tt.args, d)
			}
		case d == nil || len(d.Rank) != tt.ranks || d.Hours != 6 || d.Rate != 3 || d.Seed != 7 || d.Rank[1].Policy.Max != 16:
			t.Errorf("%v: day %+v, want %d policies over 6 h at 3 req/s, seed 7, up to 16 replicas", tt.args, d, tt.ranks)
		}
	}
}
