package sim_test

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

var mixture = distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})

func fcfs(c int, s distribution.Dist) queue.FCFS { return queue.FCFS{Servers: c, Service: s} }

func open(rate float64) workload.Workload {
	return workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: workload.Random{InputLen: 100, OutputLen: 10, RangeRatio: 0.5}}
}

// scenarios cover the stop rules and loop kinds.
func scenarios() map[string]sim.Config {
	capped := open(30)
	capped.MaxConcurrency = 2
	return map[string]sim.Config{
		"open drained":     {Workload: open(10), Server: fcfs(1, mixture), Requests: 5000, Warmup: 100, Seed: 1},
		"open capped":      {Workload: capped, Server: fcfs(3, mixture), Requests: 5000, Warmup: 100, Seed: 2},
		"open horizon":     {Workload: open(15), Server: fcfs(1, mixture), Horizon: 200, Warmup: 10, Seed: 3, SLO: metrics.SLO{E2E: 0.5}},
		"closed":           {Workload: workload.Workload{Clients: 5, Lengths: workload.Fixed{Input: 3, Output: 2}}, Server: fcfs(2, mixture), Requests: 4000, Warmup: 50, Seed: 4},
		"closed horizon":   {Workload: workload.Workload{Clients: 5, Think: distribution.Exponential{Rate: 5}, Lengths: workload.Fixed{Input: 3, Output: 2}}, Server: fcfs(2, mixture), Horizon: 100, Seed: 5},
		"rejecting":        {Workload: open(30), Server: queue.FCFS{Servers: 1, Service: mixture, QueueCap: 3}, Requests: 3000, Seed: 6, SLO: metrics.SLO{E2E: 0.3}},
		"sessions":         {Workload: sessions(1.5), Server: fcfs(2, mixture), Requests: 3000, Warmup: 50, Seed: 7},
		"sessions horizon": {Workload: sessions(3), Server: queue.FCFS{Servers: 1, Service: mixture, QueueCap: 4}, Horizon: 300, Seed: 8, SLO: metrics.SLO{E2E: 0.4}},
	}
}

// sessions is multi-turn traffic: sessions starting at rate, 1 to 9
// turns each, exponential think times of mean 0.5 s.
func sessions(rate float64) workload.Workload {
	w := open(rate)
	w.Sessions = &workload.Sessions{Turns: distribution.Uniform{Min: 1, Max: 9}, Think: distribution.Exponential{Rate: 2}, SystemPrompt: 20}
	return w
}

// TestConservationAndCausality: every injected request ends completed,
// failed, rejected or still in flight; for each record
// Arrival ≤ Sent ≤ Start ≤ FirstToken ≤ Done; counts agree with the records.
func TestConservationAndCausality(t *testing.T) {
	t.Parallel()
	for name, cfg := range scenarios() {
		t.Run(name, func(t *testing.T) {
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			require.Len(t, res.Requests, res.Injected)
			counts := map[metrics.Status]int{}
			// Plain comparisons per record, not testify: each require call
			// walks the stack (t.Helper), and there are thousands of records.
			for i, r := range res.Requests {
				if r.ID != i {
					t.Fatalf("record %d has ID %d", i, r.ID)
				}
				if !r.Warmup {
					counts[r.Status]++
				}
				if !(r.Arrival <= r.Sent+1e-15) {
					t.Fatalf("request %d: sent at %v, before its arrival at %v", i, r.Sent, r.Arrival)
				}
				if r.Status == metrics.Completed && !(r.Sent <= r.Start && r.Start <= r.FirstToken && r.FirstToken <= r.Done && r.Done <= res.End) {
					t.Fatalf("request %d: want Sent <= Start <= FirstToken <= Done <= End, got %v, %v, %v, %v, %v", i, r.Sent, r.Start, r.FirstToken, r.Done, res.End)
				}
			}
			assert.Equal(t, res.Injected, res.Warmup+res.Measured)
			assert.Equal(t, res.Measured, res.Completed+res.Failed+res.Rejected+res.InFlight)
			assert.Equal(t, counts[metrics.Completed], res.Completed)
			assert.Equal(t, counts[metrics.Rejected], res.Rejected)
			assert.Equal(t, counts[metrics.InFlight]+counts[metrics.Queued], res.InFlight)
			if cfg.Horizon > 0 {
				assert.LessOrEqual(t, res.End, cfg.Horizon)
			} else {
				assert.Equal(t, cfg.Requests, res.Injected)
				assert.Zero(t, res.InFlight)
			}
		})
	}
}

