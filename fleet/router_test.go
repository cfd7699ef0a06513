package fleet

import (
	"math/rand/v2"
	"testing"
)

// TestRouterBest checks the router against a scan: after random adds,
// removals and changes of held counts, best is the ready replica with the
// fewest held requests, ties to the smaller seq, and every replica's slot
// is its index in the heap.
func TestRouterBest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	reps := make([]*rep, 40)
	for i := range reps {
		reps[i] = &rep{seq: int64(r.IntN(4))<<40 | int64(i), slot: -1}
	}
	var h router
	for step := range 20_000 {
		x := reps[r.IntN(len(reps))]
		switch {
		case x.slot < 0:
			x.held = r.IntN(6)
			h.add(x)
		case r.IntN(4) == 0:
			h.remove(x)
		default:
			x.held = max(0, x.held+r.IntN(3)-1)
			h.changed(x)
		}
		var want *rep
		for _, y := range reps {
			if y.slot >= 0 && (want == nil || y.held < want.held || (y.held == want.held && y.seq < want.seq)) {
				want = y
			}
		}
		if got := h.best(); got != want {
			t.Fatalf("step %d: best %+v, want %+v", step, got, want)
		}
		for i, y := range h {
			if y.slot != i {
				t.Fatalf("step %d: replica at %d has slot %d", step, i, y.slot)
			}
		}
	}
}
