package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestShardsFromSchedulerEnv runs a sweep as four separate processes, each
// given its shard only through the variables a Kubernetes Indexed Job or a
// Slurm array sets (no --shard flag), and checks that `merge` of their
// outputs equals the single-machine run byte for byte, as a table and as
// JSON. It also runs a capacity grid the same way.
func TestShardsFromSchedulerEnv(t *testing.T) {
	t.Parallel()
	const n = 4
	schedulers := map[string]func(i int) []string{
		"kubernetes": func(i int) []string {
			return []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i), "JOB_COMPLETIONS=" + strconv.Itoa(n)}
		},
		// A Slurm array --array=1-4: ids start at 1.
		"slurm": func(i int) []string {
			return []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i+1), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(n)}
		},
	}
	whole := mustRun(t, "run", "testdata/small.yaml")
	wholeJSON := mustRun(t, "run", "testdata/small.yaml", "--format", "json")
	for name, vars := range schedulers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := make([]string, n)
			var wg sync.WaitGroup
			results := make([]result, n)
			for i := range n {
				files[i] = filepath.Join(dir, "shard-"+strconv.Itoa(i)+".json")
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = servesimIn(t, "", vars(i), "run", "testdata/small.yaml", "--quiet")
				}()
			}
			wg.Wait()
			for i, r := range results {
				if r.code != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, r.code, r.stderr)
				}
				want := "shard " + strconv.Itoa(i) + "/" + strconv.Itoa(n) + " from "
				if !strings.Contains(r.stderr, want) {
					t.Errorf("shard %d: stderr %q does not say %q", i, r.stderr, want)
				}
				if err := os.WriteFile(files[i], []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if merged := mustRun(t, append([]string{"merge"}, files...)...); merged.stdout != whole.stdout {
				t.Errorf("merged table differs from the single run:\n%s\nwant:\n%s", merged.stdout, whole.stdout)
			}
			if merged := mustRun(t, append([]string{"merge", "--format", "json"}, files...)...); merged.stdout != wholeJSON.stdout {
				t.Error("merged JSON differs from the single run's JSON")
			}
		})
	}

	// A capacity grid sharded by Slurm variables merges into the grid's table.
	grid := []string{"capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "300", "--replications", "2", "--grid", "10,30,40", "--quiet"}
	wholeGrid := mustRun(t, grid...)
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		r := servesimIn(t, "", []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i), "SLURM_ARRAY_TASK_COUNT=3"}, grid...)
		if r.code != 0 {
			t.Fatalf("grid shard %d: exit %d: %s", i, r.code, r.stderr)
		}
		f := filepath.Join(dir, "g"+strconv.Itoa(i)+".json")
		if err := os.WriteFile(f, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if merged := mustRun(t, append([]string{"capacity", "--merge"}, files...)...); merged.stdout != wholeGrid.stdout {
		t.Errorf("merged grid differs from the single run:\n%s\nwant:\n%s", merged.stdout, wholeGrid.stdout)
	}

	// A scheduler variable that is set but unusable is an error, not a
	// silent whole run.
	if r := servesimIn(t, "", []string{"JOB_COMPLETION_INDEX=2"}, "run", "testdata/small.yaml"); r.code != 2 || !strings.Contains(r.stderr, "JOB_COMPLETIONS is not") {
		t.Errorf("index without count: exit %d, stderr %q", r.code, r.stderr)
	}
}
