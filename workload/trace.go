package workload

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A TraceRow is one request of a trace.
type TraceRow struct {
	// Time is the arrival time in seconds since the trace's first request.
	Time float64
	// Input and Output are the prompt and response lengths in tokens.
	Input, Output int
	// HashIDs are the request's prefix-block hashes (Mooncake traces; equal
	// ids mean a shareable prefix), one per Trace.BlockSize prompt tokens,
	// nil when the trace has none.
	HashIDs []int64
	// Model is the model the request was sent to, for traces that record
	// it (BurstGPT's Model column); "" otherwise.
	Model string
}

// A Trace is a list of requests in arrival order.
type Trace struct {
	Rows []TraceRow
	// BlockSize is the number of prompt tokens each of a row's HashIDs
	// stands for: a JSONL row's block_size field when the trace has one,
	// else MooncakeBlockSize for a trace with hash_ids; 0 without them.
	BlockSize int
}

// MooncakeBlockSize is the number of tokens per hash id in the Mooncake
// traces (kvcache-ai/Mooncake, FAST'25 release: 512-token blocks).
const MooncakeBlockSize = 512

// TraceFormat names a trace file format.
type TraceFormat string

// Trace formats. CSV has a header naming a time column (TIMESTAMP, timestamp,
// time or arrival_time: seconds, or a "2006-01-02 15:04:05.999" date-time),
// an input column (ContextTokens, input_length, input_tokens, input or
// Request tokens) and an output column (GeneratedTokens, output_length,
// output_tokens, output or Response tokens), as the Azure LLM inference
// traces (TIMESTAMP,ContextTokens,GeneratedTokens) and BurstGPT
// (Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type;
// seconds) do. A BurstGPT row with 0 response tokens is a failed request
// and is dropped, as vLLM's BurstGPT loader drops it; its Model column is
// kept in TraceRow.Model (vLLM keeps only "GPT-4": see Trace.Model). JSONL
// has one object a line with timestamp (milliseconds, as in Mooncake
// traces), input_length, output_length and optional hash_ids and
// block_size.
const (
	FormatCSV   TraceFormat = "csv"
	FormatJSONL TraceFormat = "jsonl"
)

// LoadTrace reads the trace at path, choosing the format from the extension
// (.csv, .jsonl or .json).
func LoadTrace(path string) (Trace, error) { return LoadTraceHead(path, 0) }

