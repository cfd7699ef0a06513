package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/scenario"
)

// readRunFixture reads testdata/rate-sweep.json and its rows.
func readRunFixture(t *testing.T) (*scenario.RunFile, []Row) {
	t.Helper()
	data, err := os.ReadFile(rateSweepFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenario.ReadRunFile(data)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, rows
}

// TestWriteRunTable: the title names the scenario, the sweep and the SLO;
// the table has one line per point under a header, every line the same
// width (right-aligned), the SLO columns only with an SLO, and a PASS or
// FAIL per point that is the row's verdict.
func TestWriteRunTable(t *testing.T) {
	t.Parallel()
	f, rows := readRunFixture(t)
	noSLO := *f
	noSLO.SLO, noSLO.Scenario = nil, ""
	tests := []struct {
		name    string
		f       *scenario.RunFile
		title   string
		has     []string
		hasNot  []string
		verdict bool
	}{
		{"with SLO", f, "# llama-3.1-8b-h100-capacity: ",
			[]string{"sweep of workload.arrival.rate over 6 values, 3 replication(s)", "; SLO TTFT <= 500 ms, TPOT <= 50 ms, target 0.99", "attain%", "q=0.99"}, nil, true},
		{"without SLO", &noSLO, "# (unnamed): ", []string{"sweep of workload.arrival.rate"}, []string{"attain%", "SLO ", "PASS"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := WriteRunTable(&b, tt.f, rows); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if !strings.HasPrefix(lines[0], tt.title) {
				t.Errorf("title %q, want the prefix %q", lines[0], tt.title)
			}
			for _, s := range tt.has {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(out, s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
			table := lines[3:]
			if len(table) != len(rows)+1 {
				t.Fatalf("%d table lines for %d rows:\n%s", len(table), len(rows), out)
			}
			if head := strings.Fields(table[0]); head[0] != "rate" {
				t.Errorf("first column %q, want the swept field's last part", head[0])
			}
			for i, l := range table {
				if len(l) != len(table[0]) {
					t.Errorf("line %d is %d wide, the header %d", i, len(l), len(table[0]))
				}
				if i > 0 && tt.verdict {
					want := map[bool]string{true: " PASS ", false: " FAIL "}[rows[i-1].Pass]
					if !strings.Contains(l, want) {
						t.Errorf("row %d %q lacks %q", i-1, l, want)
					}
				}
			}
		})
	}
}

// TestWriteRunCSV: a header of field names, one record per point with
// the swept values first, numbers at full precision, and "" where a value
// is not a number.
func TestWriteRunCSV(t *testing.T) {
	t.Parallel()
	f, rows := readRunFixture(t)
	rows = slices.Clone(rows)
	rows[0].TTFTp99 = math.NaN()
	var b bytes.Buffer
	if err := WriteRunCSV(&b, f, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records, want a header and %d points", len(recs), len(rows))
	}
	col := map[string]int{}
	for i, n := range recs[0] {
		col[n] = i
	}
	for _, n := range []string{"rate", "send_rate", "output_throughput", "p99_ttft_ms", "median_itl_ms", "slo_attainment_min", "slo_pass", "stable", "replications"} {
		if _, ok := col[n]; !ok {
			t.Errorf("CSV header %q lacks %s", recs[0], n)
		}
	}
	if recs[1][0] != "10" || recs[len(rows)][0] != "35" {
		t.Errorf("first column %q ... %q, want the rates 10 ... 35", recs[1][0], recs[len(rows)][0])
	}
	if got := recs[1][col["p99_ttft_ms"]]; got != "" {
		t.Errorf("NaN p99 TTFT written as %q, want empty", got)
	}
	if got, err := strconv.ParseFloat(recs[2][col["send_rate"]], 64); err != nil || got != rows[1].SendRate {
		t.Errorf("send_rate %q (%v), want %v at full precision", recs[2][col["send_rate"]], err, rows[1].SendRate)
	}
}
