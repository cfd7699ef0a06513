package queue_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func openLoop(rate float64, server queue.FCFS, n, warmup int, seed uint64) sim.Config {
	return sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   server,
		Seed:     seed,
		Requests: n,
		Warmup:   warmup,
	}
}

// serviceDraws returns the first n service times an FCFS station draws
// under seed: the station draws from the run's "service" stream in arrival
// order, so the oracles below draw the same numbers themselves.
func serviceDraws(d distribution.Dist, seed uint64, n int) []float64 {
	r := event.NewStream(seed, "service")
	out := make([]float64, n)
	for i := range out {
		out[i] = d.Sample(r)
	}
	return out
}

// TestLindleyOracle: FCFS(1) start and completion times equal the Lindley
// recursion b_i = max(a_i, f_{i−1}), f_i = b_i + s_i on the run's own arrival
// and service sequences, request by request.
func TestLindleyOracle(t *testing.T) {
	t.Parallel()
	svc := distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})
	res, err := sim.Run(openLoop(15, queue.FCFS{Servers: 1, Service: svc}, 100_000, 0, 42))
	require.NoError(t, err)
	require.Len(t, res.Requests, 100_000)
	service := serviceDraws(svc, 42, len(res.Requests))
	var f float64
	bad, want := -1, 0.0 // the first request that breaks the recursion, and its start
	for i, r := range res.Requests {
		b := math.Max(r.Arrival, f)
		f = b + service[i]
		if bad < 0 && (r.ID != i || r.Start != b || r.Done != f) {
			bad, want = i, b
		}
	}
	if bad >= 0 {
		r := res.Requests[bad]
		assert.Fail(t, "Lindley recursion broken", "request %d (ID %d): start %v, done %v; want start %v, done %v",
			bad, r.ID, r.Start, r.Done, want, want+service[bad])
	}
}

// TestKieferWolfowitzOracle: FCFS(c) equals the Kiefer–Wolfowitz recursion:
// the workload vector of the c servers' free times, sorted; each arrival
// takes the earliest.
func TestKieferWolfowitzOracle(t *testing.T) {
	t.Parallel()
	for _, c := range []int{2, 3, 8} {
		t.Run(fmt.Sprintf("c=%d", c), func(t *testing.T) {
			t.Parallel()
			svc := distribution.Gamma{Shape: 0.5, Rate: 0.5 / 0.1} // mean 100 ms, CV² 2
			rate := 0.9 * float64(c) / 0.1
			res, err := sim.Run(openLoop(rate, queue.FCFS{Servers: c, Service: svc}, 100_000, 0, uint64(c)))
			require.NoError(t, err)
			free := make([]float64, c)
			service := serviceDraws(svc, uint64(c), len(res.Requests))
			bad, want := -1, 0.0 // the first request that breaks the recursion, and its start
			for i, r := range res.Requests {
				b := math.Max(r.Arrival, free[0])
				free[0] = b + service[i]
				slices.Sort(free)
				if bad < 0 && (r.Start != b || r.Done != b+service[i]) {
					bad, want = i, b
				}
			}
			if bad >= 0 {
				r := res.Requests[bad]
				assert.Fail(t, "Kiefer–Wolfowitz recursion broken", "request %d: start %v, done %v; want start %v, done %v",
					bad, r.Start, r.Done, want, want+service[bad])
			}
		})
	}
}

// meanWait runs R replications and returns the mean over runs of the
// per-run mean queue wait, and its standard error across runs.
func meanWait(t *testing.T, cfg sim.Config, runs int) (mean, se float64) {
	t.Helper()
	res, err := jobs.Replicate(cfg, event.Seeds(cfg.Seed, runs))
	require.NoError(t, err)
	var s, s2 float64
	for _, r := range res {
		w := r.Latency(metrics.QueueTime).Mean()
		s += w
		s2 += w * w
	}
	n := float64(runs)
	mean = s / n
	return mean, math.Sqrt((s2/n - mean*mean) * n / (n - 1) / n)
}

