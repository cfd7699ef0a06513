package plan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// mm1 is a replica that is an M/M/1 queue of service rate mu: under
// Poisson arrivals at λ its sojourn time is Exp(mu−λ), so the share of
// requests done within t seconds is 1 − e^{−(mu−λ)t} and λ* = mu +
// ln(1−q)/t. Its k replicas get each request at random (Poisson
// splitting), so each is an M/M/1 at λ/k and k replicas pass exactly when
// λ/k ≤ λ*: the replica count is ⌈λ/λ*⌉, computable by hand.
type mm1 struct{ mu float64 }

func (m mm1) Servers(k int) sim.ServerConfig { return split{mu: m.mu, k: k} }

// Screen bounds the rate from above by the service rate: a busy server
// completes mu requests a second.
func (m mm1) Screen(plan.Demand) plan.Screening { return plan.Screening{MaxRate: m.mu} }

// split is k M/M/1 queues fed at random.
type split struct {
	mu float64
	k  int
}

func (s split) station() queue.FCFS {
	return queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: s.mu}}
}

func (s split) Validate() error { return s.station().Validate() }

func (s split) NewServer(env *sim.Env) (sim.Server, error) {
	out := &splitServer{rng: event.NewStream(env.Seed(), "router"), queues: make([]sim.Server, s.k)}
	for i := range out.queues {
		q, err := s.station().NewServer(env)
		if err != nil {
			return nil, err
		}
		out.queues[i] = q
	}
	return out, nil
}

func (s split) GPUs() int { return s.k }

type splitServer struct {
	rng    *rand.Rand
	queues []sim.Server
}

func (s *splitServer) Arrive(r *metrics.Request) { s.queues[s.rng.IntN(len(s.queues))].Arrive(r) }

// The family: λ* = mu − ln(10) for an E2E bound of 1 s at q = 0.9.
const q, bound, target = 0.9, 1.0, 30.0

func lambdaStar(mu float64) float64 { return mu + math.Log(1-q)/bound }

// family returns the candidates with their prices per GPU-hour. By hand,
// at 30 req/s: A (λ* 8.7) needs ⌈30/8.7⌉ = 4 replicas, $4.00/h; B (λ* 17.5)
// 2, $4.20/h; C (λ* 12) 3, $3.90/h; D (mu 2 < ln 10) meets the bound at no
// rate; E (λ* 97.7) 1, $10/h. C is the cheapest. The per-replica loads at
// those counts (7.5, 15, 10) sit 14-28% below λ*, and at one replica fewer
// (10, 30, 15) 15-71% above it, far outside the noise of the runs.
func family() []plan.Candidate {
	ln10 := math.Log(10)
	specs := []struct {
		name      string
		mu, price float64
	}{
		{"A", 8.7 + ln10, 1.00},
		{"B", 17.5 + ln10, 2.10},
		{"C", 12 + ln10, 1.30},
		{"D", 2, 0.10},
		{"E", 100, 10},
	}
	out := make([]plan.Candidate, len(specs))
	for i, s := range specs {
		out[i] = plan.Candidate{Index: i, Name: s.name, GPUs: 1, PricePerGPUHour: s.price, Replica: mm1{s.mu}}
	}
	return out
}

func objective() plan.Objective {
	return plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Rate:     target,
		Criteria: capacity.DefaultCriteria(metrics.SLO{E2E: bound}, q),
	}
}

func search(seed uint64) plan.Search {
	return plan.Search{Requests: 3000, Warmup: 300, Replications: 2, BoundaryReplications: 3,
		Precision: 0.05, Seed: seed, MaxReplicas: 16, Round: 2}
}

func solve(t *testing.T, s plan.Search) *plan.Result {
	t.Helper()
	res, err := plan.Solve(objective(), s, family())
	require.NoError(t, err)
	return res
}

