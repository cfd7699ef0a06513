package jobs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShardFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    map[string]string
		want   jobs.Shard
		source string
		ok     bool
		err    string
	}{
		{"none", nil, jobs.Shard{}, "", false, ""},
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "8"}, jobs.Shard{Index: 3, Count: 8}, "JOB_COMPLETION_INDEX", true, ""},
		{"slurm from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"}, jobs.Shard{Index: 0, Count: 4}, "SLURM_ARRAY_TASK_ID", true, ""},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, jobs.Shard{Index: 3, Count: 4}, "SLURM_ARRAY_TASK_ID", true, ""},
		{"kubernetes wins", map[string]string{"JOB_COMPLETION_INDEX": "1", "JOB_COMPLETIONS": "2", "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, jobs.Shard{Index: 1, Count: 2}, "JOB_COMPLETION_INDEX", true, ""},
		{"count missing", map[string]string{"JOB_COMPLETION_INDEX": "1"}, jobs.Shard{}, "JOB_COMPLETION_INDEX", false, "JOB_COMPLETIONS is not"},
		{"index too big", map[string]string{"JOB_COMPLETION_INDEX": "8", "JOB_COMPLETIONS": "8"}, jobs.Shard{}, "JOB_COMPLETION_INDEX", false, "give shard 8/8"},
		{"not a number", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"}, jobs.Shard{}, "SLURM_ARRAY_TASK_ID", false, `SLURM_ARRAY_TASK_ID="x"`},
		{"sparse slurm array", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, jobs.Shard{}, "SLURM_ARRAY_TASK_ID", false, "give shard 8/4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, source, ok, err := jobs.ShardFromEnv(func(k string) string { return tt.env[k] })
			assert.Equal(t, tt.source, source)
			assert.Equal(t, tt.ok, ok)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.True(t, errors.Is(err, sim.ErrInvalidConfig))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, s)
		})
	}
}

// TestChooseShard: --shard wins over the scheduler's variables; without
// it the variables choose, and with neither every job runs; each bad
// value is an error naming --shard or the variable.
func TestChooseShard(t *testing.T) {
	t.Parallel()
	k8s := map[string]string{jobs.EnvK8sIndex: "1", jobs.EnvK8sCount: "3"}
	tests := []struct {
		flag    string
		env     map[string]string
		shard   jobs.Shard
		sharded bool
		source  bool
		err     string
	}{
		{"", nil, jobs.All, false, false, ""},
		{"2/4", k8s, jobs.Shard{Index: 2, Count: 4}, true, false, ""},
		{"", k8s, jobs.Shard{Index: 1, Count: 3}, true, true, ""},
		{"4/4", nil, jobs.Shard{}, false, false, "--shard: "},
		{"", map[string]string{jobs.EnvK8sIndex: "x", jobs.EnvK8sCount: "3"}, jobs.Shard{}, false, false, jobs.EnvK8sIndex},
	}
	for _, tt := range tests {
		s, source, sharded, err := jobs.ChooseShard(tt.flag, func(k string) string { return tt.env[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || (tt.flag == "" && !strings.HasSuffix(err.Error(), " (or give --shard i/n)")) {
				t.Errorf("%q %v: error %v, want one naming %s", tt.flag, tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || s != tt.shard || sharded != tt.sharded || (source != "") != tt.source {
			t.Errorf("%q %v: %v %q %v %v; want %v, source %v, sharded %v", tt.flag, tt.env, s, source, sharded, err, tt.shard, tt.source, tt.sharded)
		}
	}
}
