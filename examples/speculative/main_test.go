package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpeculativeExample runs a reduced example: speculative decoding
// must cut TPOT at 1 req/s by more than a third, and stop paying at a
// lower rate with more draft tokens (more verify work per sequence).
func TestSpeculativeExample(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b, 600, 1, []int{2, 5}, []float64{1, 10, 20, 30}, ""))
	out := b.String()
	t.Log("\n" + out)
	rows := regexp.MustCompile(`(?m)^\s*(\d+)\s+1\s+([\d.]+)\s+([\d.]+)`).FindAllStringSubmatch(out, -1)
	require.Len(t, rows, 2)
	for _, r := range rows {
		off, _ := strconv.ParseFloat(r[2], 64)
		on, _ := strconv.ParseFloat(r[3], 64)
		assert.Less(t, on, off*2/3, "k=%s at 1 req/s", r[1])
	}
	cross := map[string]float64{}
	for _, m := range regexp.MustCompile(`k=(\d+) (?:stops paying at ([\d.]+) req/s|pays at every rate tried)`).FindAllStringSubmatch(out, -1) {
		c, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			c = 1e9 // pays everywhere
		}
		cross[m[1]] = c
	}
	require.Len(t, cross, 2)
	assert.Less(t, cross["5"], cross["2"])
	assert.Less(t, cross["5"], 30.0, "k=5 stops paying below 30 req/s")
}

const (
	docBegin = "<!-- spec-example: go run ./examples/speculative; checked by SERVESIM_EXAMPLE_DOCS=1 go test ./examples/speculative, SERVESIM_WRITE_DOCS=1 rewrites it and the chart -->\n"
	docEnd   = "<!-- /spec-example -->"
)

// TestSpeculativeDocs checks that docs/speculative.md shows what the
// example prints at its defaults (1,500 requests a run, seed 1, k = 2 to
// 5, eight rates). It takes a few seconds, so it runs only with
// SERVESIM_EXAMPLE_DOCS=1 (the reduced TestSpeculativeExample runs
// always); SERVESIM_WRITE_DOCS=1 rewrites the block and
// docs/speculative.svg.
func TestSpeculativeDocs(t *testing.T) {
	write := os.Getenv("SERVESIM_WRITE_DOCS") == "1"
	if os.Getenv("SERVESIM_EXAMPLE_DOCS") != "1" && !write {
		t.Skip("set SERVESIM_EXAMPLE_DOCS=1 to check docs/speculative.md against the example")
	}
	const path = "../../docs/speculative.md"
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), docBegin)
	require.True(t, ok, "no %q in %s", docBegin, path)
	_, after, ok := strings.Cut(rest, docEnd)
	require.True(t, ok, "no %q in %s", docEnd, path)
	plot := ""
	if write {
		plot = "../../docs/speculative.svg"
	}
	var b strings.Builder
	require.NoError(t, run(&b, 1500, 1, []int{2, 3, 4, 5}, []float64{1, 5, 10, 15, 20, 25, 30, 40}, plot))
	block := "```\n" + b.String() + "```\n"
	if write {
		require.NoError(t, os.WriteFile(path, []byte(before+docBegin+block+docEnd+after), 0o644))
		return
	}
	require.Equal(t, block, rest[:len(rest)-len(after)-len(docEnd)], "docs/speculative.md is stale: run SERVESIM_WRITE_DOCS=1 go test ./examples/speculative -run TestSpeculativeDocs")
}