// LoadTraceHead is LoadTrace keeping only the first n rows (n <= 0: all):
// it stops reading there, so memory follows n, not the file. The rows
// kept are checked as LoadTrace checks them; the rest of the file is not
// read.
func LoadTraceHead(path string, n int) (Trace, error) {
	var format TraceFormat
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		format = FormatCSV
	case ".jsonl", ".json":
		format = FormatJSONL
	default:
		return Trace{}, fmt.Errorf("%w: trace %s: unknown extension %q (want .csv or .jsonl)", ErrInvalid, path, filepath.Ext(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return Trace{}, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	t, err := ReadTraceHead(f, format, n)
	if err != nil {
		return Trace{}, fmt.Errorf("trace %s: %w", path, err)
	}
	return t, nil
}

// ReadTrace parses a trace in the given format. Errors name the line.
// Times are shifted so the first request is at 0; rows must be in
// non-decreasing time order.
func ReadTrace(r io.Reader, format TraceFormat) (Trace, error) { return ReadTraceHead(r, format, 0) }

// ReadTraceHead is ReadTrace keeping only the first n rows (n <= 0: all);
// it reads r no further than their end.
func ReadTraceHead(r io.Reader, format TraceFormat, n int) (Trace, error) {
	var (
		t   Trace
		err error
	)
	if n <= 0 {
		n = math.MaxInt
	}
	switch format {
	case FormatCSV:
		t, err = readCSV(r, n)
	case FormatJSONL:
		t, err = readJSONL(r, n)
	default:
		return Trace{}, fmt.Errorf("%w: trace format %q must be %q or %q", ErrInvalid, format, FormatCSV, FormatJSONL)
	}
	if err != nil {
		return Trace{}, err
	}
	if len(t.Rows) == 0 {
		return Trace{}, fmt.Errorf("%w: trace has no requests", ErrInvalid)
	}
	t0 := t.Rows[0].Time
	for i := range t.Rows {
		t.Rows[i].Time -= t0
	}
	return t, nil
}

var (
	timeColumns   = []string{"timestamp", "time", "arrival_time"}
	inputColumns  = []string{"contexttokens", "input_length", "input_tokens", "input", "request tokens"}
	outputColumns = []string{"generatedtokens", "output_length", "output_tokens", "output", "response tokens"}
)

// burstGPTOutput is BurstGPT's output column; its rows with 0 tokens
// there are failures.
const burstGPTOutput = "response tokens"

func findColumn(header []string, names []string) int {
	for _, name := range names {
		for i, h := range header {
			if strings.EqualFold(strings.TrimSpace(h), name) {
				return i
			}
		}
	}
	return -1
}

// readCSV reads at most n rows.
func readCSV(r io.Reader, n int) (Trace, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return Trace{}, fmt.Errorf("%w: line 1: reading header: %v", ErrInvalid, err)
	}
	header = slices.Clone(header) // ReuseRecord: the next Read overwrites it
	ti, ii, oi := findColumn(header, timeColumns), findColumn(header, inputColumns), findColumn(header, outputColumns)
	if ii < 0 || oi < 0 {
		return Trace{}, fmt.Errorf("%w: line 1: header %q lacks an input or output column", ErrInvalid, strings.Join(header, ","))
	}
	burst := strings.EqualFold(strings.TrimSpace(header[oi]), burstGPTOutput)
	mi := -1
	if burst {
		mi = findColumn(header, []string{"model"})
	}
	var t Trace
	for len(t.Rows) < n {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A csv.ParseError names its line; FieldPos must not be
			// called after one (it panics when no field was read).
			return Trace{}, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		line, _ := cr.FieldPos(0)
		var row TraceRow
		if ti >= 0 {
			row.Time, err = parseTime(rec[ti])
			if err != nil {
				return Trace{}, fmt.Errorf("%w: line %d: %s %q: %v", ErrInvalid, line, header[ti], rec[ti], err)
			}
		}
		if row.Input, err = parseTokens(rec[ii]); err != nil {
			return Trace{}, fmt.Errorf("%w: line %d: %s %q: %v", ErrInvalid, line, header[ii], rec[ii], err)
		}
		if row.Output, err = parseTokens(rec[oi]); err != nil {
			return Trace{}, fmt.Errorf("%w: line %d: %s %q: %v", ErrInvalid, line, header[oi], rec[oi], err)
		}
		if burst && row.Output == 0 {
			continue // a failed request
		}
		if mi >= 0 {
			row.Model = strings.TrimSpace(rec[mi])
		}
		if err := t.append(row); err != nil {
			return Trace{}, fmt.Errorf("%w: line %d: %v", ErrInvalid, line, err)
		}
	}
	return t, nil
}

func (t *Trace) append(row TraceRow) error {
	if n := len(t.Rows); n > 0 && row.Time < t.Rows[n-1].Time {
		return fmt.Errorf("time %v is before the previous row's %v", row.Time, t.Rows[n-1].Time)
	}
	t.Rows = append(t.Rows, row)
	return nil
}

// The Azure traces write "2023-11-16 18:15:46.6805900".
const dateTimeLayout = "2006-01-02 15:04:05.999999999"

func parseTime(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("must be a finite number of seconds >= 0")
		}
		return v, nil
	}
	d, err := time.Parse(dateTimeLayout, s)
	if err != nil {
		return 0, fmt.Errorf("not seconds or a date-time like %q", dateTimeLayout)
	}
	// Not UnixNano, which wraps outside the years 1678 to 2262.
	return float64(d.Unix()) + float64(d.Nanosecond())/1e9, nil
}

func parseTokens(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("must be an integer >= 0")
	}
	return v, nil
}

type jsonRow struct {
	Timestamp *float64 `json:"timestamp"`
	Input     *int     `json:"input_length"`
	Output    *int     `json:"output_length"`
	HashIDs   []int64  `json:"hash_ids"`
	BlockSize int      `json:"block_size"`
}

