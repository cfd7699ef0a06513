package plan_test

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/plan"
)

// TestSearchReplicationBounds: a plan's probes take at most
// capacity.MaxReplications runs (twice that near λ*), as a capacity
// search does; beyond, Validate names the field, the value and the limit.
func TestSearchReplicationBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reps, boundary int
		want           string // "" for valid
	}{
		{capacity.MaxReplications, 2 * capacity.MaxReplications, ""},
		{capacity.MaxReplications + 1, 0, "replications: 1001 must be in [1, 1000]"},
		{0, 0, "replications: 0 must be in [1, 1000]"},
		{2, 2*capacity.MaxReplications + 1, "boundary_replications: 2001 must be at most 2000"},
	}
	for _, tt := range tests {
		s := plan.DefaultSearch()
		s.Replications, s.BoundaryReplications = tt.reps, tt.boundary
		err := s.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("reps %d, boundary %d: %v", tt.reps, tt.boundary, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("reps %d, boundary %d: error %v, want %q", tt.reps, tt.boundary, err, tt.want)
		}
	}
}