// TestSolveMM1KnownAnswer: the planner picks the configuration computed by
// hand, with the replica counts of the closed form, and says why the
// others lost.
func TestSolveMM1KnownAnswer(t *testing.T) {
	t.Parallel()
	res := solve(t, search(1))
	require.Equal(t, 1, res.Winners)
	win := res.Best()[0]
	assert.Equal(t, "C", win.Name)
	assert.Equal(t, 3, win.Replicas)
	assert.InDelta(t, 3.90, win.CostPerHour, 1e-9)

	replicas := map[string]int{}
	for _, r := range res.Ranked {
		replicas[r.Name] = r.Replicas
		want := lambdaStar(r.Replica.(mm1).mu)
		// The bracket lies at the closed form, within the 5% precision and
		// the min-over-runs rule's lean to low rates. At 3,000 requests a
		// run near λ* (ρ ≈ 0.8: M/M/1 relaxes slowly) varies by several
		// points of attainment, and the least of 3 lands below q early:
		// over seeds 1 to 10 the lower end lies at 0.89 to 1.00 λ*, the
		// upper end at 0.93 to 1.05 λ*.
		if math.IsInf(r.Lambda.Upper, 1) { // one replica passes at the target
			assert.Equal(t, target, r.Lambda.Lower)
			assert.Greater(t, want, target)
			continue
		}
		assert.Less(t, r.Lambda.Lower, want*1.03, "%s lower", r.Name)
		assert.Greater(t, r.Lambda.Lower, want*0.85, "%s lower", r.Name)
		assert.Greater(t, r.Lambda.Upper, want*0.9, "%s upper", r.Name)
		assert.GreaterOrEqual(t, r.Attainment, q, "%s", r.Name)
		for _, c := range r.Checks {
			assert.Equal(t, c.Replicas >= r.Replicas, c.Pass, "%s at %d replicas", r.Name, c.Replicas)
		}
	}
	assert.Equal(t, map[string]int{"C": 3}, replicas)
	// B (at least 2 replicas by its roofline, $4.20) and E ($10) are
	// pruned before any run; A (at least 3 by its roofline, $3.00) is
	// simulated, fails at 3 replicas, and 4 would cost $4.00 > $3.90.
	reasons := map[string]plan.Reason{}
	bounds := map[string]float64{}
	for _, r := range res.Rejected {
		reasons[r.Name] = r.Reason
		bounds[r.Name] = r.CostLowerBound
		assert.NotEmpty(t, r.Why)
		t.Logf("%s: %s: %s", r.Name, r.Reason, r.Why)
	}
	assert.Equal(t, map[string]plan.Reason{"A": plan.TooExpensive, "B": plan.TooExpensive, "D": plan.Unreachable, "E": plan.TooExpensive}, reasons)
	assert.Equal(t, map[string]float64{"A": 4, "B": 4.2, "D": 0, "E": 10}, bounds)
	assert.Equal(t, 3, res.Pruned)
}

// TestSolvePruningKeepsTheWinner: without pruning every candidate is
// simulated, B and E rank behind C at their hand-computed counts, and the
// winner is the same.
func TestSolvePruningKeepsTheWinner(t *testing.T) {
	t.Parallel()
	s := search(1)
	s.NoPrune = true
	full := solve(t, s)
	pruned := solve(t, search(1))
	require.Len(t, full.Ranked, 4)
	got := map[string]int{}
	for _, r := range full.Ranked {
		got[r.Name] = r.Replicas
	}
	assert.Equal(t, map[string]int{"C": 3, "A": 4, "B": 2, "E": 1}, got)
	assert.Equal(t, []string{"C", "A", "B", "E"}, rankedNames(full))
	assert.Equal(t, pruned.Best()[0].Name, full.Best()[0].Name)
	assert.Equal(t, pruned.Best()[0].CostPerHour, full.Best()[0].CostPerHour)
	assert.Zero(t, full.Pruned)
	assert.Less(t, pruned.Runs, full.Runs)
}

// TestSolveSeedStability: five seeds pick the same winner at the same
// replica count.
func TestSolveSeedStability(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			res := solve(t, search(seed))
			require.Equal(t, 1, res.Winners)
			assert.Equal(t, "C", res.Best()[0].Name)
			assert.Equal(t, 3, res.Best()[0].Replicas)
		})
	}
}

// TestSolveDeterministic: the JSON is byte-identical at GOMAXPROCS 1 and
// 2. Not parallel: it sets GOMAXPROCS.
func TestSolveDeterministic(t *testing.T) {
	var out [2][]byte
	for i, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		res := solve(t, search(3))
		runtime.GOMAXPROCS(old)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		out[i] = b
	}
	assert.True(t, bytes.Equal(out[0], out[1]), "GOMAXPROCS 1 and 2 differ")
}

func rankedNames(r *plan.Result) []string {
	var out []string
	for _, x := range r.Ranked {
		out = append(out, x.Name)
	}
	return out
}
