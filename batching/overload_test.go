package batching_test

import (
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverloadStopsSmall: llama-3.1-8b on one H100 with vLLM's defaults
// sustains about 25 req/s of Azure-conversation traffic under a loose SLO
// (examples/capacity); at 100 req/s, four times that, bounded only by a
// 1e9 s horizon, the run is stopped as unstable with a live heap under
// 100 MB. Not parallel: it reads process-wide heap counters.
func TestOverloadStopsSmall(t *testing.T) {
	model, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	gpu, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	var res *sim.Result
	peak := memwatch.Peak(100<<20, func() {
		res, err = sim.Run(sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 100}, Lengths: workload.AzureConversation()},
			Server:   batching.Defaults(model, gpu), Horizon: 1e9, Seed: 1,
		})
	})
	require.NoError(t, err)
	assert.Equal(t, sim.StopMaxInSystem, res.StoppedBy)
	assert.True(t, res.Stability.Unstable)
	assert.Less(t, res.Injected, 4*100_000, "stopped within a few hundred thousand arrivals (sim stops a run bounded only by its horizon at 100,000 in the system)")
	assert.Less(t, peak, uint64(100<<20), "peak heap %d MB", peak>>20)
	t.Logf("peak heap %.1f MB after %d arrivals", float64(peak)/(1<<20), res.Injected)
}