// TestLittleSamplePath: ∫ N(t) dt over the run equals the sum of every
// request's time in the system (Little's law on the sample path, exact up
// to rounding), and MeanInSystem is the time average of N(t): checked
// against N(t) read off the request records (sent, not yet ended) at
// 20,000 evenly spaced times, a midpoint rule whose error is at most the
// jumps it misses (here under 0.2%; the test allows 1%).
func TestLittleSamplePath(t *testing.T) {
	t.Parallel()
	for name, cfg := range scenarios() {
		t.Run(name, func(t *testing.T) {
			res, err := sim.Run(cfg)
			require.NoError(t, err)
			require.Greater(t, res.SojournSum, 0.0)
			assert.InDelta(t, res.SojournSum, res.InSystemArea, 1e-9*res.SojournSum)
			var sends, ends []float64
			for _, r := range res.Requests {
				if r.Status == metrics.Queued {
					continue // never sent
				}
				sends = append(sends, r.Sent)
				if r.Status != metrics.InFlight {
					ends = append(ends, r.Done)
				}
			}
			slices.Sort(sends)
			slices.Sort(ends)
			const k = 20000
			var sum float64
			for i := range k {
				at := (float64(i) + 0.5) * res.End / k
				sent, _ := slices.BinarySearch(sends, math.Nextafter(at, math.Inf(1)))
				ended, _ := slices.BinarySearch(ends, math.Nextafter(at, math.Inf(1)))
				sum += float64(sent - ended)
			}
			assert.InEpsilon(t, sum/k, res.MeanInSystem, 0.01, "time average of N(t) from the records")
		})
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	for name, cfg := range scenarios() {
		t.Run(name, func(t *testing.T) {
			a, err := sim.Run(cfg)
			require.NoError(t, err)
			b, err := sim.Run(cfg)
			require.NoError(t, err)
			ja, err := json.Marshal(a)
			require.NoError(t, err)
			jb, err := json.Marshal(b)
			require.NoError(t, err)
			assert.Equal(t, string(ja), string(jb))
			assert.Equal(t, a.Requests, b.Requests)
		})
	}
}

// TestReplicateIndependentOfParallelism: the same replications under
// GOMAXPROCS 1 and 2 give byte-identical JSON.
func TestReplicateIndependentOfParallelism(t *testing.T) {
	cfg := scenarios()["open drained"]
	run := func(procs int) []string {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		res, err := jobs.Replicate(cfg, event.Seeds(11, 6))
		require.NoError(t, err)
		out := make([]string, len(res))
		for i, r := range res {
			b, err := json.Marshal(r)
			require.NoError(t, err)
			out[i] = string(b)
			assert.Equal(t, i, r.Replication)
		}
		return out
	}
	one, two := run(1), run(2)
	assert.Equal(t, one, two)
	assert.NotEqual(t, one[0], one[1], "replications must differ")
}

// TestPairedSeeds: two rates run with one seed see the same lengths and
// proportional arrival times (common random numbers).
func TestPairedSeeds(t *testing.T) {
	t.Parallel()
	a, err := sim.Run(sim.Config{Workload: open(5), Server: fcfs(1, mixture), Requests: 500, Seed: 3})
	require.NoError(t, err)
	b, err := sim.Run(sim.Config{Workload: open(10), Server: fcfs(1, mixture), Requests: 500, Seed: 3})
	require.NoError(t, err)
	for i := range a.Requests {
		require.Equal(t, a.Requests[i].Input, b.Requests[i].Input)
		// One server, no preemption: Done − Start is the drawn service time.
		require.InDelta(t, a.Requests[i].Done-a.Requests[i].Start, b.Requests[i].Done-b.Requests[i].Start, 1e-12)
		require.InDelta(t, a.Requests[i].Arrival, 2*b.Requests[i].Arrival, 1e-9)
	}
}

func TestWarmupExcluded(t *testing.T) {
	t.Parallel()
	cfg := sim.Config{Workload: open(5), Server: fcfs(1, distribution.Deterministic{Value: 0.01}), Requests: 1000, Warmup: 300, Seed: 1}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Equal(t, 700, res.Measured)
	assert.Equal(t, 700, res.Completed)
	assert.Equal(t, 700, res.E2E().Count())
	var in int64
	for _, r := range res.Requests[300:] {
		in += int64(r.Input)
	}
	assert.Equal(t, in, res.TotalInput)
	first, last := res.Requests[300], res.Requests[999]
	assert.InDelta(t, last.Done-first.Sent, res.Duration, 1e-12)
	assert.InDelta(t, 699/(last.Arrival-first.Arrival), res.SendRate, 1e-9)
}

// TestSummaryModeMatchesFull: summary mode keeps the same counts and
// moments, percentiles within the sketch accuracy, and no records.
func TestSummaryModeMatchesFull(t *testing.T) {
	t.Parallel()
	cfg := scenarios()["open drained"]
	full, err := sim.Run(cfg)
	require.NoError(t, err)
	cfg.SummaryOnly = true
	sum, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Nil(t, sum.Requests)
	assert.Equal(t, full.Completed, sum.Completed)
	assert.Equal(t, full.Good, sum.Good)
	assert.Equal(t, full.Duration, sum.Duration)
	for _, p := range []struct {
		name string
		f, s *metrics.Sample
	}{{"ttft", full.TTFT(), sum.TTFT()}, {"e2e", full.E2E(), sum.E2E()}, {"queue", full.Latency(metrics.QueueTime), sum.Latency(metrics.QueueTime)}} {
		assert.InDelta(t, p.f.Mean(), p.s.Mean(), 1e-12, p.name)
		for _, q := range []float64{50, 90, 99} {
			want := p.f.Percentile(q)
			assert.InDelta(t, want, p.s.Percentile(q), 0.02*want+1e-6, "%s p%v", p.name, q)
		}
	}
}

// TestSLOAccounting: attainment counts rejected requests as misses and
// keeps them in the denominator; a one-token response passes the TPOT
// bound; in-flight requests that already missed count as misses.
func TestSLOAccounting(t *testing.T) {
	t.Parallel()
	res, err := sim.Run(scenarios()["rejecting"])
	require.NoError(t, err)
	good := 0
	for _, r := range res.Requests {
		if r.Status == metrics.Completed && r.E2E() <= 0.3 {
			good++
		}
	}
	assert.Equal(t, good, res.Good)
	assert.Equal(t, res.Measured, res.AttainmentDenominator)
	assert.InDelta(t, float64(good)/float64(res.Measured), res.Attainment, 1e-12)
	assert.InDelta(t, float64(good)/res.Duration, res.RequestGoodput, 1e-9)

	one := metrics.SLO{TPOT: 1e-9}
	assert.True(t, one.Passes(&metrics.Request{Status: metrics.Completed, Output: 1, Sent: 0, FirstToken: 1, Done: 1}))
	assert.False(t, one.Passes(&metrics.Request{Status: metrics.Completed, Output: 2, Sent: 0, FirstToken: 1, Done: 2}))
	assert.False(t, metrics.SLO{}.Passes(&metrics.Request{Status: metrics.Failed}))

	// An overloaded horizon run leaves a backlog; those already older than
	// the E2E bound are certain misses.
	over := sim.Config{Workload: open(30), Server: fcfs(1, mixture), Horizon: 60, Seed: 1, SLO: metrics.SLO{E2E: 0.5}}
	res, err = sim.Run(over)
	require.NoError(t, err)
	require.Greater(t, res.InFlight, 100)
	assert.Greater(t, res.AttainmentDenominator, res.Completed)
	assert.LessOrEqual(t, res.AttainmentDenominator, res.Measured)
}

// TestInstability: an open loop at ρ ≥ 1 is reported unstable, in bounded
// time and memory; a stable one is not.
func TestInstability(t *testing.T) {
	t.Parallel()
	stable := sim.Config{Workload: open(14), Server: fcfs(1, mixture), Requests: 50_000, Warmup: 5_000, Seed: 1}
	res, err := sim.Run(stable)
	require.NoError(t, err)
	assert.False(t, res.Stability.Unstable, "rho 0.73: %+v", res.Stability)

	for _, rho := range []float64{1.05, 1.3, 3} {
		over := stable
		over.Workload = open(rho / mixture.Mean())
		res, err := sim.Run(over)
		require.NoError(t, err)
		assert.True(t, res.Stability.Unstable, "rho %v: %+v", rho, res.Stability)
		assert.Equal(t, "waiting queue growing", res.Stability.Reason)
		assert.Greater(t, res.Stability.GrowthPerArrival, 0.0)
	}

	// Horizon-only at rho 5 with a cap: stops early, bounded.
	capped := sim.Config{Workload: open(100), Server: fcfs(1, mixture), Horizon: 1e6, MaxInSystem: 2000, Seed: 1, SummaryOnly: true}
	res, err = sim.Run(capped)
	require.NoError(t, err)
	assert.True(t, res.Stability.Unstable)
	assert.True(t, res.Stability.StoppedEarly)
	assert.Contains(t, res.Stability.Reason, "max_in_system 2000")
	assert.Less(t, res.End, 100.0)
	assert.LessOrEqual(t, res.Injected, 2000+res.Completed+1)

	// The default cap bounds a horizon-only overload too.
	capped.MaxInSystem = 0
	capped.Horizon = 1e5
	res, err = sim.Run(capped)
	require.NoError(t, err)
	assert.True(t, res.Stability.StoppedEarly)
	assert.LessOrEqual(t, res.InFlight, sim.DefaultMaxInSystem)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	good := sim.Config{Workload: open(5), Server: fcfs(1, mixture), Requests: 100, Seed: 1}
	nan := math.NaN()
	tests := []struct {
		name   string
		mutate func(*sim.Config)
		want   string
	}{
		{"rate zero", func(c *sim.Config) { c.Workload.Arrivals = workload.Poisson{Rate: 0} }, "poisson.rate: 0 must be a finite number > 0"},
		{"rate NaN", func(c *sim.Config) { c.Workload.Arrivals = workload.Poisson{Rate: nan} }, "poisson.rate: NaN must be a finite number > 0"},
		{"rate negative", func(c *sim.Config) { c.Workload.Arrivals = workload.Gamma{Rate: -2, Burstiness: 1} }, "gamma.rate: -2 must be a finite number > 0"},
		{"service negative", func(c *sim.Config) { c.Server = fcfs(1, distribution.Deterministic{Value: -1}) }, "service.deterministic.value: -1 must be a finite number >= 0"},
		{"service NaN", func(c *sim.Config) { c.Server = fcfs(1, distribution.Exponential{Rate: nan}) }, "service.exponential.rate: NaN must be"},
		{"probabilities", func(c *sim.Config) { c.Server = fcfs(1, distribution.Discrete([]float64{1, 2}, []float64{0.7, 0.2})) }, "service.mixture.weights: sum to 0.8999"},
		{"clients zero", func(c *sim.Config) { c.Workload.Arrivals = nil }, "neither arrivals"},
		{"clients negative", func(c *sim.Config) { c.Workload.Arrivals = nil; c.Workload.Clients = -1 }, "clients: -1 must be > 0"},
		{"requests zero", func(c *sim.Config) { c.Requests = 0 }, "requests: 0 and horizon 0 leave the run unbounded"},
		{"requests negative", func(c *sim.Config) { c.Requests = -5 }, "requests: -5 must be >= 0"},
		{"warmup too big", func(c *sim.Config) { c.Warmup = 100 }, "warmup: 100 must be < requests 100"},
		{"warmup negative", func(c *sim.Config) { c.Warmup = -1 }, "warmup: -1 must be >= 0"},
		{"horizon NaN", func(c *sim.Config) { c.Horizon = nan }, "horizon: NaN must be a finite number of seconds >= 0"},
		{"slo negative", func(c *sim.Config) { c.SLO.TTFT = -1 }, "slo.ttft: -1 must be a finite number of seconds >= 0"},
		{"percentile", func(c *sim.Config) { c.Percentiles = []float64{101} }, "percentiles[0]: 101 must be in [0, 100]"},
		{"no server", func(c *sim.Config) { c.Server = nil }, "server: is not set"},
		{"no lengths", func(c *sim.Config) { c.Workload.Lengths = nil }, "lengths: are not set"},
		{"servers zero", func(c *sim.Config) { c.Server = fcfs(0, mixture) }, "servers: 0 must be >= 1"},
		{"max in system", func(c *sim.Config) { c.MaxInSystem = -1 }, "max_in_system: -1 must be >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mutate(&cfg)
			res, err := sim.Run(cfg)
			require.Error(t, err)
			assert.Nil(t, res)
			assert.True(t, errors.Is(err, sim.ErrInvalidConfig), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
			// One sentence: no layer repeats "invalid ...:" prefixes.
			assert.LessOrEqual(t, strings.Count(err.Error(), "invalid"), 1, "%v", err)
		})
	}
	_, err := jobs.Replicate(good, nil)
	assert.ErrorContains(t, err, "no seeds")
}

// TestConfigValidateFieldErrors: a bad field of Config itself is a
// *fielderr.Error naming the field and its value, marked ErrInvalidConfig;
// a bad SLO bound sits under slo.
func TestConfigValidateFieldErrors(t *testing.T) {
	t.Parallel()
	good := sim.Config{Workload: open(5), Server: fcfs(1, mixture), Requests: 100, Seed: 1}
	tests := []struct {
		name   string
		mutate func(*sim.Config)
		field  string
		value  any
	}{
		{"no server", func(c *sim.Config) { c.Server = nil }, "server", nil},
		{"negative requests", func(c *sim.Config) { c.Requests = -5 }, "requests", -5},
		{"infinite horizon", func(c *sim.Config) { c.Horizon = math.Inf(1) }, "horizon", math.Inf(1)},
		{"unbounded", func(c *sim.Config) { c.Requests = 0 }, "requests", 0},
		{"negative warmup", func(c *sim.Config) { c.Warmup = -1 }, "warmup", -1},
		{"warmup past requests", func(c *sim.Config) { c.Warmup = 100 }, "warmup", 100},
		{"max in system", func(c *sim.Config) { c.MaxInSystem = -2 }, "max_in_system", -2},
		{"stop after misses", func(c *sim.Config) { c.StopAfterMisses = -3 }, "stop_after_misses", -3},
		{"inf rate, no count", func(c *sim.Config) {
			c.Requests, c.Horizon, c.Workload.Arrivals = 0, 10, workload.Poisson{Rate: math.Inf(1)}
		}, "requests", 0},
		{"percentile", func(c *sim.Config) { c.Percentiles = []float64{50, -1} }, "percentiles[1]", -1.0},
		{"slo", func(c *sim.Config) { c.SLO.TPOT = -0.5 }, "slo.tpot", -0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mutate(&cfg)
			err := cfg.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field, "%v", err)
			assert.Equal(t, tt.value, fe.Value, "%v", err)
			assert.ErrorIs(t, err, sim.ErrInvalidConfig)
		})
	}
	require.NoError(t, good.Validate())
}

