package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanExample runs the example on its quick space and checks the
// invariants of its output: the winners meet the SLO at the target rate
// and are the cheapest; the table is sorted by cost; every rejected row
// has a reason and a why; the files are written and agree with the table.
func TestPlanExample(t *testing.T) {
	dir := t.TempDir()
	p, err := newPlan(1, true)
	require.NoError(t, err)
	var b strings.Builder
	out := outputs{plot: filepath.Join(dir, "frontier.svg"), json: filepath.Join(dir, "plan.json"), csv: filepath.Join(dir, "plan.csv")}
	require.NoError(t, run(&b, p, out))
	t.Log("\n" + b.String())

	var res struct {
		Ranked []struct {
			Name        string  `json:"name"`
			CostPerHour float64 `json:"cost_per_hour"`
			Attainment  float64 `json:"attainment"`
			Replicas    int     `json:"replicas"`
			TTFT        struct{ P99 float64 }
			TPOT        struct{ P99 float64 }
			Serve       string `json:"vllm_serve"`
			Bench       string `json:"vllm_bench_serve"`
			Checks      []struct {
				Replicas int  `json:"replicas"`
				Pass     bool `json:"pass"`
			} `json:"checks"`
		} `json:"ranked"`
		Winners  int `json:"winners"`
		Rejected []struct {
			Reason string `json:"reason"`
			Why    string `json:"why"`
		} `json:"rejected"`
		Candidates int `json:"candidates"`
	}
	raw, err := os.ReadFile(out.json)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &res))
	require.NotEmpty(t, res.Ranked, "some candidate meets the SLO")
	require.GreaterOrEqual(t, res.Winners, 1)
	assert.Equal(t, res.Candidates, len(res.Ranked)+len(res.Rejected), "every candidate is ranked or rejected")
	for i, x := range res.Ranked {
		assert.GreaterOrEqual(t, x.Attainment, 0.99, "%s meets the SLO", x.Name)
		assert.LessOrEqual(t, x.TTFT.P99, 2.0, "%s", x.Name)
		assert.LessOrEqual(t, x.TPOT.P99, 0.05, "%s", x.Name)
		if i > 0 {
			assert.LessOrEqual(t, res.Ranked[i-1].CostPerHour, x.CostPerHour, "sorted by cost")
		}
		assert.Equal(t, i < res.Winners, x.CostPerHour == res.Ranked[0].CostPerHour, "the winners are the cheapest")
		assert.Contains(t, x.Serve, "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size")
		assert.Contains(t, x.Bench, "--request-rate 20")
		// The replica count is the fewest that passed: one fewer failed or
		// was never needed (the roofline's bound).
		for _, c := range x.Checks {
			assert.Equal(t, c.Replicas >= x.Replicas, c.Pass, "%s at %d replicas", x.Name, c.Replicas)
		}
	}
	for _, r := range res.Rejected {
		assert.NotEmpty(t, r.Reason)
		assert.NotEmpty(t, r.Why)
		assert.NotContains(t, r.Why, "\n")
	}

	rows, err := csv.NewReader(bytes.NewReader(must(os.ReadFile(out.csv)))).ReadAll()
	require.NoError(t, err)
	assert.Len(t, rows, 1+res.Candidates)
	svg := must(os.ReadFile(out.plot))
	assert.True(t, bytes.Contains(svg[:min(len(svg), 200)], []byte("<svg")), "an SVG")
	assert.True(t, bytes.Contains(svg, []byte("Pareto frontier")), "the frontier in the legend")
	assert.Contains(t, b.String(), "planned in")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
