package screen_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/screen"
)

// TestFlags: the flags parse into the study (the default candidates
// 1x1,2x1,4x1,8x1, --start 0 keeping the study's rate), and Check names
// the flag of a bad value.
func TestFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		tps  []int
		reps int
		rate float64 // Study.Start after Configure, from 7
		err  string  // prefix of Check's error
	}{
		{nil, []int{1, 2, 4, 8}, 3, 7, ""},
		{[]string{"--candidates", "2x2", "--replications", "4", "--boundary-replications", "4", "--start", "3"}, []int{2}, 4, 3, ""},
		{[]string{"--candidates", "4by1"}, nil, 0, 0, "--candidates: "},
		{[]string{"--replications", "6"}, nil, 0, 0, "--boundary-replications 5 must be >= --replications 6"},
	}
	for _, tt := range tests {
		var f screen.Flags
		fs := cliflag.NewFlagSet("tp")
		f.Define(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := f.Check()
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%q: Check error %v, want %q...", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		s := screen.Study{Start: 7}
		f.Configure(&s)
		var tps []int
		for _, c := range s.Candidates {
			tps = append(tps, c.TP)
		}
		if !slices.Equal(tps, tt.tps) || s.Replications != tt.reps || s.Start != tt.rate {
			t.Errorf("%q: TPs %v, replications %d, start %v; want %v, %d, %v", tt.args, tps, s.Replications, s.Start, tt.tps, tt.reps, tt.rate)
		}
	}
}
