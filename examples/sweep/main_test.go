package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweep runs the example and checks its shape: seven concurrency rows,
// throughput rising with C, the roofline floors of
// docs/reference-numbers.md#roofline-floors in the last column, and ITL
// never below the floor.
func TestSweep(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b, 500, 1))
	out := b.String()
	t.Log("\n" + out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 10)
	floors := map[int]float64{1: 14.09, 8: 14.55, 32: 16.13, 64: 18.22}
	prev := 0.0
	for _, line := range lines[2:9] {
		f := strings.Fields(line)
		require.Len(t, f, 13)
		c, _ := strconv.Atoi(f[0])
		tput, _ := strconv.ParseFloat(f[1], 64)
		itl50, _ := strconv.ParseFloat(f[4], 64)
		floor, _ := strconv.ParseFloat(f[12], 64)
		assert.Greater(t, tput, prev, "throughput rises with C=%d", c)
		prev = tput
		assert.GreaterOrEqual(t, itl50, floor, "C=%d: ITL below the roofline floor", c)
		if want, ok := floors[c]; ok {
			assert.InDelta(t, want, floor, 0.005, "C=%d floor", c)
		}
	}
}
