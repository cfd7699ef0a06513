package sim

import "github.com/servesim/servesim/sim/metrics"

// requestStore holds request records in fixed-size pages so that pointers
// stay valid as it grows. In summary mode ended records go on a free list.
//
// When the run's request count is known, every request will arrive (no
// horizon) and records are kept, reserve makes one page of exactly that
// size, so the records end up contiguous and all returns them without
// copying. Memory otherwise grows with what actually arrives, one page at
// a time, never with a requested maximum; maxReserve bounds what a
// reservation may take up front.
type requestStore struct {
	pages [][]metrics.Request
	n     int // slots handed out
	free  []*metrics.Request
}

func (s *requestStore) reserve(n int) { s.pages = [][]metrics.Request{make([]metrics.Request, n)} }

const pageSize = 4096

// maxReserve is the largest request count reserved up front: 1,048,576
// records, about 84 MB (80 bytes each).
const maxReserve = 1 << 20

func (s *requestStore) alloc(id int) *metrics.Request {
	if k := len(s.free); k > 0 {
		r := s.free[k-1]
		s.free = s.free[:k-1]
		r.Reset(id)
		return r
	}
	// A fresh slot is zeroed memory: set only the fields that are not zero.
	r := s.slot(s.n)
	s.n++
	r.ID = id
	r.Arrival, r.Sent, r.Start, r.FirstToken, r.Done = metrics.Unset, metrics.Unset, metrics.Unset, metrics.Unset, metrics.Unset
	return r
}

func (s *requestStore) release(r *metrics.Request) { s.free = append(s.free, r) }

// slot returns record i, adding a page when i is one past the end.
func (s *requestStore) slot(i int) *metrics.Request {
	if len(s.pages) == 1 && len(s.pages[0]) != pageSize { // reserved
		if i < len(s.pages[0]) {
			return &s.pages[0][i]
		}
		panic("sim: more requests than reserved")
	}
	if i == len(s.pages)*pageSize {
		s.pages = append(s.pages, make([]metrics.Request, pageSize))
	}
	return &s.pages[i/pageSize][i%pageSize]
}

// all returns the records in slot order (full mode: ID order).
func (s *requestStore) all() []metrics.Request {
	if len(s.pages) == 1 {
		return s.pages[0][:s.n:s.n]
	}
	out := make([]metrics.Request, 0, s.n)
	for i := 0; i < s.n; i++ {
		out = append(out, *s.slot(i))
	}
	return out
}
