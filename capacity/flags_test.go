package capacity_test

import (
	"testing"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/cliflag"
)

// TestFlagsResolve: the defaults left 0 come from the scenario (at least
// 3 replications, twice as many near the answer, the workload's rate);
// given values stay; a bad pair names the flag to give.
func TestFlagsResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args             []string
		scenarioReps     int
		reps, boundary   int
		start, precision float64
		err              string
	}{
		{nil, 0, 3, 6, 12, 0.05, ""},
		{nil, 5, 5, 10, 12, 0.05, ""},
		{[]string{"--replications", "2", "--start", "4", "--precision", "0.1"}, 5, 2, 4, 4, 0.1, ""},
		{[]string{"--replications", "4", "--boundary-replications", "3"}, 0, 0, 0, 0, 0, "--boundary-replications 3 must be >= --replications 4"},
		{nil, capacity.MaxReplications + 1, 0, 0, 0, 0, "the scenario's replications 1001 exceed 1000, " + capacity.MaxReplicationsWhy + ": give --replications"},
	}
	for _, tt := range tests {
		var f capacity.Flags
		fs := cliflag.NewFlagSet("capacity")
		f.Define(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := f.Resolve(tt.scenarioReps, 12)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case f.Replications != tt.reps || f.BoundaryReplications != tt.boundary || f.Start != tt.start || f.Precision != tt.precision:
			t.Errorf("%q: %+v; want replications %d, boundary %d, start %v, precision %v", tt.args, f, tt.reps, tt.boundary, tt.start, tt.precision)
		}
	}
}
