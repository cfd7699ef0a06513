package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCapacityExample runs the example as shipped: it must find a bracket
// of the stated precision whose ends are probed rates, with passing probes
// below it and failing ones from its upper end on. Each row's floor is the
// least of its replications' attainments; a passing row has every
// replication at the 99% target or above (a failing one may not: a run
// also fails on a growing queue, or stops early once it has missed too
// often), and the lower end was confirmed with the 5 boundary
// replications.
func TestCapacityExample(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b, 4000, 3, 5, 0.05, 1))
	out := b.String()
	t.Log("\n" + out)
	m := regexp.MustCompile(`lambda\* in \[([\d.]+), ([\d.]+)\) req/s`).FindStringSubmatch(out)
	require.NotNil(t, m, "bracket line")
	lo, _ := strconv.ParseFloat(m[1], 64)
	hi, _ := strconv.ParseFloat(m[2], 64)
	assert.LessOrEqual(t, (hi-lo)/lo, 0.05)
	rows := regexp.MustCompile(`(?m)^\s+([\d.]+)\s+(PASS|FAIL)[*+]?\s+([\d.]+)%\s+((?:[\d.]+%\*? ?)+)`).FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, rows)
	rates := map[float64]int{} // rate → replications
	for _, r := range rows {
		rate, _ := strconv.ParseFloat(r[1], 64)
		floor, _ := strconv.ParseFloat(r[3], 64)
		least := 100.0
		atts := strings.Fields(r[4])
		for _, a := range atts {
			v, _ := strconv.ParseFloat(strings.TrimRight(a, "%*"), 64)
			least = min(least, v)
		}
		rates[rate] = len(atts)
		assert.Equal(t, floor, least, "rate %v: floor is the least attainment", rate)
		assert.False(t, r[2] == "PASS" && floor < 99, "rate %v passes with floor %v%%", rate, floor)
		assert.False(t, rate <= lo && r[2] != "PASS", "rate %v at or below the lower end fails", rate)
		assert.False(t, rate >= hi && r[2] != "FAIL", "rate %v at or above the upper end passes", rate)
	}
	assert.Equal(t, 5, rates[lo], "replications at the lower end %v", lo)
	assert.Contains(t, rates, hi, "the upper end is a probed rate")
}
