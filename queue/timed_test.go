package queue

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/internal/simtest"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// onHeap builds the station with every event on the event heap, as FCFS
// does for more than maxTimed servers.
type onHeap struct{ FCFS }

func (h onHeap) NewServer(env *sim.Env) (sim.Server, error) {
	s, err := newStation(h.FCFS, env, false)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// dump runs cfg and returns everything the run reports, as bytes
// (simtest.Dump).
func dump(t *testing.T, cfg sim.Config) []byte {
	t.Helper()
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	b, err := simtest.Dump(res)
	require.NoError(t, err)
	return b
}

// TestTimedIsExact: a station whose events go on timers (up to maxTimed
// servers) gives byte-identical output to one whose events go on the
// event heap, in every kind of run: open and closed loops, a client cap,
// a horizon, stop rules, a bounded line, sessions, summary mode, and
// first-token events (ServiceOf) with coarse times, so that same-time
// ties are frequent.
func TestTimedIsExact(t *testing.T) {
	t.Parallel()
	mixture := distribution.Discrete([]float64{0.020, 0.180}, []float64{0.8, 0.2})
	coarse := distribution.Discrete([]float64{0.1, 0.2, 0.3}, []float64{0.5, 0.3, 0.2}) // ties with the grid below
	split := func(in, out int) (float64, float64) {
		return 0.01 * float64(in%3), 0.01*float64(in%3) + 0.002*float64(out)
	}
	lengths := workload.Random{InputLen: 64, OutputLen: 32, RangeRatio: 0.9}
	poisson := func(rate float64) workload.Workload {
		return workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: lengths}
	}
	grid := workload.Workload{Arrivals: workload.Replay{Times: gridTimes(3000, 0.1)}, Lengths: lengths}
	slo := metrics.SLO{E2E: 0.25}
	for _, tc := range []struct {
		name string
		cfg  sim.Config
	}{
		{"fcfs1 mixture", sim.Config{Workload: poisson(10), Server: FCFS{Servers: 1, Service: mixture}, Requests: 5000, Warmup: 500, Seed: 1, SLO: slo}},
		{"fcfs1 service of", sim.Config{Workload: poisson(10), Server: FCFS{Servers: 1, ServiceOf: split}, Requests: 3000, Warmup: 100, Seed: 2, TokenSteps: true}},
		{"fcfs1 ties", sim.Config{Workload: grid, Server: FCFS{Servers: 1, Service: coarse}, Requests: 3000, Seed: 3}},
		{"fcfs2 ties service of", sim.Config{Workload: grid, Server: FCFS{Servers: 2, ServiceOf: func(in, out int) (float64, float64) { return 0.1 * float64(in%2), 0.1 * float64(in%2+out%3) }}, Requests: 3000, Seed: 4, TokenSteps: true}},
		{"fcfs3 gamma", sim.Config{Workload: poisson(25), Server: FCFS{Servers: 3, Service: distribution.Gamma{Shape: 0.5, Rate: 5}}, Requests: 5000, Seed: 5}},
		{"fcfs4 queue cap", sim.Config{Workload: poisson(60), Server: FCFS{Servers: 4, Service: mixture, QueueCap: 3}, Requests: 5000, Seed: 6, SLO: slo}},
		{"fcfs2 horizon", sim.Config{Workload: poisson(40), Server: FCFS{Servers: 2, Service: mixture}, Horizon: 120.05, Seed: 7, SLO: slo}},
		{"fcfs1 overload max in system", sim.Config{Workload: poisson(30), Server: FCFS{Servers: 1, Service: mixture}, Horizon: 1e5, MaxInSystem: 500, Seed: 8}},
		{"fcfs1 stop after misses", sim.Config{Workload: poisson(15), Server: FCFS{Servers: 1, Service: mixture}, Requests: 20_000, Seed: 9, SLO: slo, StopAfterMisses: 300}},
		{"fcfs2 closed", sim.Config{Workload: workload.Workload{Clients: 5, Think: distribution.Exponential{Rate: 5}, Lengths: lengths}, Server: FCFS{Servers: 2, Service: mixture}, Requests: 4000, Warmup: 50, Seed: 10}},
		{"fcfs1 capped", sim.Config{Workload: workload.Workload{Arrivals: workload.Gamma{Rate: 12, Burstiness: 0.3}, MaxConcurrency: 3, Lengths: lengths}, Server: FCFS{Servers: 1, Service: mixture}, Requests: 4000, Seed: 11}},
		{"fcfs3 sessions", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 2}, Lengths: lengths,
			Sessions: &workload.Sessions{Turns: distribution.Uniform{Min: 1, Max: 8}, Think: distribution.Exponential{Rate: 0.5}}}, Server: FCFS{Servers: 3, ServiceOf: split}, Requests: 2000, Seed: 12}},
		{"fcfs4 summary", sim.Config{Workload: poisson(60), Server: FCFS{Servers: 4, Service: mixture}, Requests: 5000, Seed: 13, SummaryOnly: true, SLO: slo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.cfg.Server.(FCFS)
			require.LessOrEqual(t, f.Servers, maxTimed, "the configuration runs on timers")
			got := dump(t, tc.cfg)
			tc.cfg.Server = onHeap{f}
			want := dump(t, tc.cfg)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				lo := max(i-80, 0)
				t.Fatalf("timers changed the output at byte %d of %d:\n heap:   %q\n timers: %q", i, len(want),
					want[lo:min(i+80, len(want))], got[lo:min(i+80, len(got))])
			}
		})
	}
}

// gridTimes returns n arrival times on a grid of step seconds, several
// arrivals per point.
func gridTimes(n int, step float64) []float64 {
	ts := make([]float64, n)
	for i := range ts {
		ts[i] = step * float64(i/3)
	}
	return ts
}

// TestTimedChoice: FCFS puts a station's events on timers exactly up to
// maxTimed servers.
func TestTimedChoice(t *testing.T) {
	t.Parallel()
	for _, c := range []int{1, maxTimed, maxTimed + 1, 64} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			var got *station
			cfg := sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 1, Output: 1}},
				Server: probe{FCFS{Servers: c, Service: distribution.Deterministic{Value: 0.1}}, &got}, Requests: 10, Seed: 1}
			_, err := sim.Run(cfg)
			require.NoError(t, err)
			require.Equal(t, c <= maxTimed, got.timers != nil)
			if got.timers != nil {
				require.Len(t, got.timers, c)
			}
		})
	}
}

// probe builds the station as FCFS does and hands it to the test.
type probe struct {
	FCFS
	got **station
}

func (p probe) NewServer(env *sim.Env) (sim.Server, error) {
	s, err := p.FCFS.NewServer(env)
	if err != nil {
		return nil, err
	}
	*p.got = s.(*station)
	return s, nil
}
