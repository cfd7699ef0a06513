package workload

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTrace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		format TraceFormat
		text   string
		want   []TraceRow
	}{
		{
			"azure date-times",
			FormatCSV,
			"TIMESTAMP,ContextTokens,GeneratedTokens\n" +
				"2023-11-16 18:15:46.6805900,374,44\n" +
				"2023-11-16 18:15:50.9951690,396,109\n" +
				"2023-11-16 18:15:50.9951690,12,0\n" +
				"2023-11-16 18:16:46,1,2\n",
			[]TraceRow{{0, 374, 44, nil, ""}, {4.314579, 396, 109, nil, ""}, {4.314579, 12, 0, nil, ""}, {59.31941, 1, 2, nil, ""}},
		},
		{
			"numeric seconds, other column names and order, CRLF",
			FormatCSV,
			"output_tokens,arrival_time,input_tokens\r\n6, 10.5 ,5\r\n8,11,7\r\n",
			[]TraceRow{{0, 5, 6, nil, ""}, {0.5, 7, 8, nil, ""}},
		},
		{
			"no time column",
			FormatCSV,
			"input,output\n1,2\n3,4\n",
			[]TraceRow{{0, 1, 2, nil, ""}, {0, 3, 4, nil, ""}},
		},
		{
			"jsonl milliseconds and hash ids",
			FormatJSONL,
			`{"timestamp": 1000, "input_length": 700, "output_length": 50, "hash_ids": [0, 1]}` + "\n" +
				"\n" +
				`{"timestamp": 2500, "input_length": 1030, "output_length": 3, "hash_ids": [0, 1, 2]}` + "\n" +
				`{"timestamp": 2500, "input_length": 9, "output_length": 0}`,
			[]TraceRow{{0, 700, 50, []int64{0, 1}, ""}, {1.5, 1030, 3, []int64{0, 1, 2}, ""}, {1.5, 9, 0, nil, ""}},
		},
		{
			"jsonl without timestamps",
			FormatJSONL,
			`{"input_length": 1, "output_length": 2}` + "\n" + `{"input_length": 3, "output_length": 4}` + "\n",
			[]TraceRow{{0, 1, 2, nil, ""}, {0, 3, 4, nil, ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := ReadTrace(strings.NewReader(tt.text), tt.format)
			require.NoError(t, err)
			require.Len(t, tr.Rows, len(tt.want))
			for i, w := range tt.want {
				got := tr.Rows[i]
				// Date-times become float seconds since 1970 before the
				// shift, which leaves about 0.4 µs of rounding.
				assert.InDelta(t, w.Time, got.Time, 1e-6, "row %d time", i)
				assert.Equal(t, w.Input, got.Input, "row %d input", i)
				assert.Equal(t, w.Output, got.Output, "row %d output", i)
				assert.Equal(t, w.HashIDs, got.HashIDs, "row %d hash ids", i)
			}
			assert.Zero(t, tr.Rows[0].Time, "times start at 0")
		})
	}
}

