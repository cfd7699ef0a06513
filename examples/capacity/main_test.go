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
// of the stated precision, with passing probes below it and failing ones
// from its upper end on.
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
	rows := regexp.MustCompile(`(?m)^\s+([\d.]+)\s+(PASS|FAIL)\s`).FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, rows)
	for _, r := range rows {
		rate, _ := strconv.ParseFloat(r[1], 64)
		if rate <= lo {
			assert.Equal(t, "PASS", r[2], "rate %v", rate)
		}
		if rate >= hi {
			assert.Equal(t, "FAIL", r[2], "rate %v", rate)
		}
	}
}
