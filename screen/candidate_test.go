package screen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim/metrics"
)

func TestParseCandidates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []screen.Candidate
		spec string
	}{
		{"4x1,2x2", []screen.Candidate{{TP: 4, Replicas: 1}, {TP: 2, Replicas: 2}}, "4x1,2x2"},
		{" tp8 ", []screen.Candidate{{TP: 8, Replicas: 1}}, "8x1"},
		{"TP4DP2EP", []screen.Candidate{{TP: 4, DP: 2, EP: true, Replicas: 1}}, "tp4dp2ep"},
		{"tp2ep,tp1dp8", []screen.Candidate{{TP: 2, EP: true, Replicas: 1}, {TP: 1, DP: 8, Replicas: 1}}, "tp2ep,tp1dp8"},
		{"tp2dp2x3", []screen.Candidate{{TP: 2, DP: 2, Replicas: 3}}, "tp2dp2x3"},
		{"tp4dp1", []screen.Candidate{{TP: 4, Replicas: 1}}, "4x1"}, // dp 1 is none
	} {
		got, err := screen.ParseCandidates(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
		var specs []string
		for _, g := range got {
			specs = append(specs, g.Spec())
		}
		assert.Equal(t, c.spec, joinComma(specs), c.in)
	}
	for _, c := range []struct{ in, want string }{
		{"4by1", `candidate "4by1" is neither PxK nor tpP[dpD][ep][xK]`},
		{"tp4epdp2", `candidate "tp4epdp2" is neither`},
		{"tp0", `candidate "tp0" has tp 0 outside [1, 1024]`},
		{"tp4dp0", `candidate "tp4dp0" has dp 0 outside [1, 1024]`},
		{"tp4dp2000", `candidate "tp4dp2000" has dp 2000 outside [1, 1024]`},
		{"4x0", `candidate "4x0" has 0 replicas, outside [1, 1024]`},
		{"1x1,", `candidate "" is neither`},
	} {
		_, err := screen.ParseCandidates(c.in)
		assert.ErrorContains(t, err, c.want, c.in)
	}
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// TestScreenDataParallel: vLLM's --data-parallel-size means two things.
// For a dense model the D engines are independent, so tpPdpD screens
// exactly as D replicas (the same server, the same paired seeds: the
// same brackets). For a mixture-of-experts model they are one engine of
// TP·D GPUs whose groups share the experts: gpt-oss-120b at tp1dp2 holds
// each expert once over the two GPUs, so a rank holds less than the whole
// model (TP=1 alone) and more than half of it (attention, embeddings and
// router are replicated in every group), and its KV pool grows by what
// the experts no longer take. The brackets are compared with each other,
// not with a known capacity, so the runs are short (300 requests).
func TestScreenDataParallel(t *testing.T) {
	t.Parallel()
	dense := study(t, "llama-3.1-8b", "h100-sxm", screen.Candidate{TP: 1, DP: 2, Replicas: 1}, screen.Candidate{TP: 1, Replicas: 2})
	dense.CommonRate, dense.Requests, dense.Warmup = 0, 300, 30
	rep, err := dense.Run()
	require.NoError(t, err)
	a, b := rep.Rows[0], rep.Rows[1]
	require.NotNil(t, a.Search)
	assert.Equal(t, 2, a.GPUs)
	assert.Equal(t, 1, a.EngineGPUs, "a dense model's data-parallel engines are one GPU each")
	assert.Equal(t, b.Search.Lower, a.Search.Lower)
	assert.Equal(t, b.Search.Upper, a.Search.Upper)

	moe := study(t, "gpt-oss-120b", "h100-sxm", screen.Candidate{TP: 1, Replicas: 1}, screen.Candidate{TP: 1, DP: 2, Replicas: 1},
		screen.Candidate{TP: 1, DP: 2, EP: true, Replicas: 1}, screen.Candidate{TP: 1, DP: 2, EP: true, Replicas: 2})
	moe.CommonRate, moe.Replications, moe.Precision = 0, 1, 0.5
	moe.Requests, moe.Warmup = 300, 30
	rep, err = moe.Run()
	require.NoError(t, err)
	one, dp, ep := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	for _, r := range []screen.Row{dp, ep} {
		require.True(t, r.Feasible(), r.Candidate.String())
		assert.Equal(t, 2, r.GPUs)
		assert.Equal(t, 2, r.EngineGPUs)
		assert.Less(t, r.Memory.WeightBytes, one.Memory.WeightBytes, r.Candidate.String())
		assert.Greater(t, r.Memory.WeightBytes, one.Memory.WeightBytes/2, r.Candidate.String())
		assert.Greater(t, r.Memory.KVTokens, one.Memory.KVTokens, r.Candidate.String())
		require.NotNil(t, r.Search)
		assert.Greater(t, r.Search.Lower, 0.0)
	}
	assert.Equal(t, "TP=1 DP=2 EP x1", ep.Candidate.String())
	// Two replicas of the engine: twice the GPUs, engines of two.
	two := rep.Rows[3]
	require.NotNil(t, two.Search)
	assert.Equal(t, []int{4, 2}, []int{two.GPUs, two.EngineGPUs})
	assert.Greater(t, two.Search.Lower, ep.Search.Lower)
}

func TestScreenParallelValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model  string
		cand   screen.Candidate
		router batching.Router
		want   string
	}{
		{"llama-3.1-8b", screen.Candidate{TP: 1, EP: true, Replicas: 1}, "", "candidates[0] ep: expert parallelism needs a mixture-of-experts model; llama-3.1-8b is dense"},
		{"llama-3.1-8b", screen.Candidate{TP: 1, DP: 64, Replicas: 17}, "", "candidates[0] replicas 17 of dp 64 make 1088 engines (a dense model's data-parallel engines are replicas), more than 1024"},
		{"gpt-oss-120b", screen.Candidate{TP: 1, DP: 8, Replicas: 200}, "", "candidates[0] replicas 200 of dp 8 make 1600 data-parallel groups, more than 1024"},
		{"gpt-oss-120b", screen.Candidate{TP: 1, Replicas: 1 << 62}, "", "candidates[0] replicas 4611686018427387904 exceed 1024"},
		{"gpt-oss-120b", screen.Candidate{TP: 1 << 40, Replicas: 1}, "", "candidates[0] tp 1099511627776 exceeds 1024"},
		{"gpt-oss-120b", screen.Candidate{TP: 1, DP: 2000, Replicas: 1}, "", "candidates[0] dp 2000 must be in [0, 1024]"},
		{"gpt-oss-120b", screen.Candidate{TP: 1, DP: -1, Replicas: 1}, "", "candidates[0] dp -1 must be in [0, 1024]"},
		{"gpt-oss-120b", screen.Candidate{TP: 1, DP: 2, Replicas: 2}, batching.PrefixAware, `candidates[0]: router "prefix-aware" over replicas of a data-parallel deployment is not modelled`},
	} {
		s := study(t, c.model, "h100-sxm", c.cand)
		if c.router != "" {
			s.Router = c.router
		}
		_, err := s.Run()
		assert.ErrorIs(t, err, screen.ErrInvalid)
		assert.ErrorContains(t, err, c.want)
	}
}

