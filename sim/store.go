package sim

import (
	"math/bits"

	"github.com/servesim/servesim/sim/metrics"
)

// requestStore holds request records in pages that are never moved, so
// that pointers stay valid as it grows. In summary mode ended records go on
// a free list.
//
// When the run's request count is known, every request will arrive (no
// horizon) and records are kept, reserve makes one page of exactly that
// size, so the records end up contiguous and all returns them without
// copying. Memory otherwise grows with what actually arrives, one page at
// a time (small pages first), never with a requested maximum; maxReserve
// bounds what a reservation may take up front.
type requestStore struct {
	pages    [][]metrics.Request
	reserved bool // one page of the run's request count (reserve)
	n        int  // slots handed out
	free     []*metrics.Request
}

func (s *requestStore) reserve(n int) {
	s.pages, s.reserved = [][]metrics.Request{make([]metrics.Request, n)}, true
}

// Unreserved pages double from firstPage records to pageSize, then stay at
// pageSize: a run that holds few records at a time (summary mode recycles
// them) allocates little, and a long one a page of pageSize at a time.
// Page 0 holds records [0, firstPage), page k in 1..smallPages−1 holds
// [firstPage·2^(k−1), firstPage·2^k), and from record pageSize on every
// page holds pageSize.
const (
	firstPage  = 64
	pageSize   = 4096
	smallPages = 7 // log2(pageSize/firstPage) + 1
)

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
	if s.reserved {
		if i < len(s.pages[0]) {
			return &s.pages[0][i]
		}
		panic("sim: more requests than reserved")
	}
	page, off := pageOf(i)
	if page == len(s.pages) {
		size := pageSize
		if page < smallPages {
			size = firstPage << max(page-1, 0)
		}
		s.pages = append(s.pages, make([]metrics.Request, size))
	}
	return &s.pages[page][off]
}

// pageOf returns the unreserved page of record i and its offset there.
func pageOf(i int) (page, off int) {
	switch {
	case i < firstPage:
		return 0, i
	case i < pageSize:
		k := bits.Len(uint(i / firstPage)) // 1..smallPages-1
		return k, i - firstPage<<(k-1)
	}
	return smallPages + (i-pageSize)/pageSize, (i - pageSize) % pageSize
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