func TestReadTraceErrors(t *testing.T) {
	t.Parallel()
	const hdr = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	tests := []struct {
		name   string
		format TraceFormat
		text   string
		want   []string
	}{
		{"csv bad integer", FormatCSV, hdr + "1,10,5\n2,abc,5\n", []string{"line 3", `ContextTokens "abc"`, "integer"}},
		{"csv fractional length", FormatCSV, hdr + "1,10,5.5\n", []string{"line 2", `GeneratedTokens "5.5"`}},
		{"csv negative length", FormatCSV, hdr + "1,10,5\n2,10,5\n3,10,-5\n", []string{"line 4", `GeneratedTokens "-5"`, ">= 0"}},
		{"csv missing column header", FormatCSV, "TIMESTAMP,Prompt,GeneratedTokens\n1,10,5\n", []string{"line 1", "TIMESTAMP,Prompt,GeneratedTokens", "lacks an input or output column"}},
		{"csv backwards", FormatCSV, "time,input,output\n5,1,1\n6,1,1\n4,1,1\n", []string{"line 4", "time 4 is before the previous row's 6"}},
		{"csv backwards date-times", FormatCSV, hdr + "2023-11-16 18:15:50.5,1,1\n2023-11-16 18:15:50.4,1,1\n", []string{"line 3", "before the previous"}},
		{"csv bad time", FormatCSV, hdr + "yesterday,1,1\n", []string{"line 2", `TIMESTAMP "yesterday"`}},
		{"csv negative time", FormatCSV, hdr + "-1,1,1\n", []string{"line 2", `TIMESTAMP "-1"`, ">= 0"}},
		{"csv NaN time", FormatCSV, hdr + "NaN,1,1\n", []string{"line 2", `TIMESTAMP "NaN"`}},
		{"csv short row", FormatCSV, hdr + "1,1,1\n2,1\n", []string{"line 3", "wrong number of fields"}},
		// A parse error on the first data row used to panic in
		// csv.Reader.FieldPos.
		{"csv bare quote on first row", FormatCSV, hdr + "\"1\"2,1,1\n", []string{"line 2", `"`}},
		{"csv bare quote later", FormatCSV, hdr + "1,1,1\n2,1,1\n3,x\"y,1\n", []string{"line 4"}},
		{"csv empty", FormatCSV, "", []string{"line 1", "header"}},
		{"csv header only", FormatCSV, hdr, []string{"trace has no requests"}},
		{"jsonl invalid json on line 3", FormatJSONL, `{"input_length": 1, "output_length": 1}` + "\n\n" + `{"input_length": 1,` + "\n", []string{"line 3"}},
		{"jsonl missing output_length", FormatJSONL, `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 1, "input_length": 1}` + "\n", []string{"line 2", "output_length", "required"}},
		{"jsonl negative length", FormatJSONL, `{"input_length": -3, "output_length": 1}`, []string{"line 1", "-3"}},
		{"jsonl string length", FormatJSONL, `{"input_length": "3", "output_length": 1}`, []string{"line 1", "input_length"}},
		{"jsonl backwards", FormatJSONL, `{"timestamp": 3000, "input_length": 1, "output_length": 1}` + "\n" + `{"timestamp": 2000, "input_length": 1, "output_length": 1}`, []string{"line 2", "time 2 is before the previous row's 3"}},
		{"jsonl negative timestamp", FormatJSONL, `{"timestamp": -1, "input_length": 1, "output_length": 1}`, []string{"line 1", "timestamp -1"}},
		{"jsonl empty", FormatJSONL, "\n\n", []string{"trace has no requests"}},
		{"unknown format", "xml", "<trace/>", []string{`trace format "xml"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTrace(strings.NewReader(tt.text), tt.format)
			require.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestTraceConversions(t *testing.T) {
	t.Parallel()
	tr := Trace{Rows: []TraceRow{{Time: 0, Input: 10, Output: 0}, {Time: 2, Input: 20, Output: 5}, {Time: 3, Input: 30, Output: 1}}}
	// Outputs are raised to 1: a request always returns a token.
	wantPairs := []Pair{{10, 1}, {20, 5}, {30, 1}}
	assert.Equal(t, wantPairs, tr.Pairs())
	assert.Equal(t, Empirical{Pairs: wantPairs}, tr.Empirical())
	assert.Equal(t, Sequence{Pairs: wantPairs}, tr.Sequence())
	assert.Equal(t, Replay{Times: []float64{0, 2, 3}, Speedup: 4}, tr.Replay(4))
	w := tr.Workload(2)
	require.NoError(t, w.Validate())
	assert.False(t, w.Closed())
	s, err := w.Arrivals.Stream(nil, 0)
	require.NoError(t, err)
	for i, want := range []float64{0, 1, 1.5} {
		require.Equal(t, want, s.Next())
		in, out := w.Lengths.Sample(nil, i)
		require.Equal(t, wantPairs[i], Pair{in, out})
	}
	assert.Equal(t, 0, tr.Rows[0].Output, "Pairs must not modify the trace")
}

func TestLoadTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	tests := []struct {
		name  string
		path  string
		input int
	}{
		{"csv", write("a.csv", "time,input,output\n1,11,2\n"), 11},
		{"upper-case extension", write("b.CSV", "time,input,output\n1,12,2\n"), 12},
		{"jsonl", write("c.jsonl", `{"timestamp": 5, "input_length": 13, "output_length": 1}`), 13},
		{"json", write("d.json", `{"timestamp": 5, "input_length": 14, "output_length": 1}`), 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := LoadTrace(tt.path)
			require.NoError(t, err)
			require.Len(t, tr.Rows, 1)
			assert.Equal(t, tt.input, tr.Rows[0].Input)
		})
	}

	_, err := LoadTrace(write("e.txt", "time,input,output\n1,1,1\n"))
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `unknown extension ".txt"`)

	_, err = LoadTrace(write("f.csv", "time,input,output\n1,x,1\n"))
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "f.csv")
	assert.Contains(t, err.Error(), "line 2")

	_, err = LoadTrace(filepath.Join(dir, "missing.csv"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}
