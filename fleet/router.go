package fleet

import "container/heap"

// router holds the ready replicas by the requests each holds, fewest
// first, ties to the first pool and then the oldest replica (seq): a
// heap, so routing costs O(log ready) rather than a scan.
type router []*rep

func (h router) Len() int { return len(h) }
func (h router) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.held != b.held {
		return a.held < b.held
	}
	return a.seq < b.seq
}
func (h router) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].slot, h[j].slot = i, j
}
func (h *router) Push(x any) {
	r := x.(*rep)
	r.slot = len(*h)
	*h = append(*h, r)
}
func (h *router) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	r.slot = -1
	return r
}

// add makes r routable.
func (h *router) add(r *rep) { heap.Push(h, r) }

// remove takes r out (draining or stopped).
func (h *router) remove(r *rep) {
	if r.slot >= 0 {
		heap.Remove(h, r.slot)
	}
}

// changed restores the order after r.held changed.
func (h *router) changed(r *rep) {
	if r.slot >= 0 {
		heap.Fix(h, r.slot)
	}
}

// best returns the replica to route to, or nil when none is ready.
func (h router) best() *rep {
	if len(h) == 0 {
		return nil
	}
	return h[0]
}
