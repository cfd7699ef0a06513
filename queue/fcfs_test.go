package queue_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
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

// TestLindleyOracle: FCFS(1) start and completion times equal the Lindley
// recursion b_i = max(a_i, f_{i−1}), f_i = b_i + s_i on the run's own arrival
// and service sequences, request by request.
func TestLindleyOracle(t *testing.T) {
	svc := distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})
	res, err := sim.Run(openLoop(15, queue.FCFS{Servers: 1, Service: svc}, 100_000, 0, 42))
	require.NoError(t, err)
	require.Len(t, res.Requests, 100_000)
	// The station draws service times from the run's "service" stream in
	// arrival order; the oracle draws them itself from the same stream.
	draws := event.NewStream(42, "service")
	var f float64
	for i, r := range res.Requests {
		require.Equal(t, i, r.ID)
		b := math.Max(r.Arrival, f)
		f = b + svc.Sample(draws)
		require.Equal(t, b, r.Start, "start of request %d", i)
		require.Equal(t, f, r.Done, "completion of request %d", i)
	}
}

// TestKieferWolfowitzOracle: FCFS(c) equals the Kiefer–Wolfowitz recursion:
// the workload vector of the c servers' free times, sorted; each arrival
// takes the earliest.
func TestKieferWolfowitzOracle(t *testing.T) {
	for _, c := range []int{2, 3, 8} {
		svc := distribution.Gamma{Shape: 0.5, Rate: 0.5 / 0.1} // mean 100 ms, CV² 2
		rate := 0.9 * float64(c) / 0.1
		res, err := sim.Run(openLoop(rate, queue.FCFS{Servers: c, Service: svc}, 100_000, 0, uint64(c)))
		require.NoError(t, err)
		free := make([]float64, c)
		draws := event.NewStream(uint64(c), "service")
		for i, r := range res.Requests {
			b := math.Max(r.Arrival, free[0])
			service := svc.Sample(draws)
			free[0] = b + service
			slices.Sort(free)
			require.Equal(t, b, r.Start, "c=%d start of request %d", c, i)
			require.InDelta(t, b+service, r.Done, 0, "c=%d completion of request %d", c, i)
		}
	}
}

// meanWait runs R replications and returns the mean over runs of the
// per-run mean queue wait, and its standard error across runs.
func meanWait(t *testing.T, cfg sim.Config, runs int) (mean, se float64) {
	t.Helper()
	res, err := sim.Replicate(cfg, event.Seeds(cfg.Seed, runs))
	require.NoError(t, err)
	var s, s2 float64
	for _, r := range res {
		w := r.Queue().Mean()
		s += w
		s2 += w * w
	}
	n := float64(runs)
	mean = s / n
	return mean, math.Sqrt((s2/n - mean*mean) * n / (n - 1) / n)
}

// erlangC returns the probability an arrival waits in M/M/c with offered
// load a = λ/μ.
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0 // a^k/k!
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	term *= a / float64(c)
	last := term * float64(c) / (float64(c) - a)
	return last / (sum + last)
}

// TestQueueingTheory checks mean waits against closed forms within 4
// standard errors over independent replications: M/M/1 Wq = ρ/(μ−λ),
// M/D/1 and M/G/1 by Pollaczek–Khinchine Wq = λE[S²]/(2(1−ρ)), M/M/c by
// Erlang C Wq = C(c, λ/μ)/(cμ−λ).
func TestQueueingTheory(t *testing.T) {
	pk := func(rate float64, s distribution.Dist) float64 {
		rho := rate * s.Mean()
		return rate * distribution.SecondMoment(s) / (2 * (1 - rho))
	}
	mmc := func(c int, rate, mu float64) float64 {
		return erlangC(c, rate/mu) / (float64(c)*mu - rate)
	}
	tests := []struct {
		name    string
		rate    float64
		servers int
		service distribution.Dist
		want    float64
	}{
		{"M/M/1 rho 0.7", 7, 1, distribution.Exponential{Rate: 10}, 0.7 / (10 - 7)},
		{"M/D/1 rho 0.7", 7, 1, distribution.Deterministic{Value: 0.1}, pk(7, distribution.Deterministic{Value: 0.1})},
		{"M/G/1 mixture rho 0.52", 10, 1, distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2}), pk(10, distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2}))},
		{"M/G/1 lognormal rho 0.6", 6, 1, distribution.LogNormalMeanCV(0.1, 1.5), pk(6, distribution.LogNormalMeanCV(0.1, 1.5))},
		{"M/M/4 rho 0.8", 32, 4, distribution.Exponential{Rate: 10}, mmc(4, 32, 10)},
		{"M/M/2 rho 0.6", 12, 2, distribution.Exponential{Rate: 10}, mmc(2, 12, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
	cfg := openLoop(8, queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}}, 20_000, 0, 3)
	cfg.Workload.MaxConcurrency = 1
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	draws := event.NewStream(3, "service")
	var f float64
	for i, r := range res.Requests {
		b := math.Max(r.Arrival, f)
		f = b + cfg.Server.(queue.FCFS).Service.Sample(draws)
		require.Equal(t, r.Sent, r.Start, "request %d waited at the server", i)
		require.InDelta(t, b-r.Arrival, r.ClientQueueTime(), 1e-12, "request %d", i)
	}
	assert.Equal(t, 1, res.MaxConcurrent)
	assert.Zero(t, res.Queue().Max())
	assert.Greater(t, res.ClientQueue().Mean(), 0.1)
	assert.InDelta(t, res.E2E().Mean()+res.ClientQueue().Mean(), res.E2EWithClientQueue().Mean(), 1e-9)
}

