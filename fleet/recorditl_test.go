package fleet

import (
	"encoding/json"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordITL: a day keeps its inter-token latencies in Report.Result
// only when asked; the report itself (hours, bills, events) is the same
// bytes either way, as are the day's other metrics.
func TestRecordITL(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	pool, err := NewPool("h100", batching.Defaults(m, g), Target(InFlight, 40, 2, 8))
	require.NoError(t, err)
	o := Options{Day: Day{Span: 120, Bucket: 60, Rates: []float64{20, 30}, Phases: []Phase{{0, workload.AzureConversation()}}},
		Fleet: Fleet{Pools: []Pool{pool}, Startup: DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}}, Seed: 2, Tail: 60}
	without, err := Run(o)
	require.NoError(t, err)
	o.RecordITL = true
	with, err := Run(o)
	require.NoError(t, err)
	assert.Zero(t, without.Result.ITL().Count())
	assert.Positive(t, with.Result.ITL().Count())
	a, err := json.Marshal(with)
	require.NoError(t, err)
	b, err := json.Marshal(without)
	require.NoError(t, err)
	assert.JSONEq(t, string(a), string(b))
	assert.Equal(t, with.Result.TTFT().Mean(), without.Result.TTFT().Mean())
	assert.Equal(t, with.Result.TPOT().Percentile(99), without.Result.TPOT().Percentile(99))
}
