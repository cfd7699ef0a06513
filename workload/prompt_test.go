package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/distribution"
)

// samePrompt checks that SamplePrompt returns Sample's lengths and draws
// the same random numbers, for n requests.
func samePrompt(t *testing.T, l PromptSampler, n int) [][]Segment {
	t.Helper()
	a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	var out [][]Segment
	for i := range n {
		in, o := l.Sample(a, i)
		pin, po, seg := l.SamplePrompt(b, i, nil)
		require.Equal(t, [2]int{in, o}, [2]int{pin, po}, "request %d", i)
		require.Equal(t, a.Uint64(), b.Uint64(), "request %d: same random numbers", i)
		out = append(out, seg)
	}
	return out
}

func TestSharedPrefix(t *testing.T) {
	t.Parallel()
	p := SharedPrefix{Tokens: 1000, Lengths: Random{InputLen: 100, OutputLen: 10, RangeRatio: 0.5}}
	require.NoError(t, p.Validate())
	segs := samePrompt(t, p, 50)
	for _, s := range segs {
		require.Len(t, s, 1, "the prefix; the rest is each request's own")
		require.Equal(t, segs[0][0], s[0], "one prefix for all")
		require.Equal(t, 1000, s[0].Tokens)
	}
	in, out := p.Mean()
	assert.Equal(t, [2]float64{1100, 10}, [2]float64{in, out})

	// Around a trace with block ids, the prefix comes first.
	inner := Sequence{Pairs: []Pair{{Input: 600, Output: 3}}, Blocks: [][]int64{{7, 8}}, BlockSize: 512}
	_, _, s := SharedPrefix{Tokens: 10, Lengths: inner}.SamplePrompt(nil, 0, nil)
	require.Equal(t, []int{10, 512, 88}, tokensOf(s))

	assert.ErrorContains(t, SharedPrefix{Tokens: -1, Lengths: Fixed{1, 1}}.Validate(), "shared_prefix.tokens: -1 must be >= 0")
	assert.ErrorContains(t, SharedPrefix{Tokens: 1}.Validate(), "shared_prefix.lengths: are not set")
}

func tokensOf(s []Segment) []int {
	var out []int
	for _, x := range s {
		out = append(out, x.Tokens)
	}
	return out
}

// TestPrefixRepetition: each request is one of NumPrefixes prefixes, each
// drawn with probability 1/NumPrefixes: counts over 20,000 requests within
// 4 binomial standard errors of n/k.
func TestPrefixRepetition(t *testing.T) {
	t.Parallel()
	const n, k = 20_000, 10
	p := PrefixRepetition{PrefixLen: 256, SuffixLen: 100, NumPrefixes: k, OutputLen: 128}
	require.NoError(t, p.Validate())
	count := map[uint64]int{}
	for _, s := range samePrompt(t, p, n) {
		require.Len(t, s, 1)
		require.Equal(t, 256, s[0].Tokens)
		count[s[0].ID]++
	}
	require.Len(t, count, k)
	se := math.Sqrt(n * (1.0 / k) * (1 - 1.0/k))
	for id, c := range count {
		assert.InDelta(t, n/k, c, 4*se, "prefix %x", id)
	}
	for _, tt := range []struct {
		p    PrefixRepetition
		want string
	}{
		{PrefixRepetition{PrefixLen: -1, NumPrefixes: 1, OutputLen: 1}, "prefix_repetition.prefix_len: -1 must be >= 0"},
		{PrefixRepetition{SuffixLen: -1, NumPrefixes: 1, OutputLen: 1}, "prefix_repetition.suffix_len: -1 must be >= 0"},
		{PrefixRepetition{OutputLen: 1}, "prefix_repetition.num_prefixes: 0 must be >= 1"},
		{PrefixRepetition{NumPrefixes: 1}, "prefix_repetition.output_len: 0 must be >= 1"},
	} {
		assert.ErrorContains(t, tt.p.Validate(), tt.want)
	}
}

