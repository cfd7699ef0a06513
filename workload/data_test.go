package workload

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/internal/shareddata"
)

// The real traces live beside the project in shared/data (see its
// README.md); they are read from there, never copied into the project.
// shareddata.Path finds them, and fails the test under CI when they are
// missing rather than skipping it.

// loadData returns the trace in the shared data file name. Each file is
// parsed once per test binary and shared by the tests, which only read it.
func loadData(t *testing.T, name string) Trace {
	t.Helper()
	path := shareddata.Path(t, name)
	load, _ := traceCache.LoadOrStore(path, sync.OnceValues(func() (Trace, error) { return LoadTrace(path) }))
	tr, err := load.(func() (Trace, error))()
	require.NoError(t, err)
	return tr
}

var traceCache sync.Map // path → func() (Trace, error)

func TestRealTraces(t *testing.T) {
	t.Parallel()
	// Expected values computed from the files independently (Python's csv
	// and json modules); the README rounds them to 1155/211, 2048/28,
	// 12035/343 tokens and 5.53, 2.57 req/s. Mean rate is (n−1)/span.
	tests := []struct {
		file            string
		rows            int
		meanIn, meanOut float64
		span            float64 // seconds from the first to the last request
		meanRate        float64
	}{
		{"AzureLLMInferenceTrace_conv.csv", 19_366, 1154.6974, 211.1259, 3501.721937, 5.53},
		{"AzureLLMInferenceTrace_code.csv", 8_819, 2047.8483, 27.8825, 3435.948056, 2.57},
		{"mooncake_conversation_trace.jsonl", 12_031, 12035.0613, 342.6189, 3536.999, 3.40},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			tr := loadData(t, tt.file)
			require.Len(t, tr.Rows, tt.rows)
			var in, out float64
			times := make([]float64, len(tr.Rows))
			for i, r := range tr.Rows {
				in += float64(r.Input)
				out += float64(r.Output)
				times[i] = r.Time
			}
			n := float64(len(tr.Rows))
			assert.InDelta(t, tt.meanIn, in/n, 1e-3, "mean input")
			assert.InDelta(t, tt.meanOut, out/n, 1e-3, "mean output")
			assert.Zero(t, times[0])
			assert.IsNonDecreasing(t, times)
			assert.InDelta(t, tt.span, times[len(times)-1], 1e-5, "span")
			assert.InDelta(t, tt.meanRate, tr.Replay(0).MeanRate(), 0.05, "mean rate")
			assert.InDelta(t, 2*tr.Replay(0).MeanRate(), tr.Replay(2).MeanRate(), 1e-9, "speedup 2 doubles the rate")
			require.NoError(t, tr.Workload(1).Validate())
		})
	}
}

func TestAzureConvSummary(t *testing.T) {
	t.Parallel()
	// The README's summary of the conversation trace: L mean 1155 and O
	// mean 211 within a token, 5.53 req/s over the hour within 0.05, gap
	// CV ≈ 1.09 (Poisson-like).
	tr := loadData(t, "AzureLLMInferenceTrace_conv.csv")
	in, out := tr.Empirical().Mean()
	assert.InDelta(t, 1155, in, 1)
	assert.InDelta(t, 211, out, 1)
	assert.InDelta(t, 5.53, tr.Replay(0).MeanRate(), 0.05)
	gs := make([]float64, len(tr.Rows)-1)
	for i := range gs {
		gs[i] = tr.Rows[i+1].Time - tr.Rows[i].Time
	}
	m, v := meanVar(gs)
	assert.InDelta(t, 1.09, math.Sqrt(v)/m, 0.01, "gap CV")
	first := tr.Rows[0]
	assert.Equal(t, TraceRow{Time: 0, Input: 374, Output: 44}, first)
	assert.InDelta(t, 4.314579, tr.Rows[1].Time, 1e-6)
}

func TestMooncakeHashIDs(t *testing.T) {
	t.Parallel()
	tr := loadData(t, "mooncake_conversation_trace.jsonl")
	first := tr.Rows[0]
	require.NotEmpty(t, first.HashIDs)
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, first.HashIDs)
	assert.Equal(t, 6758, first.Input)
	assert.Equal(t, 500, first.Output)
	// Each 512-token block has an id: ⌈L/512⌉ ids a request.
	var bad []int
	for i, r := range tr.Rows {
		if len(r.HashIDs) != (r.Input+511)/512 {
			bad = append(bad, i)
		}
	}
	assert.Empty(t, bad[:min(len(bad), 10)], "%d rows without ⌈L/512⌉ hash ids (the first 10 shown)", len(bad))
	// The second request shares the first block (id 0) with the first.
	assert.Equal(t, first.HashIDs[0], tr.Rows[1].HashIDs[0])
}

func TestEmpiricalFromRealTrace(t *testing.T) {
	t.Parallel()
	// Resampling the conversation trace's rows: the mean of 200,000 drawn
	// inputs (and outputs) is within 4 SE of the trace's mean, SE being the
	// trace's standard deviation over √200,000.
	const n = 200_000
	tr := loadData(t, "AzureLLMInferenceTrace_conv.csv")
	e := tr.Empirical()
	require.NoError(t, e.Validate())
	popIn, popOut := make([]float64, len(e.Pairs)), make([]float64, len(e.Pairs))
	for i, p := range e.Pairs {
		popIn[i], popOut[i] = float64(p.Input), float64(p.Output)
	}
	wantIn, varIn := meanVar(popIn)
	wantOut, varOut := meanVar(popOut)
	ins, outs := sampleLengths(e, 700, n)
	gotIn, _ := meanVar(ins)
	gotOut, _ := meanVar(outs)
	assert.InDelta(t, wantIn, gotIn, zTol*math.Sqrt(varIn/n), "mean input")
	assert.InDelta(t, wantOut, gotOut, zTol*math.Sqrt(varOut/n), "mean output")
	// The joint distribution is kept: the correlation of L and O in the
	// resample (the trace's is −0.112) matches the trace's within 8/√n =
	// 0.018, twice the normal-theory 4(1−ρ²)/√n to allow for the lengths'
	// heavy tails.
	assert.InDelta(t, correlation(popIn, popOut), correlation(ins, outs), 2*zTol/math.Sqrt(n))
}

// TestBuiltinTablesMatchTraces recomputes the built-in quantile tables from
// the trace files (numpy-linear percentiles, outputs raised to 1) and
// checks every entry, rounded, and the normal-scores correlation.
func TestBuiltinTablesMatchTraces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		table QuantileTable
	}{
		{"AzureLLMInferenceTrace_conv.csv", AzureConversation()},
		{"AzureLLMInferenceTrace_code.csv", AzureCode()},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			tr := loadData(t, tc.file)
			var in, out sortedValues
			for _, p := range tr.Pairs() {
				in = append(in, float64(p.Input))
				out = append(out, float64(p.Output))
			}
			slices.Sort(in)
			slices.Sort(out)
			for i, p := range tc.table.Probs {
				assert.InDelta(t, tc.table.Input[i], in.percentile(p), 0.5, "input p%v", 100*p)
				assert.InDelta(t, tc.table.Output[i], out.percentile(p), 0.5, "output p%v", 100*p)
			}
		})
	}
}

// sortedValues is a sorted slice of values with numpy's linear percentile.
type sortedValues []float64

func (s sortedValues) percentile(p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(h)
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}