// TestJSONFields: the result JSON carries vLLM's field names and types.
func TestJSONFields(t *testing.T) {
	t.Parallel()
	cfg := scenarios()["open drained"]
	cfg.Percentiles = []float64{50, 99, 99.9}
	cfg.SLO = metrics.SLO{TTFT: 0.2, E2E: 0.5}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
		"request_throughput", "request_goodput", "output_throughput", "total_token_throughput", "max_concurrent_requests",
		"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms", "p99.9_ttft_ms", "p50_tpot_ms",
		"mean_itl_ms", "p99_e2el_ms", "mean_client_queue_time_ms", "p99_e2el_including_client_queue_ms",
		"request_rate", "burstiness", "max_concurrency", "seed", "slo_attainment", "goodput_per_gpu", "stability"} {
		assert.Contains(t, m, k)
	}
	assert.Equal(t, 10.0, m["request_rate"])
	assert.Equal(t, 1.0, m["burstiness"])
	assert.Nil(t, m["max_concurrency"])
	assert.InDelta(t, res.E2E().Percentile(99)*1000, m["p99_e2el_ms"], 1e-9)
	assert.False(t, strings.Contains(string(b), "NaN"))

	closed, err := sim.Run(scenarios()["closed"])
	require.NoError(t, err)
	b, err = json.Marshal(closed)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "inf", m["request_rate"])
	assert.Equal(t, 5.0, m["max_concurrency"])
}

