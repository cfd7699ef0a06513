package main

import (
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
