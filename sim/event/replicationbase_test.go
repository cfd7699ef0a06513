package event

import "testing"

// ReplicationBase inverts ReplicationSeed for any base and index.
func TestReplicationBase(t *testing.T) {
	t.Parallel()
	for _, base := range []uint64{0, 1, 42, 1<<63 + 12345, ^uint64(0)} {
		for _, i := range []int{0, 1, 7, 999, 1 << 30} {
			if got := ReplicationBase(ReplicationSeed(base, i), i); got != base {
				t.Errorf("ReplicationBase(ReplicationSeed(%d, %d)) = %d", base, i, got)
			}
		}
	}
	if ReplicationBase(ReplicationSeed(5, 3)+1, 3) == 5 {
		t.Error("an altered seed maps back to the same base")
	}
}
