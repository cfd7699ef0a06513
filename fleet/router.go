package fleet

// router holds the ready replicas by the requests each holds, fewest
// first, ties to the first pool and then the oldest replica (seq): a
// binary heap, so routing costs O(log ready) rather than a scan. It is
// written out over *rep rather than through container/heap, whose
// interface calls per comparison and swap were a few percent of a day's
// run; every replica's seq is distinct, so the order is strict and the
// replica at the top is the same whichever correct heap holds them.
type router []*rep

// before orders replicas: fewer held requests, then the smaller seq.
func before(a, b *rep) bool {
	if a.held != b.held {
		return a.held < b.held
	}
	return a.seq < b.seq
}

// add makes r routable.
func (h *router) add(r *rep) {
	*h = append(*h, r)
	h.up(len(*h) - 1)
}

// remove takes r out (draining or stopped).
func (h *router) remove(r *rep) {
	i := r.slot
	if i < 0 {
		return
	}
	s := *h
	n := len(s) - 1
	last := s[n]
	s[n] = nil
	*h = s[:n]
	r.slot = -1
	if i < n {
		s[i] = last
		h.fix(i)
	}
}

// changed restores the order after r.held changed.
func (h *router) changed(r *rep) {
	if r.slot >= 0 {
		h.fix(r.slot)
	}
}

// fix moves the replica at i down or up to its place.
func (h router) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// up moves the replica at i towards the root while it is before its
// parent, keeping every moved replica's slot.
func (h router) up(i int) {
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !before(x, h[p]) {
			break
		}
		h[i] = h[p]
		h[i].slot = i
		i = p
	}
	h[i] = x
	x.slot = i
}

// down moves the replica at i0 towards the leaves while a child is before
// it, and reports whether it moved.
func (h router) down(i0 int) bool {
	i, x, n := i0, h[i0], len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && before(h[r], h[l]) {
			m = r
		}
		if !before(h[m], x) {
			break
		}
		h[i] = h[m]
		h[i].slot = i
		i = m
	}
	h[i] = x
	x.slot = i
	return i > i0
}

// best returns the replica to route to, or nil when none is ready.
func (h router) best() *rep {
	if len(h) == 0 {
		return nil
	}
	return h[0]
}