// TestVerdictSmallestEngine: when the model does not fit one GPU and
// data-parallel groups are among the candidates, the verdict names the
// smallest engine by its GPUs, not its TP: gpt-oss-120b (about 61 GiB of
// weights) does not fit one 48 GB L40S; tp1dp4ep has the smallest TP, 1,
// but four GPUs, and tp2 is the smallest engine, of two. The verdict is
// about the engines' sizes, not their capacities, so the runs are short
// (300 requests).
func TestVerdictSmallestEngine(t *testing.T) {
	t.Parallel()
	s := study(t, "gpt-oss-120b", "l40s", screen.Candidate{TP: 1, DP: 4, EP: true, Replicas: 1},
		screen.Candidate{TP: 2, Replicas: 1}, screen.Candidate{TP: 2, DP: 2, EP: true, Replicas: 1})
	s.CommonRate, s.Replications, s.Precision, s.Start = 0, 1, 0.5, 1
	s.Requests, s.Warmup = 300, 30
	s.Criteria.SLO = metrics.SLO{TTFT: 5, TPOT: 0.5}
	rep, err := s.Run()
	require.NoError(t, err)
	require.False(t, rep.FitsOneGPU)
	for _, r := range rep.Rows {
		require.NotNil(t, r.Search, r.Candidate.String())
		require.Positive(t, r.Search.Lower, r.Candidate.String())
	}
	assert.Equal(t, []int{4, 2, 4}, []int{rep.Rows[0].EngineGPUs, rep.Rows[1].EngineGPUs, rep.Rows[2].EngineGPUs})
	assert.Contains(t, rep.Verdict(), "the model does not fit one GPU; the smallest engine that fits and meets the SLO is 2 GPUs")
}

// TestScreenUnevenSplit: a data-parallel split the experts do not divide
// is an impossible row, as a TP degree the heads do not divide is, and
// the other candidates are still screened.
func TestScreenUnevenSplit(t *testing.T) {
	t.Parallel()
	s := study(t, "gpt-oss-20b", "h100-sxm", screen.Candidate{TP: 1, Replicas: 1}, screen.Candidate{TP: 1, DP: 7, Replicas: 1},
		screen.Candidate{TP: 1, DP: 3, EP: true, Replicas: 1})
	s.CommonRate, s.Replications, s.Precision = 0, 1, 0.5
	rep, err := s.Run()
	require.NoError(t, err)
	assert.NotNil(t, rep.Rows[0].Search)
	assert.Contains(t, rep.Rows[1].ShapeErr, "dp 7 gives tp×dp/ep 7, which must divide expert_intermediate 2880")
	assert.Contains(t, rep.Rows[2].ShapeErr, "ep 3 must divide")
	assert.Nil(t, rep.Rows[1].Search)
}
