package capacity

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/scenario"
)

// engineSearch is a capacity search of llama-3.1-8b on one H100 (vLLM's
// random dataset, 1024 in and 128 out ±20%, TTFT ≤ 500 ms and TPOT ≤ 50
// ms for 99% of requests; λ* ≈ 30 req/s): the batching engine at a
// realistic size, where every probe's runs dominate the search's own
// bookkeeping. requests is the number of requests per run.
func engineSearch(t testing.TB, requests int) Search {
	t.Helper()
	sc, err := scenario.Parse([]byte(`
name: parallel-search
seed: 7
workload:
  arrival: {process: poisson, rate: 10}
  lengths: {kind: random, input: 1024, output: 128, range_ratio: 0.2}
server: {model: llama-3.1-8b, gpu: h100-sxm}
slo: {ttft_ms: 500, tpot_ms: 50, target: 0.99}
`), "parallel-search.yaml")
	require.NoError(t, err)
	sc.Requests, sc.Warmup = requests, requests/10
	base, err := sc.Config()
	require.NoError(t, err)
	return Search{
		Base:     base,
		Criteria: DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target),
		Seed:     sc.Seed, Replications: 3, BoundaryReplications: 6,
		Start: 10, Precision: 0.02,
	}
}

// virtualPool runs jobs on a virtual clock: a run takes as long as the
// requests it simulates (Verdict.Requests), a cancelled run ends when the
// search cancels it, and the pool keeps account of the busy time. It
// shows how well the search keeps its workers busy, whatever else the
// machine runs. memo holds each job's outcome (a run is a pure function
// of its key), shared between pools on the same search so that each run
// is simulated once.
type virtualPool struct {
	pl      *plan
	now     float64
	running []virtualJob
	memo    map[jobKey]outcome
	busy    float64 // worker time spent on runs, the cancelled ones too
	runs    int
}

type virtualJob struct {
	job
	out        outcome
	start, end float64
}

func newVirtualPool(pl *plan, memo map[jobKey]outcome) *virtualPool {
	return &virtualPool{pl: pl, memo: memo}
}

func (v *virtualPool) start(j job) {
	out, ok := v.memo[j.key]
	if !ok {
		out = v.pl.runJob(job{key: j.key})
		v.memo[j.key] = out
	}
	cost := float64(max(out.v.Requests, 1))
	v.running = append(v.running, virtualJob{j, out, v.now, v.now + cost})
	v.runs++
}

func (v *virtualPool) next() finished {
	for i := range v.running {
		if r := &v.running[i]; r.stop != nil && r.stop.Load() {
			r.end = min(r.end, v.now)
		}
	}
	i := 0
	for k, r := range v.running {
		if r.end < v.running[i].end {
			i = k
		}
	}
	r := v.running[i]
	v.running = slices.Delete(v.running, i, i+1)
	v.now = r.end
	v.busy += r.end - r.start
	return finished{r.job, r.out}
}

// TestSearchKeepsWorkersBusy: on the virtual clock, where nothing else
// competes for the cores, a search with 2 workers takes at most 1/1.9 of
// the time it takes with 1 (the time of its runs), and with 4 at most
// 1/3.4, with the same result. Running each probe's runs side by side and
// waiting for the slowest before the next probe, as the search did before
// it speculated, takes 1/1.5 to 1/1.6 with 2 workers (logged).
func TestSearchKeepsWorkersBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		requests         int
		start, precision float64
	}{
		{"bisect", 4000, 10, 0.02},
		{"bisect small", 600, 10, 0.02},
		{"halve", 600, 80, 0.05},
		{"fall back", 300, 10, 0.2},
	} {
		s := engineSearch(t, tc.requests)
		s.Start, s.Precision = tc.start, tc.precision
		require.NoError(t, s.Validate())
		var batches [][]float64 // each probe's new runs, as the search made them
		seen := map[float64]int{}
		s.Progress = func(p Point) {
			var costs []float64
			for _, v := range p.Runs[seen[p.Rate]:] {
				costs = append(costs, float64(v.Requests))
			}
			batches, seen[p.Rate] = append(batches, costs), len(p.Runs)
		}
		var want *Result
		serial := 0.0
		memo := map[jobKey]outcome{} // the same runs for every worker count
		for _, w := range []int{1, 2, 4} {
			pl := s.plan()
			s.Progress = nil // only the first search's probes
			v := newVirtualPool(pl, memo)
			res, err := pl.drive(v, w)
			require.NoError(t, err)
			if w == 1 {
				want, serial = res, v.now
				continue
			}
			require.Equal(t, want, res)
			speedup := serial / v.now
			t.Logf("%s, %d workers: speed-up %.3f (probe by probe: %.3f); %d runs started for %d used",
				tc.name, w, speedup, serial/probeByProbe(batches, w), v.runs, res.Runs)
			require.GreaterOrEqual(t, speedup, map[int]float64{2: 1.9, 4: 3.4}[w], "%s, %d workers", tc.name, w)
		}
	}
}

// probeByProbe is the time the probes' runs take when each probe's run
// side by side on w workers, taken in replication order, and the next
// probe waits for the slowest.
func probeByProbe(batches [][]float64, w int) float64 {
	total := 0.0
	for _, costs := range batches {
		free := make([]float64, w)
		for _, c := range costs {
			i := slices.Index(free, slices.Min(free))
			free[i] += c
		}
		total += slices.Max(free)
	}
	return total
}