// readJSONL reads at most n rows.
func readJSONL(r io.Reader, n int) (Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var t Trace
	line := 0
	for len(t.Rows) < n && sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var jr jsonRow
		if err := json.Unmarshal(b, &jr); err != nil {
			return Trace{}, fmt.Errorf("%w: line %d: %v", ErrInvalid, line, err)
		}
		switch {
		case jr.Input == nil || jr.Output == nil:
			return Trace{}, fmt.Errorf("%w: line %d: input_length and output_length are required", ErrInvalid, line)
		case *jr.Input < 0 || *jr.Output < 0:
			return Trace{}, fmt.Errorf("%w: line %d: lengths %d, %d must be >= 0", ErrInvalid, line, *jr.Input, *jr.Output)
		}
		switch {
		case jr.BlockSize < 0:
			return Trace{}, fmt.Errorf("%w: line %d: block_size %d must be >= 1", ErrInvalid, line, jr.BlockSize)
		case jr.BlockSize > 0 && t.BlockSize > 0 && jr.BlockSize != t.BlockSize:
			return Trace{}, fmt.Errorf("%w: line %d: block_size %d differs from an earlier row's %d", ErrInvalid, line, jr.BlockSize, t.BlockSize)
		case jr.BlockSize > 0:
			t.BlockSize = jr.BlockSize
		}
		row := TraceRow{Input: *jr.Input, Output: *jr.Output, HashIDs: jr.HashIDs}
		if jr.Timestamp != nil {
			if !(*jr.Timestamp >= 0) || math.IsInf(*jr.Timestamp, 1) {
				return Trace{}, fmt.Errorf("%w: line %d: timestamp %v must be a finite number >= 0", ErrInvalid, line, *jr.Timestamp)
			}
			row.Time = *jr.Timestamp / 1000
		}
		if err := t.append(row); err != nil {
			return Trace{}, fmt.Errorf("%w: line %d: %v", ErrInvalid, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return Trace{}, fmt.Errorf("%w: line %d: %v", ErrInvalid, line+1, err)
	}
	if t.BlockSize == 0 && t.hasBlocks() {
		t.BlockSize = MooncakeBlockSize
	}
	return t, nil
}

func (t Trace) hasBlocks() bool {
	for _, r := range t.Rows {
		if r.HashIDs != nil {
			return true
		}
	}
	return false
}

// RowContent appends the content of request i of a replay that repeats
// t's rows end to end: row i mod len(Rows), one segment per hash id of
// BlockSize tokens (the last cut at the row's input), as a Sequence of
// the rows gives it. The ids of repeat i / len(Rows) are distinct from
// every other repeat's (repeat 0's are the Sequence's), so a repeat is
// new content, not the earlier requests sent again. A row without hash
// ids appends nothing.
func (t Trace) RowContent(buf []Segment, i int) []Segment {
	n := len(t.Rows)
	row := t.Rows[i%n]
	if row.HashIDs == nil || t.BlockSize < 1 {
		return buf
	}
	return repeatSegments(buf, row.HashIDs, t.BlockSize, row.Input, uint64(i/n))
}

// blocks returns every row's HashIDs, or nil when no row has any.
func (t Trace) blocks() [][]int64 {
	if !t.hasBlocks() {
		return nil
	}
	b := make([][]int64, len(t.Rows))
	for i, r := range t.Rows {
		b[i] = r.HashIDs
	}
	return b
}

// Window returns the rows that arrived in [start, end) seconds of trace
// time (end 0: to the end), their times shifted by −start, so a replay
// of the window starts at 0 with the window's first gap kept. It is an
// error for the window to hold no request.
func (t Trace) Window(start, end float64) (Trace, error) {
	switch {
	case !(start >= 0) || math.IsInf(start, 1):
		return Trace{}, fmt.Errorf("%w: trace window start %v must be a finite number of seconds >= 0", ErrInvalid, start)
	case !(end >= 0) || math.IsInf(end, 1):
		return Trace{}, fmt.Errorf("%w: trace window end %v must be a finite number of seconds >= 0 (0: the trace's end)", ErrInvalid, end)
	case end > 0 && end <= start:
		return Trace{}, fmt.Errorf("%w: trace window end %v must be after its start %v", ErrInvalid, end, start)
	}
	lo, _ := slices.BinarySearchFunc(t.Rows, start, func(r TraceRow, x float64) int { return cmpFloat(r.Time, x) })
	hi := len(t.Rows)
	if end > 0 {
		hi, _ = slices.BinarySearchFunc(t.Rows, end, func(r TraceRow, x float64) int { return cmpFloat(r.Time, x) })
	}
	if lo >= hi {
		return Trace{}, fmt.Errorf("%w: trace window [%v, %v) s holds no request (the trace spans [%v, %v] s)", ErrInvalid, start, end, t.Rows[0].Time, t.Rows[len(t.Rows)-1].Time)
	}
	out := Trace{Rows: slices.Clone(t.Rows[lo:hi]), BlockSize: t.BlockSize}
	for i := range out.Rows {
		out.Rows[i].Time -= start
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Model returns the rows sent to the named model (TraceRow.Model), as
// vLLM's BurstGPT loader keeps only "GPT-4".
func (t Trace) Model(name string) Trace {
	out := Trace{BlockSize: t.BlockSize}
	for _, r := range t.Rows {
		if r.Model == name {
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}

// Pairs returns the rows' (input, output) pairs with outputs raised to at
// least 1 (a request always returns one token), in trace order.
func (t Trace) Pairs() []Pair {
	ps := make([]Pair, len(t.Rows))
	for i, r := range t.Rows {
		ps[i] = Pair{Input: r.Input, Output: max(r.Output, 1)}
	}
	return ps
}

// Empirical returns the trace's joint length distribution, resampled by
// row, with the rows' hash ids when the trace has them.
func (t Trace) Empirical() Empirical {
	e := Empirical{Pairs: t.Pairs()}
	if b := t.blocks(); b != nil {
		e.Blocks, e.BlockSize = b, t.BlockSize
	}
	return e
}

// Sequence returns the trace's lengths in trace order, with the rows'
// hash ids when the trace has them.
func (t Trace) Sequence() Sequence {
	s := Sequence{Pairs: t.Pairs()}
	if b := t.blocks(); b != nil {
		s.Blocks, s.BlockSize = b, t.BlockSize
	}
	return s
}

// Replay returns the trace's arrival times as a self-timed replay.
func (t Trace) Replay(speedup float64) Replay {
	ts := make([]float64, len(t.Rows))
	for i, r := range t.Rows {
		ts[i] = r.Time
	}
	return Replay{Times: ts, Speedup: speedup}
}

// Workload returns the exact replay of t: its arrival times (sped up by
// speedup; 0 means 1) and its lengths in order.
func (t Trace) Workload(speedup float64) Workload {
	return Workload{Arrivals: t.Replay(speedup), Lengths: t.Sequence()}
}
