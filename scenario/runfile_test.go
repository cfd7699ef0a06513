package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/jobs"
)

// TestRunFileRoundTrip: an experiment's run file (two shards of a sweep
// of two points × two replications) reads back as written, its records in
// job order with each job's result, and a file of another format fails
// matching ErrNotRunFile.
func TestRunFileRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte("name: rt\nrequests: 40\nreplications: 2\nworkload: {arrival: {rate: 2}}\nserver: {kind: fcfs, service: exp:20}\n"+
		"slo: {e2el_ms: 500}\nsweep: {param: workload.arrival.rate, values: [2, 4]}\n"), "rt.yaml")
	require.NoError(t, err)
	x, err := s.Experiment()
	require.NoError(t, err)
	var ids []int
	for i := range 2 {
		sh := jobs.Shard{Index: i, Count: 2}
		f, err := s.NewRunFile(x, sh)
		require.NoError(t, err)
		f.Results, err = x.RunJobs(sh, 1, nil, nil)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, f.WriteJSON(&b))
		back, err := ReadRunFile(b.Bytes())
		require.NoError(t, err)
		assert.Equal(t, RunFormat, back.Format)
		assert.Equal(t, 4, back.Jobs)
		assert.Equal(t, sh.String(), back.Shard)
		assert.Equal(t, &RunSLO{E2ELms: 500, Target: 0.99}, back.SLO)
		assert.Equal(t, []json.RawMessage{json.RawMessage("2"), json.RawMessage("4")}, back.Values)
		require.Len(t, back.Results, 2)
		for k, r := range back.Results {
			assert.Equal(t, f.Results[k].Job, r.Job)
			assert.JSONEq(t, string(f.Results[k].Result), string(r.Result))
			ids = append(ids, r.Job)
		}
	}
	assert.ElementsMatch(t, []int{0, 1, 2, 3}, ids, "the shards partition the jobs")
	_, err = ReadRunFile([]byte(`{"format": "servesim-capacity/1"}`))
	assert.True(t, errors.Is(err, ErrNotRunFile), "%v", err)
	_, err = ReadRunFile([]byte(`[1]`))
	assert.True(t, errors.Is(err, ErrNotRunFile), "%v", err)
}
