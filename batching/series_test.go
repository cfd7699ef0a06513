package batching

import (
	"encoding/json"
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithoutSeries: an engine or cluster without its time series runs
// the same run, every field of the result the same bytes, but reports no
// Result.Series; with them, each engine reports one.
func TestWithoutSeries(t *testing.T) {
	t.Parallel()
	eng := qwen4090(t)
	for _, c := range []struct {
		name    string
		server  interface{ WithoutSeries() sim.ServerConfig }
		engines int
	}{
		{"engine", eng, 1},
		{"cluster of three", Cluster{Engine: eng, Replicas: 3, Router: LeastOutstanding}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(s sim.ServerConfig) *sim.Result {
				res, err := sim.Run(sim.Config{Server: s, Requests: 400, Seed: 3,
					Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 6}, Lengths: workload.Fixed{Input: 512, Output: 64}}})
				require.NoError(t, err)
				return res
			}
			with, without := run(c.server.(sim.ServerConfig)), run(c.server.WithoutSeries())
			require.Len(t, with.Series, c.engines)
			for _, s := range with.Series {
				require.NotEmpty(t, s.Times)
			}
			assert.Nil(t, without.Series)
			with.Series = nil
			a, err := json.Marshal(with)
			require.NoError(t, err)
			b, err := json.Marshal(without)
			require.NoError(t, err)
			assert.JSONEq(t, string(a), string(b))
		})
	}
}
