package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunSaysWrote: servesim run says on stderr which files it wrote, as
// bench does, and nothing when it writes none.
func TestRunSaysWrote(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte("requests: 50\nworkload: {arrival: {rate: 2}}\nslo: {ttft_ms: 2000}\n"), 0o644))
	html, svg := filepath.Join(dir, "r.html"), filepath.Join(dir, "p.svg")
	r := mustRun(t, "run", file, "--report", html, "--plot", svg, "--quiet")
	assert.Contains(t, r.stderr, "servesim: wrote "+svg+"\n")
	assert.Contains(t, r.stderr, "servesim: wrote "+html+"\n")
	assert.FileExists(t, html)
	r = mustRun(t, "run", file, "--quiet")
	assert.NotContains(t, r.stderr, "wrote")
}
