package jobs_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// TestEachRejectsNegativeWorkers: 0 workers means GOMAXPROCS; a negative
// count is an error naming it, not a silent default.
func TestEachRejectsNegativeWorkers(t *testing.T) {
	t.Parallel()
	err := jobs.Each(3, jobs.All, -2, func(int, int) error { return nil })
	require.Error(t, err)
	assert.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "workers -2 must be from 0 (GOMAXPROCS) to 4096")
	require.NoError(t, jobs.Each(3, jobs.All, 0, func(int, int) error { return nil }))
	// issue 30: --workers 1e9 asked for 24 GB at start.
	err = jobs.Each(3, jobs.All, 1e9, func(int, int) error { return nil })
	assert.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "workers 1000000000 must be from 0 (GOMAXPROCS) to 4096 (MaxWorkers")
}

// TestEach: every job of the shard runs once, with its slot k and index
// i = Index + k·Count, whatever the workers; the error is the lowest
// failed job's, and a panic in a job is that job's error.
func TestEach(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		n       int
		shard   jobs.Shard
		workers int
		fail    map[int]string // job index → "error" or "panic"
		want    string         // the error, "" for none
	}{
		{"all on one", 7, jobs.All, 1, nil, ""},
		{"all on three", 7, jobs.All, 3, nil, ""},
		{"more workers than jobs", 2, jobs.All, 8, nil, ""},
		{"shard 1/3", 10, jobs.Shard{Index: 1, Count: 3}, 2, nil, ""},
		{"no job", 0, jobs.All, 4, nil, ""},
		{"lowest error wins", 20, jobs.All, 4, map[int]string{9: "error", 3: "error"}, "job 3 failed"},
		{"a panic is an error", 5, jobs.All, 2, map[int]string{2: "panic"}, "job 2: internal error: broken (please report it with the configuration)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := make([]int, tc.shard.Size(tc.n))
			for k := range got {
				got[k] = -1
			}
			err := jobs.Each(tc.n, tc.shard, tc.workers, func(k, i int) error {
				switch tc.fail[i] {
				case "error":
					return fmt.Errorf("job %d failed", i)
				case "panic":
					panic("broken")
				}
				got[k] = i
				return nil
			})
			if tc.want != "" {
				require.EqualError(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			want := []int{}
			for i := tc.shard.Index; i < tc.n; i += tc.shard.Count {
				want = append(want, i)
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestEachStopsAfterAFailure: once a job fails no new job starts, so a
// failure early in a long list does not run the rest.
func TestEachStopsAfterAFailure(t *testing.T) {
	t.Parallel()
	ran := make([]bool, 1000)
	err := jobs.Each(len(ran), jobs.All, 2, func(k, _ int) error {
		ran[k] = true
		if k == 0 {
			return errors.New("first")
		}
		return nil
	})
	require.EqualError(t, err, "first")
	// Job 0 fails at once: only the few jobs the other worker started
	// before the failure was seen ran, not the 1000.
	assert.Less(t, len(slices.DeleteFunc(slices.Clone(ran), func(b bool) bool { return !b })), 10)
}

// TestPool: a pool hands back every job it was given, with its result or,
// for a job that panicked, an error saying so.
func TestPool(t *testing.T) {
	t.Parallel()
	p := jobs.NewPool(3, func(j int) int {
		if j == 4 {
			panic(fmt.Sprintf("job %d", j))
		}
		return j * j
	})
	defer p.Close()
	for j := range 3 {
		p.Start(j)
	}
	got := map[int]int{}
	for next := 3; len(got) < 6; {
		j, r, err := p.Next()
		if j == 4 {
			require.EqualError(t, err, "internal error: job 4 (please report it with the configuration)")
			r = -1
		} else {
			require.NoError(t, err)
		}
		got[j] = r
		if next < 6 {
			p.Start(next)
			next++
		}
	}
	assert.Equal(t, map[int]int{0: 0, 1: 1, 2: 4, 3: 9, 4: -1, 5: 25}, got)
}

// TestRunAllIndependentOfParallelism: RunAll returns the results in input
// order, the same at GOMAXPROCS 1 and 4 and with 1 or 4 workers.
func TestRunAllIndependentOfParallelism(t *testing.T) {
	cfgs := make([]sim.Config, 5)
	for i := range cfgs {
		cfgs[i] = exampleConfig(uint64(i + 1))
	}
	var want []string
	for _, procs := range []int{1, 4} {
		for _, workers := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			res, err := jobs.RunAll(cfgs, workers)
			runtime.GOMAXPROCS(old)
			require.NoError(t, err)
			var got []string
			for _, r := range res {
				got = append(got, fmt.Sprint(r.Seed, r.Completed, r.TTFT().Mean()))
			}
			if want == nil {
				want = got
				continue
			}
			assert.Equal(t, want, got, "GOMAXPROCS %d, %d workers", procs, workers)
		}
	}
}

// BenchmarkEach measures the runner's own cost per job (a job that does
// nothing), which every run of a sweep or search pays once. Measure it on
// an idle machine.
func BenchmarkEach(b *testing.B) {
	const n = 10_000
	for b.Loop() {
		if err := jobs.Each(n, jobs.All, 4, func(int, int) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/job")
}

// TestShardValidateFieldErrors: a bad shard is a *fielderr.Error naming
// the field and the value it broke, marked sim.ErrInvalidConfig, and
// ParseShard returns the same error.
func TestShardValidateFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		shard jobs.Shard
		field string
		value any
		msg   string
	}{
		{jobs.Shard{Index: 0, Count: 0}, "shard.count", 0, "shard.count: 0 must be >= 1 (shard 0/0)"},
		{jobs.Shard{Index: 0, Count: -2}, "shard.count", -2, "shard.count: -2 must be >= 1 (shard 0/-2)"},
		{jobs.Shard{Index: 4, Count: 4}, "shard.index", 4, "shard.index: 4 must be < count 4 (shard 4/4)"},
		{jobs.Shard{Index: -1, Count: 4}, "shard.index", -1, "shard.index: -1 must be >= 0 (shard -1/4)"},
	}
	for _, tt := range tests {
		t.Run(tt.shard.String(), func(t *testing.T) {
			err := tt.shard.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.value, fe.Value)
			assert.EqualError(t, err, tt.msg)
			assert.ErrorIs(t, err, sim.ErrInvalidConfig)
			_, perr := jobs.ParseShard(tt.shard.String())
			assert.Equal(t, err, perr)
		})
	}
	for _, ok := range []jobs.Shard{jobs.All, {Index: 3, Count: 4}} {
		assert.NoError(t, ok.Validate(), ok.String())
	}
}
