package plan

import (
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
)

// TestSpaceSizeSaturates: a space of 2·2^21·2^21·2^21 points (2^64, which
// an int product wraps to 0) counts as more than MaxCandidates, so
// Validate refuses it instead of Candidates allocating for a wrapped
// count.
func TestSpaceSizeSaturates(t *testing.T) {
	t.Parallel()
	big := make([]int, 1<<21)
	s := Space{GPUs: make([]GPUOption, 2), TP: big, MaxNumSeqs: big, MaxNumBatchedTokens: big}
	if got := s.size(batching.Config{}); got != MaxCandidates+1 {
		t.Errorf("size = %d, want MaxCandidates+1 = %d", got, MaxCandidates+1)
	}
	s = Space{GPUs: make([]GPUOption, 2), TP: []int{1, 2, 4}, Precisions: []cost.Precision{cost.BF16, cost.FP8}}
	if got := s.size(batching.Config{}); got != 12 {
		t.Errorf("size = %d, want 2 GPUs × 3 TP × 2 precisions = 12", got)
	}
}
