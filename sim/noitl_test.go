package sim_test

import (
	"encoding/json"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoITL: a run that leaves the inter-token latencies out records none
// and is otherwise the same run: every request's record, every other
// metric and the server's counters the same bytes, with records and in
// summary mode.
func TestNoITL(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	for _, summary := range []bool{false, true} {
		cfg := sim.Config{Server: batching.Defaults(m, g), Requests: 300, Seed: 7, SummaryOnly: summary,
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 8}, Lengths: workload.Fixed{Input: 1024, Output: 96}}}
		with, err := sim.Run(cfg)
		require.NoError(t, err)
		cfg.NoITL = true
		without, err := sim.Run(cfg)
		require.NoError(t, err)
		require.Positive(t, with.ITL().Count())
		assert.Zero(t, without.ITL().Count(), "summary %v", summary)
		assert.Equal(t, with.Requests, without.Requests, "summary %v", summary)
		for name, f := range map[string]func(*sim.Result) any{
			"ttft": func(r *sim.Result) any { return []float64{r.TTFT().Mean(), r.TTFT().Percentile(99)} },
			"tpot": func(r *sim.Result) any { return []float64{r.TPOT().Mean(), r.TPOT().Percentile(99)} },
			"e2e":  func(r *sim.Result) any { return []float64{r.E2E().Mean(), r.E2E().Percentile(99)} },
			"attainment and throughput": func(r *sim.Result) any {
				return []float64{r.Attainment, r.OutputThroughput, r.RequestThroughput}
			},
			"server": func(r *sim.Result) any { b, _ := json.Marshal(r.Server); return string(b) },
		} {
			assert.Equal(t, f(with), f(without), "%s, summary %v", name, summary)
		}
	}
}
