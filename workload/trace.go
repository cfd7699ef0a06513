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
	// ids mean a shareable prefix), nil when the trace has none.
	HashIDs []int64
}

// A Trace is a list of requests in arrival order.
type Trace struct {
	Rows []TraceRow
}

// TraceFormat names a trace file format.
type TraceFormat string

// Trace formats. CSV has a header naming a time column (TIMESTAMP, timestamp,
// time or arrival_time: seconds, or a "2006-01-02 15:04:05.999" date-time),
// an input column (ContextTokens, input_length, input_tokens or input) and
// an output column (GeneratedTokens, output_length, output_tokens or
// output), as the Azure LLM inference traces do. JSONL has one object a
// line with timestamp (milliseconds, as in Mooncake traces), input_length,
// output_length and optional hash_ids.
const (
	FormatCSV   TraceFormat = "csv"
	FormatJSONL TraceFormat = "jsonl"
)

// LoadTrace reads the trace at path, choosing the format from the extension
// (.csv, .jsonl or .json).
func LoadTrace(path string) (Trace, error) {
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
	t, err := ReadTrace(f, format)
	if err != nil {
		return Trace{}, fmt.Errorf("trace %s: %w", path, err)
	}
	return t, nil
}

// ReadTrace parses a trace in the given format. Errors name the line.
// Times are shifted so the first request is at 0; rows must be in
// non-decreasing time order.
func ReadTrace(r io.Reader, format TraceFormat) (Trace, error) {
	var (
		t   Trace
		err error
	)
	switch format {
	case FormatCSV:
		t, err = readCSV(r)
	case FormatJSONL:
		t, err = readJSONL(r)
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
	inputColumns  = []string{"contexttokens", "input_length", "input_tokens", "input"}
	outputColumns = []string{"generatedtokens", "output_length", "output_tokens", "output"}
)

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

func readCSV(r io.Reader) (Trace, error) {
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
	var t Trace
	for {
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
}

func readJSONL(r io.Reader) (Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var t Trace
	line := 0
	for sc.Scan() {
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
	return t, nil
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

// Empirical returns the trace's joint length distribution, resampled by row.
func (t Trace) Empirical() Empirical { return Empirical{Pairs: t.Pairs()} }

// Sequence returns the trace's lengths in trace order.
func (t Trace) Sequence() Sequence { return Sequence{Pairs: t.Pairs()} }

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