// TestQueueingTheory checks mean waits against closed forms within 4
// standard errors over 16 independent replications (the standard error is
// estimated from them; with 15 degrees of freedom 4 of them is still a
// two-sided false-alarm probability of about 0.1%): M/M/1 Wq = ρ/(μ−λ),
// M/D/1 and M/G/1 by Pollaczek–Khinchine Wq = λE[S²]/(2(1−ρ)), M/M/c by
// Erlang C Wq = C(c, a)/(cμ−λ), a = λ/μ. The values are worked by hand:
//
//	M/M/1 λ=7, μ=10:        0.7/3 = 0.233333
//	M/D/1 λ=7, S=0.1:       7·0.01/(2·0.3) = 0.116667
//	M/G/1 λ=10, S 20 ms w.p. 0.8, 180 ms w.p. 0.2: E[S] = 0.052, ρ = 0.52,
//	  E[S²] = 0.8·0.0004 + 0.2·0.0324 = 0.0068; 10·0.0068/(2·0.48) = 0.070833
//	M/G/1 λ=6, log-normal mean 0.1, CV 1.5: E[S²] = 0.1²·(1+1.5²) = 0.0325,
//	  ρ = 0.6; 6·0.0325/(2·0.4) = 0.24375
//	M/M/4 λ=32, μ=10, a = 3.2: Σ_{k<4} aᵏ/k! = 1+3.2+5.12+5.461333 =
//	  14.781333; a⁴/4!·4/(4−a) = 4.369067·5 = 21.845333; C = 21.845333/
//	  (14.781333+21.845333) = 0.596432; Wq = 0.596432/(40−32) = 0.074554
//	M/M/2 λ=12, μ=10, ρ = 0.6: C = 2ρ²/(1+ρ) = 0.45; Wq = 0.45/(20−12) = 0.05625
func TestQueueingTheory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rate    float64
		servers int
		service distribution.Dist
		want    float64
	}{
		{"M/M/1 rho 0.7", 7, 1, distribution.Exponential{Rate: 10}, 0.233333},
		{"M/D/1 rho 0.7", 7, 1, distribution.Deterministic{Value: 0.1}, 0.116667},
		{"M/G/1 mixture rho 0.52", 10, 1, distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2}), 0.070833},
		{"M/G/1 lognormal rho 0.6", 6, 1, distribution.LogNormalMeanCV(0.1, 1.5), 0.24375},
		{"M/M/4 rho 0.8", 32, 4, distribution.Exponential{Rate: 10}, 0.074554},
		{"M/M/2 rho 0.6", 12, 2, distribution.Exponential{Rate: 10}, 0.05625},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := openLoop(tt.rate, queue.FCFS{Servers: tt.servers, Service: tt.service}, 60_000, 5_000, 7)
			got, se := meanWait(t, cfg, 16)
			assert.InDelta(t, tt.want, got, 4*se, "Wq: theory %.5f s, simulated %.5f ± %.5f s", tt.want, got, se)
		})
	}
}

// TestCapIsClientQueue: FCFS(1) behind a max_concurrency cap of 1 never
// queues at the server; the client holds the requests, and the client
// queue time equals the Lindley wait.
func TestCapIsClientQueue(t *testing.T) {
	t.Parallel()
	cfg := openLoop(8, queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}}, 20_000, 0, 3)
	cfg.Workload.MaxConcurrency = 1
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	service := serviceDraws(cfg.Server.(queue.FCFS).Service, 3, len(res.Requests))
	var f, worst float64
	waited := 0
	for i, r := range res.Requests {
		b := math.Max(r.Arrival, f)
		f = b + service[i]
		waited += b2i(r.Start != r.Sent)
		worst = math.Max(worst, math.Abs(r.ClientQueueTime()-(b-r.Arrival)))
	}
	assert.Zero(t, waited, "requests that waited at the server")
	assert.LessOrEqual(t, worst, 1e-12, "largest gap between the client queue time and the Lindley wait")
	assert.Equal(t, 1, res.MaxConcurrent)
	assert.Zero(t, res.Latency(metrics.QueueTime).Max())
	assert.Greater(t, res.Latency(metrics.ClientQueueTime).Mean(), 0.1)
	assert.InDelta(t, res.E2E().Mean()+res.Latency(metrics.ClientQueueTime).Mean(), res.Latency(metrics.E2EWithClientQueue).Mean(), 1e-9)
}

// TestClosedLoopThroughput: C clients, c ≥ C servers, think time Z: nobody
// queues, so throughput is C/(E[S]+E[Z]) (the interactive response-time
// law), within 4 standard errors.
func TestClosedLoopThroughput(t *testing.T) {
	t.Parallel()
	svc := distribution.Exponential{Rate: 20}  // 50 ms
	think := distribution.Exponential{Rate: 2} // 500 ms
	cfg := sim.Config{
		Workload: workload.Workload{Clients: 4, Think: think, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   queue.FCFS{Servers: 4, Service: svc},
		Requests: 40_000,
		Warmup:   1_000,
		Seed:     9,
	}
	res, err := jobs.Replicate(cfg, event.Seeds(9, 8))
	require.NoError(t, err)
	var s, s2 float64
	for _, r := range res {
		s += r.RequestThroughput
		s2 += r.RequestThroughput * r.RequestThroughput
		assert.Zero(t, r.Latency(metrics.QueueTime).Max())
		assert.LessOrEqual(t, r.MaxConcurrent, 4)
		assert.False(t, r.Stability.Unstable)
	}
	mean := s / 8
	se := math.Sqrt((s2/8 - mean*mean) * 8 / 7 / 8)
	assert.InDelta(t, 4/(0.05+0.5), mean, 4*se)
}

// TestQueueCapRejects: a full line rejects arrivals; rejections are misses
// that stay in the attainment denominator, and nothing is lost.
func TestQueueCapRejects(t *testing.T) {
	t.Parallel()
	cfg := openLoop(20, queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}, QueueCap: 2}, 10_000, 100, 5)
	cfg.SLO = metrics.SLO{E2E: 10}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Greater(t, res.Rejected, 1000)
	assert.Equal(t, res.Measured, res.Completed+res.Rejected)
	assert.Equal(t, res.Measured, res.AttainmentDenominator)
	assert.InDelta(t, float64(res.Completed)/float64(res.Measured), res.Attainment, 1e-12)
	// M/M/1/K with K = 3 in the system: blocking probability
	// ρ^K(1−ρ)/(1−ρ^{K+1}) with ρ = 2: 8·(−1)/(−15) = 8/15 = 0.53333.
	// Blocking events are correlated (a full line tends to stay full), so
	// one run's standard deviation is 1.5 times the binomial
	// √(p(1−p)/n) (0.0076 against 0.0050, measured over 48 runs); 4 of
	// those are allowed.
	const block = 8.0 / 15
	se := 1.5 * math.Sqrt(block*(1-block)/float64(res.Measured))
	assert.InDelta(t, block, float64(res.Rejected)/float64(res.Measured), 4*se, "blocking probability")
}

