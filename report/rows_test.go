package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/scenario"
)

// TestRows: the run table's rows of a saved sweep agree with the report's
// points (a separate aggregation): one row per value, every replication
// counted, the same means and the same verdicts.
func TestRows(t *testing.T) {
	t.Parallel()
	f, rows := readRunFixture(t)
	run, err := FromRunFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(f.Values) {
		t.Fatalf("%d rows for %d values", len(rows), len(f.Values))
	}
	passes := 0
	for i, row := range rows {
		p := run.Points[i]
		if row.N != f.Replications || row.N != p.Runs {
			t.Errorf("row %d: %d replications, want %d", i, row.N, f.Replications)
		}
		if row.Label != p.Value || row.X != p.X {
			t.Errorf("row %d: label %q at %v, the report's point %q at %v", i, row.Label, row.X, p.Value, p.X)
		}
		if d := math.Abs(row.SendRate - p.Metrics["send_rate"]); d > 1e-9*row.SendRate {
			t.Errorf("row %d: send rate %v, the report's %v", i, row.SendRate, p.Metrics["send_rate"])
		}
		if row.AttainMin != p.MinAttainment() || row.AttainMin > row.AttainMax {
			t.Errorf("row %d: attainment [%v, %v], the report's minimum %v", i, row.AttainMin, row.AttainMax, p.MinAttainment())
		}
		if row.Pass != p.Pass {
			t.Errorf("row %d: pass %v, the report's %v", i, row.Pass, p.Pass)
		}
		if row.Pass {
			passes++
		}
		if want := f.Replications * int(p.Metrics["completed"]); row.Completed != want {
			t.Errorf("row %d: %d completed, the report's mean times the replications %d", i, row.Completed, want)
		}
	}
	if passes == 0 || passes == len(rows) {
		t.Errorf("%d of %d points pass: the fixture should hold both verdicts", passes, len(rows))
	}
}

// TestRowsErrors: a record outside the file's points, or a failed count
// that is not a whole number, is an error naming the job.
func TestRowsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rec    scenario.RunRecord
		errHas string
	}{
		{"point out of range", scenario.RunRecord{Job: 4, Point: 2, Result: json.RawMessage(`{"completed": 1, "failed": 0}`)}, "job 4: point 2 out of range [0, 2)"},
		{"failed not a count", scenario.RunRecord{Job: 1, Point: 0, Result: json.RawMessage(`{"completed": 1, "failed": 1.5}`)}, "job 1: failed 1.5 is not a request count"},
		{"result not an object", scenario.RunRecord{Job: 0, Point: 1, Result: json.RawMessage(`[1]`)}, "job 0: result:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &scenario.RunFile{Values: []json.RawMessage{json.RawMessage("1"), json.RawMessage("2")}, Results: []scenario.RunRecord{tt.rec}}
			if _, err := Rows(f); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %v, want one containing %q", err, tt.errHas)
			}
		})
	}
}

// TestAllFailed: of a sweep whose first point's max_model_len no request
// fits and whose second fits them all, only the first is warned about,
// naming the field, the value, the failures and the limit.
func TestAllFailed(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse([]byte("requests: 1\nworkload:\n  arrival: {rate: 5}\n  lengths: {input: 1000, output: 100, range_ratio: 0.5}\n"+
		"sweep: {param: server.max_model_len, values: [1200, 4000]}\n"), "fail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	x, err := sc.Experiment()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sc.NewRunFile(x, jobs.All)
	if err != nil {
		t.Fatal(err)
	}
	if out.Results, err = x.RunJobs(jobs.All, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := Rows(out)
	if err != nil {
		t.Fatal(err)
	}
	got := AllFailed(sc.Param(), x, rows)
	want := "every request failed at server.max_model_len = 1200 (1): the engine rejects requests with input+output above server.max_model_len 1200"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("AllFailed = %q, want one warning starting %q", got, want)
	}
}
