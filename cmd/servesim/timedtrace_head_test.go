package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimedTraceReadsOnlyItsRows: timed_trace takes the file's first
// --num-prompts rows, as vLLM does, and reads no further, for the lengths
// and the arrivals alike: a bad line after them is never read (both used
// to read the whole file, so it failed the run), and with a larger
// --num-prompts it is reached and named. The rows' timestamps still set
// the arrivals: three rows 1000 ms apart (--timed-trace-sec-multiplier
// 0.001) make a run of 2 s and a few milliseconds.
func TestTimedTraceReadsOnlyItsRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	rows := `{"timestamp": 0, "input_length": 64, "output_length": 4}` + "\n" +
		`{"timestamp": 1000, "input_length": 64, "output_length": 4}` + "\n" +
		`{"timestamp": 2000, "input_length": 64, "output_length": 4}` + "\n" +
		"not a row\n"
	if err := os.WriteFile(path, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRunCLI(t, "bench", "--dataset-name", "timed_trace", "--dataset-path", path, "--num-prompts", "3", "--timed-trace-sec-multiplier", "0.001")
	for _, want := range []string{"Successful requests:                     3", "Benchmark duration (s):                  2.0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("3 rows of a file with a bad 4th line: stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := servesim(t, "bench", "--dataset-name", "timed_trace", "--dataset-path", path, "--num-prompts", "4"); r.code != 2 || !strings.Contains(r.stderr, "line 4") {
		t.Errorf("--num-prompts 4 reaches the bad line: exit %d, stderr %q; want 2 naming line 4", r.code, r.stderr)
	}
}
