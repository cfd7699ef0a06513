package workload

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxTrace bounds the traces the fuzz targets read.
const maxTrace = 64 << 10

// FuzzReadTrace checks that ReadTrace does not panic; that an error is an
// ErrInvalid naming the line (or saying the trace is empty); and that an
// accepted trace has at least one row, times that start at 0, are finite,
// >= 0 and non-decreasing, lengths >= 0, one row per non-blank line
// (JSONL), and that written back as CSV it reads back to the same rows.
func FuzzReadTrace(f *testing.F) {
	for _, s := range []string{
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:16:46,1,2\n",
		"output_tokens,arrival_time,input_tokens\r\n6, 10.5 ,5\r\n8,11,7\r\n",
		"input,output\n1,2\n3,4\n",
		"time,input,output\n5,1,1\n6,1,1\n4,1,1\n",
		"time,input,output\n0,1,1\n1e308,1,1\n1.7976931348623157e308,1,1\n",
		"time,input,output\n-0,1,1\n",
		"time,input,output\n1969-12-31 23:59:59,1,1\n0,1,1\n",
		"time,input,output\n1600-01-01 00:00:00,1,1\n2000-01-01 00:00:00,1,1\n",
		"time,input,output\n2262-04-11 23:47:16,1,1\n2262-04-11 23:47:17,1,1\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n\"1\"2,1,1\n",
		"time,input,output\n1,1,1\n2,1\n",
		"time,input,output\n1,9223372036854775807,1\n",
		"", "input\n", "a,b,c\n",
	} {
		f.Add([]byte(s), false)
	}
	for _, s := range []string{
		`{"timestamp": 1000, "input_length": 700, "output_length": 50, "hash_ids": [0, 1]}` + "\n\n" +
			`{"timestamp": 2500, "input_length": 1030, "output_length": 3, "hash_ids": [0, 1, 2]}` + "\n" +
			`{"timestamp": 2500, "input_length": 9, "output_length": 0}`,
		`{"input_length": 1, "output_length": 2}` + "\n" + `{"input_length": 3, "output_length": 4}` + "\n",
		`{"timestamp": 1.7976931348623157e308, "input_length": 1, "output_length": 1}`,
		`{"timestamp": -0, "input_length": 1, "output_length": 1}`,
		`{"timestamp": 1e999, "input_length": 1, "output_length": 1}`,
		`{"timestamp": null, "input_length": 1, "output_length": 1}`,
		`{"input_length": 1}`, "\n\n", "[]", "{}",
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		if len(data) > maxTrace {
			t.Skip()
		}
		format := FormatCSV
		if jsonl {
			format = FormatJSONL
		}
		tr, err := ReadTrace(bytes.NewReader(data), format)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %q is not an ErrInvalid", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "line ") && !strings.Contains(msg, "no requests") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		checkTrace(t, tr)
		if jsonl {
			lines := 0
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(l)) > 0 {
					lines++
				}
			}
			if len(tr.Rows) != lines {
				t.Fatalf("%d rows from %d non-blank lines", len(tr.Rows), lines)
			}
		}
		var b strings.Builder
		b.WriteString("time,input,output\n")
		for _, r := range tr.Rows {
			fmt.Fprintf(&b, "%s,%d,%d\n", strconv.FormatFloat(r.Time, 'g', -1, 64), r.Input, r.Output)
		}
		back, err := ReadTrace(strings.NewReader(b.String()), FormatCSV)
		if err != nil {
			t.Fatalf("the trace written back as CSV does not read: %v\n%s", err, b.String())
		}
		for i, r := range tr.Rows {
			r.HashIDs = nil
			if g := back.Rows[i]; g.Time != r.Time || g.Input != r.Input || g.Output != r.Output {
				t.Fatalf("row %d written back as CSV reads as %+v, want %+v", i, g, r)
			}
		}
	})
}

// checkTrace checks the properties every accepted trace has.
func checkTrace(t *testing.T, tr Trace) {
	t.Helper()
	if len(tr.Rows) == 0 {
		t.Fatal("accepted a trace with no rows")
	}
	if tr.Rows[0].Time != 0 {
		t.Fatalf("first time %v, want 0", tr.Rows[0].Time)
	}
	prev := 0.0
	for i, r := range tr.Rows {
		if !(r.Time >= prev) || math.IsInf(r.Time, 1) {
			t.Fatalf("row %d: time %v after %v, want finite, >= 0 and non-decreasing", i, r.Time, prev)
		}
		if r.Input < 0 || r.Output < 0 {
			t.Fatalf("row %d: lengths %d, %d, want >= 0", i, r.Input, r.Output)
		}
		prev = r.Time
	}
}

// FuzzTraceDateTimes checks the date-time timestamps of CSV traces over
// the whole range of the layout (years 0000 to 9999): two rows a and b
// read with b's time b − a seconds after a's, within a few float64 ulps of
// the Unix time, or as an error on line 3 when b is before a.
func FuzzTraceDateTimes(f *testing.F) {
	f.Add(int64(1700154946), uint32(680590000), int64(1700154950), uint32(995169000))
	f.Add(int64(-11676096000), uint32(0), int64(946684800), uint32(0)) // 1600 and 2000
	f.Add(int64(9223372036), uint32(854775807), int64(9223372036), uint32(854775808))
	f.Add(int64(-1), uint32(999999999), int64(0), uint32(0))
	f.Add(int64(5), uint32(0), int64(4), uint32(0))
	f.Fuzz(func(t *testing.T, sa int64, na uint32, sb int64, nb uint32) {
		const (
			lo = -62167219200 // 0000-01-01 00:00:00 UTC
			hi = 253402300799 // 9999-12-31 23:59:59 UTC
		)
		if sa < lo || sa > hi || sb < lo || sb > hi {
			t.Skip()
		}
		a := time.Unix(sa, int64(na%1e9)).UTC()
		b := time.Unix(sb, int64(nb%1e9)).UTC()
		text := "time,input,output\n" + a.Format(dateTimeLayout) + ",1,1\n" + b.Format(dateTimeLayout) + ",1,1\n"
		tr, err := ReadTrace(strings.NewReader(text), FormatCSV)
		want := float64(sb-sa) + (float64(nb%1e9)-float64(na%1e9))/1e9
		// Times are float64 seconds since 1970: b may be read as a's time
		// when it is before a by less than the rounding, but no more.
		ulp := math.Nextafter(float64(max(-lo, hi)), math.Inf(1)) - float64(max(-lo, hi))
		if err != nil {
			if !b.Before(a) || !strings.Contains(err.Error(), "line 3") {
				t.Fatalf("%s: %v", text, err)
			}
			return
		}
		checkTrace(t, tr)
		if got := tr.Rows[1].Time; math.Abs(got-want) > 4*ulp {
			t.Fatalf("%s: b is %v s after a, want %v", text, got, want)
		}
	})
}
