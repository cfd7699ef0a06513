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
