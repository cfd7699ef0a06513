package capacity_test

import (
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/gcfloor"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// engineSearch is capacity.EngineSearch (export_test.go).
var engineSearch = capacity.EngineSearch

// TestSearchParallelIdentical: the search's result — every probe, every
// run's verdict, the counts — and its progress reports are the same at
// any number of workers, where speculative runs of the probes ahead are
// started, cancelled and dropped. The searches cover the coarse doubling
// and halving, the bisection, and the fall-back when the lower end fails
// with the boundary replications (the engine at 300 requests a run: 20
// req/s passes three runs, then fails the fifth of six).
func TestSearchParallelIdentical(t *testing.T) {
	t.Parallel()
	engine := func(requests int, start, precision float64) capacity.Search {
		s := engineSearch(t, requests)
		s.Start, s.Precision = start, precision
		return s
	}
	mm1 := mm1(10, 3000)
	searches := map[string]capacity.Search{
		"engine":            engine(600, 10, 0.02),
		"engine halves":     engine(300, 80, 0.05),
		"engine falls back": engine(300, 10, 0.2),
		"mm1": {Base: mm1, Criteria: capacity.DefaultCriteria(metrics.SLO{E2E: 1}, 0.9),
			Seed: 5, Replications: 3, BoundaryReplications: 7, Start: 1, Precision: 0.01},
	}
	for name, s := range searches {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run := func(workers int) (res, progress string) {
				s.Workers = workers
				var probes []capacity.Point
				s.Progress = func(p capacity.Point) { probes = append(probes, p) }
				r, err := s.Run()
				require.NoError(t, err)
				return mustJSON(t, r), mustJSON(t, probes)
			}
			res1, prog1 := run(1)
			for _, w := range []int{2, 8} {
				res, prog := run(w)
				require.Equal(t, res1, res, "workers %d", w)
				require.Equal(t, prog1, prog, "workers %d: progress", w)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// BenchmarkSearchParallel runs one capacity search on one core
// (GOMAXPROCS 1), then on two (GOMAXPROCS 2), each with the default
// workers, b.N times, and reports the median of the b.N wall-time ratios,
// "speedup": each pair runs back to back, so load from elsewhere, which
// skews single pairs, hardly moves the median. Both must give the same
// result. It runs with the heap floor servesim's command sets
// (internal/gcfloor), unless GOGC or GOMEMLIMIT is set: GOGC=100
// measures Go's default pacing, under which two simulations side by side
// share a heap of a few megabytes and each collects for both.
//
//	go test -run '^$' -bench SearchParallel -benchtime 10x ./capacity
func BenchmarkSearchParallel(b *testing.B) {
	gcfloor.Set()
	s := engineSearch(b, 4000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var total [3]time.Duration
	var ratios []float64
	for b.Loop() {
		var wall [3]time.Duration
		var out [3][]byte
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			start := time.Now()
			res, err := s.Run()
			wall[procs] = time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if out[procs], err = json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
		if string(out[1]) != string(out[2]) {
			b.Fatal("the search's result depends on GOMAXPROCS")
		}
		total[1], total[2] = total[1]+wall[1], total[2]+wall[2]
		ratios = append(ratios, float64(wall[1])/float64(wall[2]))
	}
	slices.Sort(ratios)
	median := (ratios[(len(ratios)-1)/2] + ratios[len(ratios)/2]) / 2
	b.ReportMetric(total[1].Seconds()/float64(b.N), "s/search@1")
	b.ReportMetric(total[2].Seconds()/float64(b.N), "s/search@2")
	b.ReportMetric(median, "speedup")
}

// failingServer fails (or panics) to build the server of one replication,
// at every rate.
type failingServer struct {
	sim.ServerConfig
	seed  uint64
	panic bool
}

func (f failingServer) NewServer(env *sim.Env) (sim.Server, error) {
	if env.Seed() == f.seed {
		if f.panic {
			panic("broken invariant")
		}
		return nil, errors.New("no server today")
	}
	return f.ServerConfig.NewServer(env)
}

// TestSearchParallelErrors: a run that fails ends the search with the
// error the sequential search returns, after the same progress reports,
// at any number of workers, though speculative runs may have met the
// failure first.
func TestSearchParallelErrors(t *testing.T) {
	t.Parallel()
	for _, panics := range []bool{false, true} {
		s := engineSearch(t, 300)
		// Replication 4 runs only at the boundary: the first probe
		// inside the bracket fails.
		s.Base.Server = failingServer{s.Base.Server, event.ReplicationSeed(s.Seed, 4), panics}
		var want, wantProgress string
		for _, workers := range []int{1, 2, 8} {
			s.Workers = workers
			var probes []capacity.Point
			s.Progress = func(p capacity.Point) { probes = append(probes, p) }
			_, err := s.Run()
			require.Error(t, err)
			if workers == 1 {
				want, wantProgress = err.Error(), mustJSON(t, probes)
				assert.Contains(t, want, map[bool]string{false: "run 4: no server today", true: "job 4: internal error: broken invariant"}[panics])
				assert.Len(t, probes, 3, "the coarse probes at 10, 20 and 40 req/s")
				continue
			}
			assert.Equal(t, want, err.Error(), "workers %d", workers)
			assert.Equal(t, wantProgress, mustJSON(t, probes), "workers %d", workers)
		}
	}
}
