package plan_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// dd1 is a replica whose k ≥ 2 replicas are D/D/1 stations of service time
// s fed in turn: under evenly spaced arrivals at λ each sees a gap of k/λ
// and never queues iff k/λ ≥ s, so the fewest passing replicas are
// exactly ⌈λs⌉. One replica alone is a station of service time s·skew, so
// λ* misleads the first count by the factor skew: the count search must
// gallop to the answer and bisect.
type dd1 struct{ s, skew float64 }

func (d dd1) Servers(k int) sim.ServerConfig {
	if k == 1 {
		return roundRobin{s: d.s * d.skew, k: 1}
	}
	return roundRobin{s: d.s, k: k}
}

type roundRobin struct {
	s float64
	k int
}

func (r roundRobin) station() queue.FCFS {
	return queue.FCFS{Servers: 1, Service: distribution.Deterministic{Value: r.s}}
}

func (r roundRobin) Validate() error { return r.station().Validate() }

func (r roundRobin) NewServer(env *sim.Env) (sim.Server, error) {
	out := &rrServer{queues: make([]sim.Server, r.k)}
	for i := range out.queues {
		q, err := r.station().NewServer(env)
		if err != nil {
			return nil, err
		}
		out.queues[i] = q
	}
	return out, nil
}

type rrServer struct {
	queues []sim.Server
	next   int
}

func (s *rrServer) Arrive(req *metrics.Request) {
	s.queues[s.next].Arrive(req)
	s.next = (s.next + 1) % len(s.queues)
}

// TestReplicaCountSearch: from a first count 6 times too high or too low,
// the search finds the exact fewest replicas, every count below it failing
// and every one from it passing, in a logarithmic number of checks.
func TestReplicaCountSearch(t *testing.T) {
	t.Parallel()
	const rate, s = 100.0, 0.133 // ⌈100 · 0.133⌉ = 14 replicas
	for _, skew := range []float64{6, 1.0 / 6} {
		t.Run(fmt.Sprint("skew ", skew), func(t *testing.T) {
			t.Parallel()
			// The bound lets the lone station serve: a queue breaks it.
			obj := plan.Objective{
				Workload: workload.Workload{Arrivals: workload.Constant{Rate: 1}, Lengths: workload.Fixed{Input: 1, Output: 1}},
				Rate:     rate,
				Criteria: capacity.DefaultCriteria(metrics.SLO{E2E: 1.5 * s * max(1, skew)}, 0.99),
			}
			c := plan.Candidate{Name: "dd1", GPUs: 1, PricePerGPUHour: 1, Replica: dd1{s: s, skew: skew}}
			res, err := plan.Solve(obj, plan.Search{Requests: 300, Warmup: 30, Replications: 1, Precision: 0.05,
				Seed: 1, MaxReplicas: 128, Round: 1}, []plan.Candidate{c})
			require.NoError(t, err)
			require.Len(t, res.Ranked, 1, "%+v", res.Rejected)
			r := res.Ranked[0]
			assert.Equal(t, 14, r.Replicas)
			var ks []int
			for _, ch := range r.Checks {
				ks = append(ks, ch.Replicas)
				assert.Equal(t, ch.Replicas >= 14, ch.Pass, "%d replicas", ch.Replicas)
			}
			t.Logf("lambda* of one %s, first count %.0f, checks %v", r.Lambda, math.Ceil(rate/r.Lambda.Lower), ks)
			assert.Contains(t, ks, 13, "the count below the answer was seen to fail")
			assert.LessOrEqual(t, len(ks), 2*int(math.Ceil(math.Log2(6*14)))+1)
		})
	}
}