// TestBlockContent: a row's hash ids become one segment per block, the
// last cut at the input; rows with equal ids share equal segments.
func TestBlockContent(t *testing.T) {
	t.Parallel()
	s := Sequence{
		Pairs:     []Pair{{Input: 1030, Output: 5}, {Input: 700, Output: 1}, {Input: 100, Output: 1}},
		Blocks:    [][]int64{{1, 2, 3}, {1, 2, 9, 9}, {}},
		BlockSize: 512,
	}
	require.NoError(t, s.Validate())
	segs := samePrompt(t, s, 3)
	assert.Equal(t, []int{512, 512, 6}, tokensOf(segs[0]))
	assert.Equal(t, []int{512, 188}, tokensOf(segs[1]), "ids past the input are ignored")
	assert.Empty(t, segs[2], "no ids: all its own")
	assert.Equal(t, segs[0][:1], segs[1][:1])
	assert.Equal(t, segs[0][1].ID, segs[1][1].ID, "equal ids, equal tokens (188 of them in row 2)")
	assert.NotEqual(t, segs[0][0].ID, segs[0][1].ID)
	e := Empirical{Pairs: s.Pairs, Blocks: s.Blocks, BlockSize: 512}
	require.NoError(t, e.Validate())
	samePrompt(t, e, 20)

	assert.ErrorContains(t, Sequence{Pairs: s.Pairs, Blocks: s.Blocks[:2], BlockSize: 512}.Validate(), "sequence.blocks: 2 rows for 3 pairs: give one block list per pair")
	assert.ErrorContains(t, Empirical{Pairs: s.Pairs, Blocks: s.Blocks}.Validate(), "empirical.block_size: 0 must be >= 1 with blocks")
}

func TestTraceBlocksAndBurstGPT(t *testing.T) {
	t.Parallel()
	// Mooncake rows: 512-token blocks unless the rows say otherwise.
	tr, err := ReadTrace(strings.NewReader(`{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}`+"\n"+
		`{"timestamp": 2000, "input_length": 9, "output_length": 2}`), FormatJSONL)
	require.NoError(t, err)
	assert.Equal(t, MooncakeBlockSize, tr.BlockSize)
	seq := tr.Sequence()
	assert.Equal(t, [][]int64{{1, 2}, nil}, seq.Blocks)
	assert.Equal(t, 512, seq.BlockSize)
	assert.Equal(t, seq.Blocks, tr.Empirical().Blocks)

	tr, err = ReadTrace(strings.NewReader(`{"input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3], "block_size": 16}`), FormatJSONL)
	require.NoError(t, err)
	assert.Equal(t, 16, tr.BlockSize)
	_, err = ReadTrace(strings.NewReader(`{"input_length": 40, "output_length": 5, "block_size": 16}`+"\n"+`{"input_length": 40, "output_length": 5, "block_size": 32}`), FormatJSONL)
	assert.ErrorContains(t, err, "line 2: block_size 32 differs")

	// BurstGPT: failed requests (0 response tokens) dropped, as vLLM does.
	const burst = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"5,ChatGPT,472,18,490,Conversation log\n" +
		"45,GPT-4,1087,230,1317,Conversation log\n" +
		"46,GPT-4,300,0,300,API log\n" +
		"118,GPT-4,417,276,693,Conversation log\n"
	tr, err = ReadTrace(strings.NewReader(burst), FormatCSV)
	require.NoError(t, err)
	require.Len(t, tr.Rows, 3)
	assert.Equal(t, TraceRow{Time: 40, Input: 1087, Output: 230, Model: "GPT-4"}, tr.Rows[1])
	gpt4 := tr.Model("GPT-4")
	require.Len(t, gpt4.Rows, 2)
	assert.Equal(t, 113.0, gpt4.Rows[1].Time)
}

func TestTraceWindow(t *testing.T) {
	t.Parallel()
	tr := Trace{Rows: []TraceRow{{Time: 0}, {Time: 1}, {Time: 2}, {Time: 2}, {Time: 5}}}
	w, err := tr.Window(1, 5)
	require.NoError(t, err)
	assert.Equal(t, []TraceRow{{Time: 0}, {Time: 1}, {Time: 1}}, w.Rows, "[1, 5): shifted by 1")
	w, err = tr.Window(1.5, 0)
	require.NoError(t, err)
	assert.Equal(t, []TraceRow{{Time: 0.5}, {Time: 0.5}, {Time: 3.5}}, w.Rows, "to the end")
	assert.Equal(t, 1.0, tr.Rows[1].Time, "the trace is unchanged")
	for _, tt := range []struct {
		start, end float64
		want       string
	}{
		{-1, 0, "start -1"},
		{0, math.Inf(1), "end +Inf"},
		{3, 3, "end 3 must be after its start 3"},
		{6, 0, "holds no request"},
		{3, 4, "holds no request"},
	} {
		_, err := tr.Window(tt.start, tt.end)
		assert.ErrorContains(t, err, tt.want)
	}
}