// TestServiceOf: a service function splits first token and completion; the
// remaining tokens are spread evenly (ITL), and E2E = TTFT + (O−1)·TPOT.
func TestServiceOf(t *testing.T) {
	t.Parallel()
	f := func(in, out int) (float64, float64) {
		return 0.001 * float64(in), 0.001*float64(in) + 0.01*float64(out-1)
	}
	cfg := sim.Config{
		Workload: workload.Workload{Clients: 1, Lengths: workload.Random{InputLen: 100, OutputLen: 20, RangeRatio: 0.5}},
		Server:   queue.FCFS{Servers: 1, ServiceOf: f},
		Requests: 200,
		Seed:     1,
	}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	// One client, one server: nobody waits, so TTFT is first = 1 ms per
	// input token and E2E is total = TTFT + 10 ms per further token.
	var ttftErr, tpotErr, e2eErr float64
	undefined := 0
	for _, r := range res.Requests {
		ttftErr = math.Max(ttftErr, math.Abs(r.TTFT()-0.001*float64(r.Input)))
		e2eErr = math.Max(e2eErr, math.Abs(r.E2E()-(0.001*float64(r.Input)+0.01*float64(r.Output-1))))
		tpot, ok := r.TPOT()
		undefined += b2i(ok != (r.Output > 1))
		tpotErr = math.Max(tpotErr, math.Abs(tpot-0.01)*float64(b2i(ok)))
	}
	assert.LessOrEqual(t, ttftErr, 1e-12, "TTFT = 1 ms per input token")
	assert.LessOrEqual(t, tpotErr, 1e-12, "TPOT = 10 ms")
	assert.LessOrEqual(t, e2eErr, 1e-12, "E2E = TTFT + 10 ms per further token")
	assert.Zero(t, undefined, "TPOT is defined exactly when O > 1")
	assert.InDelta(t, 0.01, res.ITL().Mean(), 1e-12)
	assert.Equal(t, int(res.TotalOutput)-res.Completed, res.ITL().Count())
}

func TestValidate(t *testing.T) {
	t.Parallel()
	exp := distribution.Exponential{Rate: 1}
	f := func(int, int) (float64, float64) { return 0, 0 }
	tests := []struct {
		name  string
		cfg   queue.FCFS
		field string
		value any
		want  string
	}{
		{"no servers", queue.FCFS{Service: exp}, "servers", 0, "servers: 0 must be >= 1"},
		{"negative servers", queue.FCFS{Servers: -3, Service: exp}, "servers", -3, "servers: -3 must be >= 1"},
		{"no service", queue.FCFS{Servers: 1}, "service", nil, "service: fcfs needs exactly one of service (a distribution) and service_of (a function)"},
		{"both services", queue.FCFS{Servers: 1, Service: exp, ServiceOf: f}, "service", nil, "exactly one of service"},
		{"bad service", queue.FCFS{Servers: 1, Service: distribution.Deterministic{Value: math.Inf(1)}}, "service.deterministic.value", math.Inf(1), "service.deterministic.value: +Inf must be a finite number >= 0"},
		{"negative service", queue.FCFS{Servers: 1, Service: distribution.Deterministic{Value: -0.1}}, "service.deterministic.value", -0.1, "service.deterministic.value: -0.1 must be a finite number >= 0"},
		{"queue cap", queue.FCFS{Servers: 1, Service: exp, QueueCap: -1}, "queue_cap", -1, "queue_cap: -1 must be >= 0 (0 means unbounded)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.cfg.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.value, fe.Value)
			assert.True(t, errors.Is(err, queue.ErrInvalid))
			assert.Contains(t, err.Error(), tt.want)
			_, err = sim.Run(openLoop(1, tt.cfg, 10, 0, 1))
			require.Error(t, err)
			assert.True(t, errors.Is(err, sim.ErrInvalidConfig))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
