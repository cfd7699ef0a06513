package sim_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// echo serves every request in a fixed time, in parallel, and keeps the
// content it was given.
type echo struct{ service float64 }

func (e echo) Validate() error { return nil }
func (e echo) NewServer(env *sim.Env) (sim.Server, error) {
	s := &echoServer{env: env, service: e.service}
	s.onDone = s.done
	return s, nil
}

type echoServer struct {
	env     *sim.Env
	service float64
	reqs    []*metrics.Request
	onDone  event.Handler
	content [][]metrics.Span // by request ID
	kept    int              // requests whose content outlived their end
}

func (s *echoServer) Arrive(r *metrics.Request) {
	s.content = append(s.content, slices.Clone(s.env.Content(r)))
	s.reqs = append(s.reqs, r)
	s.env.Start(r)
	s.env.Schedule(s.env.Now()+s.service, event.Normal, s.onDone, int64(len(s.reqs)-1))
}

func (s *echoServer) done(i int64) {
	s.env.Finish(s.reqs[i])
	if s.env.Content(s.reqs[i]) != nil {
		s.kept++
	}
}

// recorded is echo that hands the test the server it builds.
type recorded struct {
	echo
	got **echoServer
}

func (r recorded) NewServer(env *sim.Env) (sim.Server, error) {
	s, _ := r.echo.NewServer(env)
	*r.got = s.(*echoServer)
	return s, nil
}

// TestSessionTimes: six sessions start 1 s apart (at 1, ..., 6 s), each
// sends 3 turns, each served in 0.1 s, with 0.5 s of think between: turn k
// of session s is sent at s + 1 + 0.6k. Turn k's prompt repeats turn
// k−1's prompt and response whole, which the server sees in the content.
func TestSessionTimes(t *testing.T) {
	t.Parallel()
	const n, turns = 6, 3
	w := workload.Workload{
		Arrivals: workload.Replay{Times: []float64{1, 2, 3, 4, 5, 6}},
		Lengths:  workload.Fixed{Input: 7, Output: 5},
		Sessions: &workload.Sessions{Turns: distribution.Deterministic{Value: turns}, Think: distribution.Deterministic{Value: 0.5}, SystemPrompt: 3},
	}
	var srv *echoServer
	res, err := sim.Run(sim.Config{Workload: w, Server: recorded{echo{0.1}, &srv}, Requests: 100, Seed: 1})
	require.NoError(t, err)
	require.Equal(t, n*turns, res.Completed)
	var want []float64
	for s := range n {
		for k := range turns {
			want = append(want, float64(s+1)+0.6*float64(k))
		}
	}
	slices.Sort(want)
	require.Zero(t, srv.kept, "the run keeps no content once a request ended")
	for i, r := range res.Requests {
		require.InDelta(t, want[i], r.Sent, 1e-12, "request %d", i)
		k := (srv.content[i][len(srv.content[i])-1:])
		require.Equal(t, 5, k[0].Tokens, "the response is the last span")
		tokens := 0
		for _, sp := range srv.content[i] {
			tokens += sp.Tokens
		}
		require.Equal(t, r.Input+r.Output, tokens, "content covers prompt and response")
		// Inputs 3+7, 3+7+5+7, 3+2·12+7.
		require.Contains(t, []int{10, 22, 34}, r.Input)
	}
	// A session's later turn starts with its earlier turn's spans.
	for i, c := range srv.content {
		if res.Requests[i].Input == 22 {
			found := false
			for j, p := range srv.content[:i] {
				if res.Requests[j].Input == 10 && slices.Equal(p, c[:len(p)]) {
					found = true
				}
			}
			require.True(t, found, "turn 2 (request %d) repeats a turn 1", i)
		}
	}
}

// TestSessionsCommonRandomNumbers: a session's turns are drawn when it
// starts, so a slower server sees the same turns (the same multiset of
// lengths) from one seed.
func TestSessionsCommonRandomNumbers(t *testing.T) {
	t.Parallel()
	pairs := func(service float64) [][2]int {
		res, err := sim.Run(sim.Config{Workload: sessions(2), Server: echo{service}, Requests: 500, Seed: 9})
		require.NoError(t, err)
		var out [][2]int
		for _, r := range res.Requests {
			out = append(out, [2]int{r.Input, r.Output})
		}
		slices.SortFunc(out, func(a, b [2]int) int {
			if a[0] != b[0] {
				return a[0] - b[0]
			}
			return a[1] - b[1]
		})
		return out
	}
	fast, slow := pairs(0.01), pairs(0.3)
	// The last sessions may be cut at a different turn; all but the tail
	// agree.
	common := 0
	for _, p := range fast {
		if i, ok := slices.BinarySearchFunc(slow, p, func(a, b [2]int) int {
			if a[0] != b[0] {
				return a[0] - b[0]
			}
			return a[1] - b[1]
		}); ok {
			slow = slices.Delete(slow, i, i+1)
			common++
		}
	}
	assert.Greater(t, common, 450)
}

// TestPromptContent: a PromptSampler's content reaches the server.
func TestPromptContent(t *testing.T) {
	t.Parallel()
	var srv *echoServer
	w := workload.Workload{Arrivals: workload.Poisson{Rate: 5}, Lengths: workload.SharedPrefix{Tokens: 64, Lengths: workload.Fixed{Input: 10, Output: 2}}}
	res, err := sim.Run(sim.Config{Workload: w, Server: recorded{echo{0.1}, &srv}, Requests: 20, Seed: 1, SummaryOnly: true})
	require.NoError(t, err)
	require.Equal(t, 20, res.Completed)
	for _, c := range srv.content {
		require.Len(t, c, 1)
		require.Equal(t, srv.content[0], c)
		require.Equal(t, 64, c[0].Tokens)
	}
}
