package capacity_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// TestGridShards: a grid of 3 rates × 2 replications run as two shards,
// written, read back and merged, gives the points of the unsharded grid
// judged in one go; a missing shard, a job twice and another grid fail.
func TestGridShards(t *testing.T) {
	t.Parallel()
	crit := capacity.DefaultCriteria(metrics.SLO{E2E: 0.5}, 0.9)
	rates := []float64{2, 6, 9}
	sw := capacity.Sweep{Param: "rate", Values: rates, Replications: 2, Seed: 5, Workers: 1,
		Config: func(rate float64) (sim.Config, error) {
			return sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: workload.Fixed{Input: 1, Output: 1}},
				Server: queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}}, Requests: 400, SLO: crit.SLO}, nil
		}}
	all, err := sw.Run(jobs.All)
	require.NoError(t, err)
	want := capacity.Judge(crit, all)

	var shards []capacity.GridShard
	for i := range 2 {
		sh := jobs.Shard{Index: i, Count: 2}
		res, err := sw.Run(sh)
		require.NoError(t, err)
		b, err := json.Marshal(capacity.NewGridShard("s", "fcfs", "", crit, rates, 2, sh, res))
		require.NoError(t, err)
		g, err := capacity.ReadGridShard(b)
		require.NoError(t, err)
		shards = append(shards, g)
	}
	got, err := capacity.MergeGrid(shards, []string{"a", "b"})
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Rate, got[i].Rate)
		assert.Equal(t, want[i].Pass, got[i].Pass, "rate %v", want[i].Rate)
		assert.Equal(t, want[i].MinAttainment, got[i].MinAttainment)
		assert.Equal(t, want[i].Runs, got[i].Runs)
	}
	rep, err := capacity.MergeGridReport(shards, []string{"a", "b"})
	require.NoError(t, err)
	whole := capacity.NewGridReport(crit, all)
	assert.Equal(t, whole.Points, rep.Points, "the merged report's points are the unsharded grid's")
	assert.Equal(t, [2]float64{whole.Lower, whole.Upper}, [2]float64{rep.Lower, rep.Upper})
	assert.Equal(t, whole.Runs, rep.Runs)
	assert.Equal(t, "s", rep.Scenario)
	assert.Equal(t, "fcfs", rep.Server)
	// M/M/1: P(T > t) = exp(−(μ−λ)t), 1.8% at rate 2 and 13.5% at rate
	// 6 for t = 0.5 s: the first passes q = 0.9, the second fails it.
	assert.True(t, got[0].Pass, "rate 2 of a 10/s server passes")
	assert.False(t, got[1].Pass, "rate 6 of a 10/s server fails")

	_, err = capacity.MergeGrid(shards[:1], []string{"a"})
	assert.ErrorContains(t, err, "a shard is missing")
	_, err = capacity.MergeGridReport(shards[:1], []string{"a"})
	assert.ErrorContains(t, err, "a shard is missing")
	_, err = capacity.MergeGrid([]capacity.GridShard{shards[0], shards[0]}, []string{"a", "a2"})
	assert.ErrorContains(t, err, "appears twice")
	other := shards[1]
	other.Grid = []float64{1, 2, 3}
	_, err = capacity.MergeGrid([]capacity.GridShard{shards[0], other}, []string{"a", "c"})
	assert.ErrorContains(t, err, "c comes from another grid")
	_, err = capacity.ReadGridShard([]byte(`{"format": "servesim-run/1"}`))
	assert.True(t, errors.Is(err, capacity.ErrNotGridShard))
}
