package dataset

import (
	"container/heap"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/servesim/servesim/workload"
)

// MaxFileBytes is the largest dataset file the readers take, bytes
// (16 GiB, about 24 times ShareGPT_V3's 673 MB). A larger file is an
// error naming this limit.
const MaxFileBytes = 16 << 30

// MaxRowBytes is the largest one row (a JSON entry, a JSONL line, a CSV
// record) may be, bytes: 64 MiB, text of some 16 million tokens, beyond
// any model's context. It bounds what one row can make a reader hold.
const MaxRowBytes = 64 << 20

// maxRow is the row limit in force: MaxRowBytes, lowered by tests.
var maxRow = MaxRowBytes

// Requests returns how many requests a run of rows distinct rows makes
// under o: NumPrompts, or rows when NumPrompts <= 0 or with NoOversample
// and fewer rows than asked. Requests past the rows draw rows again at
// random (workload.Oversampled), as vLLM's maybe_oversample_requests.
func Requests(o Options, rows int) int {
	if o.NumPrompts <= 0 || (o.NoOversample && rows < o.NumPrompts) {
		return rows
	}
	return o.NumPrompts
}

// A sampler keeps the rows a run takes while a file streams past: with
// shuffling, the k valid rows of smallest random key (a uniform k-subset
// in random order, which is what shuffling every row and taking the
// first k valid ones gives); without, the first k valid rows. k <= 0
// keeps every row. Its memory is O(min(k, rows)) pairs whatever the file
// size; validity is asked (the text tokenized) only of rows whose key
// would enter the sample.
type sampler struct {
	o    *Options
	k    int
	keep keyHeap
	seq  uint64
}

func newSampler(o *Options) *sampler { return &sampler{o: o, k: o.NumPrompts} }

// full reports that no later row can enter (file order, k reached): the
// reader may stop.
func (s *sampler) full() bool {
	return s.o.DisableShuffle && s.k > 0 && len(s.keep) >= s.k
}

// offer considers one row; pair computes it and says whether it is
// valid, and is called only when the row could enter.
func (s *sampler) offer(pair func() (workload.Pair, bool, error)) error {
	if s.full() {
		return nil
	}
	s.seq++
	key := s.seq // file order
	if !s.o.DisableShuffle {
		key = s.o.Rand.Uint64()
	}
	if s.k > 0 && len(s.keep) >= s.k && key >= s.keep[0].key {
		return nil
	}
	p, ok, err := pair()
	if err != nil || !ok {
		return err
	}
	heap.Push(&s.keep, keyed{key: key, seq: s.seq, p: p})
	if s.k > 0 && len(s.keep) > s.k {
		heap.Pop(&s.keep)
	}
	return nil
}

// pairs returns the kept rows in key order.
func (s *sampler) pairs() []workload.Pair {
	rows := slices.Clone(s.keep)
	slices.SortFunc(rows, func(a, b keyed) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.seq) - int(b.seq)
	})
	out := make([]workload.Pair, len(rows))
	for i, r := range rows {
		out[i] = r.p
	}
	return out
}

type keyed struct {
	key, seq uint64
	p        workload.Pair
}

// keyHeap is a max-heap on (key, seq): its root is the row to evict.
type keyHeap []keyed

func (h keyHeap) Len() int { return len(h) }
func (h keyHeap) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key > h[j].key
	}
	return h[i].seq > h[j].seq
}
func (h keyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)   { *h = append(*h, x.(keyed)) }
func (h *keyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// openBounded opens path for streaming, refusing a directory or a file
// over MaxFileBytes.
func openBounded(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fileError(path, "is a directory: want a dataset file")
	}
	if st.Size() > MaxFileBytes {
		f.Close()
		return nil, fileError(path, "%d bytes exceed the dataset limit of %d bytes (MaxFileBytes, 16 GiB): split the file", st.Size(), int64(MaxFileBytes))
	}
	return f, nil
}

// rowLimiter fails a read once more than MaxRowBytes have been read past
// the start of the current row, so one huge row cannot be buffered whole.
type rowLimiter struct {
	r     io.Reader
	read  int64
	start int64
}

// errRowTooLong is the error of a row over MaxRowBytes.
var errRowTooLong = fmt.Errorf("a row exceeds %d bytes (MaxRowBytes, 64 MiB): split it or drop it", MaxRowBytes)

func (l *rowLimiter) Read(p []byte) (int, error) {
	if l.read-l.start > int64(maxRow) {
		return 0, errRowTooLong
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}