// TestReplayWithRate: a capacity search scales a replay by its speed-up.
func TestReplayWithRate(t *testing.T) {
	t.Parallel()
	r := Replay{Times: []float64{0, 1, 4}} // 2 requests over 4 s: 0.5 req/s
	var _ RateSetter = r
	got := r.WithRate(2).(Replay)
	assert.Equal(t, 4.0, got.Speedup)
	assert.InDelta(t, 2, got.MeanRate(), 1e-12)
	once := Replay{Times: []float64{3}}
	assert.Equal(t, once, once.WithRate(5), "nothing to scale")
}

// TestSessions: turn k's prompt is the conversation so far plus the new
// tokens, its content the earlier turns' segments then its own new tokens
// and response; a session is the same whatever the order of Next calls
// across sessions.
func TestSessions(t *testing.T) {
	t.Parallel()
	s := Sessions{Turns: distribution.Deterministic{Value: 3}, Think: distribution.Deterministic{Value: 2}, SystemPrompt: 50}
	require.NoError(t, s.Validate())
	lengths := Sequence{Pairs: []Pair{{Input: 10, Output: 20}, {Input: 30, Output: 40}, {Input: 5, Output: 6}}}
	streams := SessionStreams{Turns: rand.New(rand.NewPCG(1, 1)), Lengths: rand.New(rand.NewPCG(2, 2)), Think: rand.New(rand.NewPCG(3, 3))}
	ss := s.Start(0, 0, lengths, streams)
	require.Equal(t, 3, ss.Turns())
	assert.Zero(t, ss.Think(), "the first turn is sent at the start")
	var prev []Segment
	wantIn := []int{50 + 10, 50 + 30 + 30, 50 + 30 + 70 + 5}
	wantTokens := [][]int{{50, 10, 20}, {50, 10, 20, 30, 40}, {50, 10, 20, 30, 40, 5, 6}}
	for k := range 3 {
		in, out, seg := ss.Next(nil)
		assert.Equal(t, wantIn[k], in, "turn %d input", k+1)
		assert.Equal(t, lengths.Pairs[k].Output, out)
		assert.Equal(t, wantTokens[k], tokensOf(seg), "turn %d segments", k+1)
		if k > 0 {
			assert.Equal(t, prev, seg[:len(prev)], "turn %d repeats turn %d whole", k+1, k)
		}
		total := 0
		for _, x := range seg {
			total += x.Tokens
		}
		assert.Equal(t, in+out, total, "content covers prompt and response")
		prev = seg
		if k < 2 {
			assert.Equal(t, 2.0, ss.Think())
		}
	}
	assert.True(t, ss.Done())

	other := s.Start(1, 3, lengths, streams)
	_, _, seg := other.Next(nil)
	assert.Equal(t, prev[0], seg[0], "the system prompt is shared")
	assert.NotEqual(t, prev[1], seg[1], "the rest is not")

	assert.ErrorContains(t, Sessions{}.Validate(), "sessions.turns: is not set")
	assert.ErrorContains(t, Sessions{Turns: distribution.Deterministic{Value: 1}, SystemPrompt: -2}.Validate(), "sessions.system_prompt: -2 must be >= 0")
	w := Workload{Clients: 2, Lengths: Fixed{1, 1}, Sessions: &s}
	assert.ErrorContains(t, w.Validate(), "sessions: need arrivals (session starts, an open loop)")
	w = Workload{Arrivals: Poisson{Rate: 1}, MaxConcurrency: 3, Lengths: Fixed{1, 1}, Sessions: &s}
	assert.ErrorContains(t, w.Validate(), "max_concurrency: 3 does not apply to sessions (each session is its own closed loop)")
}

// TestMooncakeBlocks: the Mooncake conversation trace has one hash id per
// 512 prompt tokens (ceil(L/512) ids every row) and, counted with Python's
// json module, 288,500 ids of which 182,790 distinct: its content has
// exactly that many segments and distinct segment IDs.
func TestMooncakeBlocks(t *testing.T) {
	t.Parallel()
	tr := loadData(t, "mooncake_conversation_trace.jsonl")
	require.Equal(t, MooncakeBlockSize, tr.BlockSize)
	seq := tr.Sequence()
	require.NoError(t, seq.Validate())
	var total int
	ids := map[uint64]bool{}
	var buf []Segment
	for i := range seq.Pairs {
		var in int
		in, _, buf = seq.SamplePrompt(nil, i, buf[:0])
		sum := 0
		for _, s := range buf {
			ids[s.ID] = true
			sum += s.Tokens
		}
		require.Equal(t, in, sum, "row %d: its blocks cover its prompt", i)
		total += len(buf)
	}
	assert.Equal(t, 288_500, total)
	assert.Len(t, ids, 182_790)
}
