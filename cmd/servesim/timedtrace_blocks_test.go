package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// timed_trace keeps each row's hash_ids: rows with equal ids share those
// chunks' tokens, as vLLM builds the prompts, so the prefix cache hits.
// Three 64-token prompts of the same four 16-token ids, one second apart:
// the second and third find the first's blocks cached but recompute the
// last one (vLLM always computes a prompt's last token), 48 of 64 tokens
// each, so the hit rate is 2×48 / (3×64) = 50% exactly. Distinct ids hit
// nothing.
func TestTimedTraceSharesHashIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		ids  [3]string
		want string
	}{
		{[3]string{"[1,2,3,4]", "[1,2,3,4]", "[1,2,3,4]"}, "50.00"},
		{[3]string{"[1,2,3,4]", "[5,6,7,8]", "[9,10,11,12]"}, "0.00"},
	} {
		var b strings.Builder
		for i, ids := range tc.ids {
			b.WriteString(`{"timestamp": ` + []string{"0", "1000", "2000"}[i] + `, "input_length": 64, "output_length": 4, "hash_ids": ` + ids + "}\n")
		}
		path := filepath.Join(dir, "t"+tc.want+".jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		r := mustRunCLI(t, "bench", "--dataset-name", "timed_trace", "--dataset-path", path, "--num-prompts", "3")
		line := ""
		for l := range strings.SplitSeq(r.stdout, "\n") {
			if strings.HasPrefix(l, "Prefix cache hit rate (%):") {
				line = l
			}
		}
		if f := strings.Fields(line); len(f) == 0 || f[len(f)-1] != tc.want {
			t.Errorf("ids %v: %q, want a hit rate of %s%%", tc.ids, line, tc.want)
		}
	}
}