// TestNormalizedArrivals: vLLM's normalized mode puts the last arrival at
// exactly N/λ.
func TestNormalizedArrivals(t *testing.T) {
	t.Parallel()
	cfg := sim.Config{
		Workload: workload.Workload{Arrivals: workload.Gamma{Rate: 4, Burstiness: 0.5, Normalize: true}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   fcfs(1, distribution.Deterministic{Value: 0.01}), Requests: 1000, Seed: 2,
	}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.InDelta(t, 250, res.Requests[999].Arrival, 1e-9)
}

// TestStopAfterMisses: a run ends once the stated number of measured
// requests have missed, and says so.
func TestStopAfterMisses(t *testing.T) {
	t.Parallel()
	cfg := sim.Config{Workload: open(18), Server: fcfs(1, mixture), Requests: 50_000, Warmup: 100, Seed: 1, SLO: metrics.SLO{E2E: 0.25}, StopAfterMisses: 500}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Equal(t, sim.StopSLOMisses, res.StoppedBy)
	// Ended misses plus in-flight requests already past the bound: exactly
	// the limit when the run stopped.
	ended := res.Completed + res.Failed + res.Rejected - res.Good
	censored := res.AttainmentDenominator - (res.Completed + res.Failed + res.Rejected)
	assert.Less(t, ended, 500)
	assert.Equal(t, 500, ended+censored)
	assert.Less(t, res.Injected, 5_000)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"stopped_by":"slo_misses"`)
	_, err = sim.Run(sim.Config{Workload: open(1), Server: fcfs(1, mixture), Requests: 10, StopAfterMisses: -1})
	assert.ErrorContains(t, err, "stop_after_misses: -1 must be >= 0")
}

// rejectAll is a server that refuses every request at once.
type rejectAll struct{}

func (rejectAll) Validate() error { return nil }
func (rejectAll) NewServer(env *sim.Env) (sim.Server, error) {
	return rejector{env}, nil
}

type rejector struct{ env *sim.Env }

func (r rejector) Arrive(q *metrics.Request) { r.env.Reject(q) }

// TestNoProgressGuard: an unbounded closed loop whose server rejects
// everything at once would spin at t = 0 forever; it ends with an error.
func TestNoProgressGuard(t *testing.T) {
	t.Parallel()
	cfg := sim.Config{Workload: workload.Workload{Clients: 2, Lengths: workload.Fixed{Input: 1, Output: 1}}, Server: rejectAll{}, Horizon: 10, Seed: 1, SummaryOnly: true}
	_, err := sim.Run(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no progress")
	// Bounded by a request count, the same loop simply ends.
	cfg.Horizon, cfg.Requests = 0, 1000
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Equal(t, 1000, res.Rejected)
	// Rate inf needs a request count.
	_, err = sim.Run(sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: math.Inf(1)}, Lengths: workload.Fixed{Input: 1, Output: 1}}, Server: rejectAll{}, Horizon: 10})
	assert.ErrorContains(t, err, "request rate inf")
}

// TestIncludeClientQueue: with the option, time held in the client counts
// against TTFT and E2E bounds.
func TestIncludeClientQueue(t *testing.T) {
	t.Parallel()
	w := open(9)
	w.MaxConcurrency = 1
	cfg := sim.Config{Workload: w, Server: fcfs(1, distribution.Exponential{Rate: 10}), Requests: 5000, Seed: 2, SLO: metrics.SLO{E2E: 0.3}}
	plain, err := sim.Run(cfg)
	require.NoError(t, err)
	cfg.SLO.IncludeClientQueue = true
	user, err := sim.Run(cfg)
	require.NoError(t, err)
	good := 0
	for _, r := range user.Requests {
		if r.E2E()+r.ClientQueueTime() <= 0.3 {
			good++
		}
	}
	assert.Equal(t, good, user.Good)
	assert.Less(t, user.Attainment, plain.Attainment-0.2)
}

// TestMemoryFollowsArrivals: a run that asks for two billion requests but
// stops at a 60 s horizon stores only the ~300 that arrive; reserving the
// requested count up front would need ~180 GB and crash. Not parallel:
// it reads the process's allocation counter.
func TestMemoryFollowsArrivals(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := sim.Run(sim.Config{Workload: open(5), Server: fcfs(1, mixture), Requests: 2_000_000_000, Horizon: 60, Seed: 1})
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	// 5 req/s over 60 s: 300 arrivals, sd √300 ≈ 17; 6 sd either side.
	assert.InDelta(t, 300, res.Injected, 104)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated bytes")
}

// TestBurstIsNotJudgedUnstable: rate inf sends a finite burst at t=0; with
// or without a concurrency cap there is no sustained rate, so the verdict
// says it does not apply instead of calling the run unstable.
func TestBurstIsNotJudgedUnstable(t *testing.T) {
	t.Parallel()
	for _, maxConc := range []int{0, 32} {
		w := workload.Workload{Arrivals: workload.Poisson{Rate: math.Inf(1)}, MaxConcurrency: maxConc, Lengths: workload.Fixed{Input: 10, Output: 10}}
		res, err := sim.Run(sim.Config{Workload: w, Server: fcfs(1, mixture), Requests: 100, Seed: 1})
		require.NoError(t, err)
		assert.False(t, res.Stability.Unstable, "max_concurrency %d", maxConc)
		assert.Equal(t, metrics.JudgedBurst, res.Stability.Judged)
		assert.Equal(t, 100, res.Completed)
	}
	res, err := sim.Run(sim.Config{Workload: open(5), Server: fcfs(1, mixture), Requests: 2000, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, metrics.JudgedOpenLoop, res.Stability.Judged)
}

// TestOverloadStopsSmall: Poisson at ρ = 2 into FCFS(1) bounded only by
// a 1e9 s horizon (library defaults otherwise) is stopped as unstable at
// DefaultMaxInSystem, after ~2·10⁵ arrivals, with a live heap under
// 100 MB in full-record mode and under 40 MB in summary mode. Not
// parallel: it reads process-wide heap counters.
func TestOverloadStopsSmall(t *testing.T) {
	for _, tc := range []struct {
		summary bool
		limit   uint64
	}{{false, 100 << 20}, {true, 40 << 20}} {
		var res *sim.Result
		var err error
		peak := memwatch.Peak(int64(tc.limit), func() {
			res, err = sim.Run(sim.Config{Workload: open(20), Server: fcfs(1, distribution.Exponential{Rate: 10}), Horizon: 1e9, Seed: 1, SummaryOnly: tc.summary})
		})
		require.NoError(t, err)
		assert.Equal(t, sim.StopMaxInSystem, res.StoppedBy)
		assert.True(t, res.Stability.Unstable)
		// Backlog grows at λ − μ = 10/s of the 20/s arrivals: half of
		// them stay, so the cap is reached after about 2·10⁵ arrivals.
		assert.InDelta(t, 2*sim.DefaultMaxInSystem, res.Injected, 5000)
		assert.Less(t, peak, tc.limit, "summary %v: peak heap %d MB", tc.summary, peak>>20)
		t.Logf("summary %v: peak heap %.1f MB", tc.summary, float64(peak)/(1<<20))
	}
}

// TestAddPercentile: a missing percentile joins the list in order, a
// present one changes nothing, and the caller's list is never written.
func TestAddPercentile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		have []float64
		p    float64
		want []float64
	}{
		{nil, 99, []float64{99}},
		{[]float64{50, 90}, 99, []float64{50, 90, 99}},
		{[]float64{50, 99.9}, 99, []float64{50, 99, 99.9}},
		{[]float64{50, 99}, 99, []float64{50, 99}},
	}
	for _, tt := range tests {
		orig := slices.Clone(tt.have)
		c := sim.Config{Percentiles: tt.have}
		c.AddPercentile(tt.p)
		if !slices.Equal(c.Percentiles, tt.want) || !slices.Equal(tt.have, orig) {
			t.Errorf("%v + %v: %v (input now %v), want %v", orig, tt.p, c.Percentiles, tt.have, tt.want)
		}
	}
}
