package capacity_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim/metrics"
)

// TestReport: the text names the server, the rule, the workload and the
// pricing around the probe table; the JSON keeps every field, an open
// end of the bracket as null.
func TestReport(t *testing.T) {
	t.Parallel()
	crit := capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.1}, 0.99)
	if got, want := crit.String(), "TTFT <= 2000 ms, TPOT <= 100 ms for >= 99% of requests"; got != want {
		t.Errorf("Criteria.String() = %q, want %q", got, want)
	}
	points := []capacity.Point{{Rate: 4, Pass: true, MinAttainment: 1}, {Rate: 8, Pass: true, MinAttainment: 0.995}}
	r := capacity.Report{Scenario: "s", Server: "srv", Workload: "Poisson", PricedBy: "profile x", Criteria: crit, Points: points,
		Lower: 8, Upper: math.Inf(1), Runs: 2, Requests: 600}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if lines[0] != "capacity of srv: "+crit.String() || lines[1] != "workload: Poisson" || lines[len(lines)-1] != "priced by: profile x" {
		t.Errorf("text:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"scenario": "s", "server": "srv", "priced_by": "profile x", "lower": 8.0, "upper": nil, "runs": 2.0, "requests": 600.0} {
		if got, ok := doc[key]; !ok || got != want {
			t.Errorf("JSON %s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if _, ok := doc["workload"]; ok || len(doc["points"].([]any)) != 2 {
		t.Errorf("JSON: %s", js.String())
	}
	r.PricedBy = ""
	js.Reset()
	if err := r.WriteJSON(&js); err != nil || strings.Contains(js.String(), "priced_by") {
		t.Errorf("no pricing: %v\n%s", err, js.String())
	}
}

// TestRateGrid: a bad rate is a field error naming its index (the runs
// are servesim capacity --grid's, TestCapacityGridShards).
func TestRateGrid(t *testing.T) {
	t.Parallel()
	for _, rates := range [][]float64{{1, 0}, {math.Inf(1)}, {math.NaN()}} {
		g := capacity.RateGrid{Rates: rates, Replications: 1}
		if fe := fielderr.Of(g.Validate()); fe == nil || !strings.HasPrefix(fe.Field, "rates[") {
			t.Errorf("rates %v: %v, want a field error at rates[i]", rates, g.Validate())
		}
	}
}