// TestClosedLoopThroughput: C clients, c ≥ C servers, think time Z: nobody
// queues, so throughput is C/(E[S]+E[Z]) (the interactive response-time
// law), within 4 standard errors.
func TestClosedLoopThroughput(t *testing.T) {
	svc := distribution.Exponential{Rate: 20}  // 50 ms
	think := distribution.Exponential{Rate: 2} // 500 ms
	cfg := sim.Config{
		Workload: workload.Workload{Clients: 4, Think: think, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   queue.FCFS{Servers: 4, Service: svc},
		Requests: 40_000,
		Warmup:   1_000,
		Seed:     9,
	}
	res, err := sim.Replicate(cfg, event.Seeds(9, 8))
	require.NoError(t, err)
	var s, s2 float64
	for _, r := range res {
		s += r.RequestThroughput
		s2 += r.RequestThroughput * r.RequestThroughput
		assert.Zero(t, r.Queue().Max())
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
	cfg := openLoop(20, queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}, QueueCap: 2}, 10_000, 100, 5)
	cfg.SLO = metrics.SLO{E2E: 10}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	assert.Greater(t, res.Rejected, 1000)
	assert.Equal(t, res.Measured, res.Completed+res.Rejected)
	assert.Equal(t, res.Measured, res.AttainmentDenominator)
	assert.InDelta(t, float64(res.Completed)/float64(res.Measured), res.Attainment, 1e-12)
	// M/M/1/K with K = 3 in the system: blocking probability
	// ρ^K(1−ρ)/(1−ρ^{K+1}) with ρ = 2.
	rho := 2.0
	block := math.Pow(rho, 3) * (1 - rho) / (1 - math.Pow(rho, 4))
	se := math.Sqrt(block * (1 - block) / float64(res.Measured))
	assert.InDelta(t, block, res.FailureRate(), 6*se, "blocking probability")
}

// TestServiceOf: a service function splits first token and completion; the
// remaining tokens are spread evenly (ITL), and E2E = TTFT + (O−1)·TPOT.
func TestServiceOf(t *testing.T) {
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
	for _, r := range res.Requests {
		assert.InDelta(t, 0.001*float64(r.Input), r.TTFT(), 1e-12)
		tpot, ok := r.TPOT()
		if r.Output > 1 {
			require.True(t, ok)
			assert.InDelta(t, 0.01, tpot, 1e-12)
			assert.InDelta(t, r.E2E(), r.TTFT()+float64(r.Output-1)*tpot, 1e-12)
		}
	}
	assert.InDelta(t, 0.01, res.ITL().Mean(), 1e-12)
	assert.Equal(t, int(res.TotalOutput)-res.Completed, res.ITL().Count())
}

func TestValidate(t *testing.T) {
	exp := distribution.Exponential{Rate: 1}
	f := func(int, int) (float64, float64) { return 0, 0 }
	tests := []struct {
		name string
		cfg  queue.FCFS
		want string
	}{
		{"no servers", queue.FCFS{Service: exp}, "fcfs servers 0 must be >= 1"},
		{"no service", queue.FCFS{Servers: 1}, "exactly one of service"},
		{"both services", queue.FCFS{Servers: 1, Service: exp, ServiceOf: f}, "exactly one of service"},
		{"bad service", queue.FCFS{Servers: 1, Service: distribution.Deterministic{Value: math.NaN()}}, "deterministic value NaN"},
		{"negative service", queue.FCFS{Servers: 1, Service: distribution.Deterministic{Value: -0.1}}, "deterministic value -0.1"},
		{"queue cap", queue.FCFS{Servers: 1, Service: exp, QueueCap: -1}, "queue_cap -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			require.Error(t, err)
			assert.True(t, errors.Is(err, queue.ErrInvalid))
			assert.Contains(t, err.Error(), tt.want)
			_, err = sim.Run(openLoop(1, tt.cfg, 10, 0, 1))
			require.Error(t, err)
			assert.True(t, errors.Is(err, sim.ErrInvalidConfig))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
