package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim/metrics"
)

// TestWritePages: the pages of capacity's, tp's and run's --report, and
// run's --plot, are written with their titles and sections.
func TestWritePages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	crit := capacity.DefaultCriteria(metrics.SLO{TTFT: 0.5, TPOT: 0.05}, 0.99)
	points := []capacity.Point{
		{Rate: 10, Pass: true, MinAttainment: 1, Runs: []capacity.Verdict{{Pass: true, Attainment: 1, SendRate: 10}}},
		{Rate: 20, MinAttainment: 0.9, Runs: []capacity.Verdict{{Attainment: 0.9, SendRate: 20, Reasons: []string{"attainment 0.9 < 0.99"}}}},
	}
	model, _ := cost.Model("llama-3.1-8b")
	gpu, _ := cost.GPU("h100-sxm")
	study := screen.Study{Engine: batching.Defaults(model, gpu), Candidates: []screen.Candidate{{TP: 1, Replicas: 1}}, Criteria: crit}
	rep := &screen.Report{FitsOneGPU: true, Rows: []screen.Row{{Candidate: study.Candidates[0], GPUs: 1, Fits: true,
		Search: &capacity.Result{Lower: 30, Upper: math.Inf(1)}, LowerPerGPU: 30, UpperPerGPU: math.Inf(1)}}}
	out, _ := readRunFixture(t)
	tests := []struct {
		file  string
		write func(path string) error
		want  []string
	}{
		{"capacity.html", func(p string) error { return WriteCapacityPage(p, "s", "vLLM-v1 engine", crit, points, 10, 20) },
			[]string{"servesim capacity: vLLM-v1 engine", "[10.00, 20.00) req/s", "attainment 0.9 &lt; 0.99"}},
		{"tp.html", func(p string) error { return WriteScreenPage(p, study, rep) },
			[]string{"servesim tp: " + model.Name + " on " + gpu.Name, "λ* per GPU by candidate", "[30.00, inf) req/s"}},
		{"run.html", func(p string) error { return WriteRunPage(p, out) },
			[]string{"servesim run " + out.Scenario, "SLO attainment vs request rate"}},
		{"sweep.svg", func(p string) error { return WriteSweepPlot(p, out) }, []string{"<svg"}},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.file)
		if err := tt.write(path); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := string(data)
		if strings.HasSuffix(tt.file, ".html") && (!strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, `<svg class="chart"`)) {
			t.Errorf("%s: not an HTML page with charts", tt.file)
		}
		for _, w := range tt.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", tt.file, w)
			}
		}
	}
}
