package main

import (
	"strings"
	"testing"
)

// TestUI checks servesim ui's help and its errors; serving is ui's own
// test (TestServe), the page TestPage.
func TestUI(t *testing.T) {
	t.Parallel()
	if r := runCLI("ui", "-h"); r.code != 0 || !strings.Contains(r.stdout, "Usage: servesim ui") || !strings.Contains(r.stdout, "--out") {
		t.Errorf("ui -h: exit %d, stdout %q", r.code, r.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ui", "site"}, `unexpected argument "site"`},
		{[]string{"ui", "--wasm", "/nonexistent/servesim.wasm", "--out", t.TempDir()}, "--wasm"},
		{[]string{"ui", "--bogus"}, "unknown flag --bogus"},
	} {
		r := runCLI(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("servesim %s: exit %d, stderr %q, want %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}
