package scenario

import (
	"testing"

	"github.com/servesim/servesim/sim/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardFile is shard k of n of a 2-point, 2-replication experiment with
// base seed 7: the jobs j ≡ k (mod n), each record as RunJobs numbers it.
func shardFile(k, n int) *RunFile {
	f := &RunFile{Format: RunFormat, Scenario: "s", Digest: "d", Replications: 2, Jobs: 4, Shard: "x"}
	for j := k; j < f.Jobs; j += n {
		f.Results = append(f.Results, RunRecord{Job: j, Point: j / 2, Replication: j % 2, Seed: event.ReplicationSeed(7, j%2)})
	}
	return f
}

func TestMergeRunFiles(t *testing.T) {
	t.Parallel()
	m, err := MergeRunFiles([]*RunFile{shardFile(1, 2), shardFile(0, 2)}, []string{"b.json", "a.json"})
	require.NoError(t, err)
	assert.Equal(t, "0/1", m.Shard)
	var jobs []int
	for _, r := range m.Results {
		jobs = append(jobs, r.Job)
	}
	assert.Equal(t, []int{0, 1, 2, 3}, jobs, "sorted by point, then replication")

	other := shardFile(1, 2)
	other.Digest = "e"
	reseeded := shardFile(1, 2)
	for i := range reseeded.Results {
		reseeded.Results[i].Seed = event.ReplicationSeed(8, reseeded.Results[i].Replication)
	}
	altered := shardFile(1, 2)
	altered.Results[0].Point = 1
	for _, tt := range []struct {
		name  string
		files []*RunFile
		want  string
	}{
		{"missing shard", []*RunFile{shardFile(0, 2)}, "2 of 4 jobs missing (jobs 1, 3...)"},
		{"twice", []*RunFile{shardFile(0, 2), shardFile(0, 2)}, "job 0 is in both a.json and b.json"},
		{"other scenario", []*RunFile{shardFile(0, 2), other}, "a.json and b.json: different scenario files"},
		{"other seed", []*RunFile{shardFile(0, 2), reseeded}, "b.json: job 1's seed"},
		{"altered", []*RunFile{shardFile(0, 2), altered}, "b.json: job 1 has point 1 and replication 1, want point 0"},
		{"no files", nil, "merge: 0 run files"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			names := []string{"a.json", "b.json"}[:len(tt.files)]
			_, err := MergeRunFiles(tt.files, names)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
