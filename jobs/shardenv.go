package jobs

import (
	"fmt"
	"strconv"
	"strings"
)

// Environment variables that schedulers set for the tasks of an array job,
// read by ShardFromEnv.
const (
	// EnvK8sIndex is set by Kubernetes on each pod of an Indexed Job: the
	// pod's completion index, 0 to completions−1.
	EnvK8sIndex = "JOB_COMPLETION_INDEX"
	// EnvK8sCount is the Job's completion count. Kubernetes does not set
	// it; the manifest passes it (docs/scale-out.md sets it from the same
	// number as spec.completions).
	EnvK8sCount = "JOB_COMPLETIONS"
	// EnvSlurmIndex, EnvSlurmCount and EnvSlurmMin are set by Slurm on
	// each task of a job array: the task's id, the number of tasks and the
	// smallest id (an array --array=1-8 numbers its tasks 1 to 8).
	EnvSlurmIndex = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
)

// ShardFromEnv returns the shard a scheduler assigned to this process:
// a Kubernetes Indexed Job (JOB_COMPLETION_INDEX of JOB_COMPLETIONS) or a
// Slurm job array (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
// SLURM_ARRAY_TASK_COUNT). getenv is os.Getenv or a test's map. It returns
// the shard, the variable it came from, and ok false when neither
// scheduler's variables are set. A variable that is set but unusable (not
// a number, an index outside the count, a count missing) is an error
// naming the variable and its value: a task must never silently run the
// whole experiment.
func ShardFromEnv(getenv func(string) string) (shard Shard, source string, ok bool, err error) {
	if idx := getenv(EnvK8sIndex); idx != "" {
		s, err := envShard(EnvK8sIndex, idx, EnvK8sCount, getenv(EnvK8sCount), "0")
		return s, EnvK8sIndex, err == nil, err
	}
	if idx := getenv(EnvSlurmIndex); idx != "" {
		s, err := envShard(EnvSlurmIndex, idx, EnvSlurmCount, getenv(EnvSlurmCount), getenv(EnvSlurmMin))
		return s, EnvSlurmIndex, err == nil, err
	}
	return Shard{}, "", false, nil
}

func envShard(idxName, idx, countName, count, min string) (Shard, error) {
	i, err := strconv.Atoi(strings.TrimSpace(idx))
	if err != nil {
		return Shard{}, invalidf("%s=%q is not a task index", idxName, idx)
	}
	if count == "" {
		return Shard{}, invalidf("%s=%s is set but %s is not: the task count is needed to know its shard (docs/scale-out.md)", idxName, idx, countName)
	}
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if err != nil {
		return Shard{}, invalidf("%s=%q is not a task count", countName, count)
	}
	lo := 0
	if min != "" {
		if lo, err = strconv.Atoi(strings.TrimSpace(min)); err != nil {
			return Shard{}, invalidf("%s=%q is not a task id", EnvSlurmMin, min)
		}
	}
	s := Shard{Index: i - lo, Count: n}
	if err := s.Validate(); err != nil {
		return Shard{}, invalidf("%s=%d (first id %d) and %s=%d give shard %d/%d: it must have 0 <= index < count", idxName, i, lo, countName, n, s.Index, s.Count)
	}
	return s, nil
}

// ChooseShard returns the shard a process runs: flag (a --shard i/n) when
// given, else the one a scheduler assigned (ShardFromEnv), with source
// naming its variables; sharded is false when neither chose one. The
// errors name --shard, or the variable and say to give --shard.
func ChooseShard(flag string, getenv func(string) string) (s Shard, source string, sharded bool, err error) {
	if flag != "" {
		s, err := ParseShard(flag)
		if err != nil {
			return s, "", false, fmt.Errorf("--shard: %w", err)
		}
		return s, "", true, nil
	}
	s, source, ok, err := ShardFromEnv(getenv)
	if err != nil {
		return s, "", false, fmt.Errorf("%w (or give --shard i/n)", err)
	}
	if !ok {
		return All, "", false, nil
	}
	return s, source, true, nil
}
