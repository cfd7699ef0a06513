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

// TestDayExample runs two hours of the example (the full day with
// SERVESIM_STUDY=1, whose output must be docs/day.md's sample byte for
// byte). The fixed fleets cost exactly replicas × hours × price (Modal's
// H100 $0.001097/s and A100 $0.000694/s), start nothing, and no
// autoscaled fleet has more replicas than its max.
func TestDayExample(t *testing.T) {
	t.Parallel()
	hours := 2.0
	if os.Getenv("SERVESIM_STUDY") != "" {
		hours = 24
	}
	var b strings.Builder
	require.NoError(t, run(&b, 8, hours, ""))
	out := b.String()
	t.Log("\n" + out)
	if hours == 24 {
		doc, err := os.ReadFile("../../docs/day.md")
		require.NoError(t, err)
		assert.Contains(t, string(doc), out, "docs/day.md's sample output")
	}
	rows := regexp.MustCompile(`(?m)^\s*(\S+) (fixed|hpa-running|hpa-waiting)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)`).FindAllStringSubmatch(out, -1)
	require.Len(t, rows, 6)
	price := map[string]float64{"h100-sxm": 0.001097 * 3600, "a100-80gb": 0.000694 * 3600}
	fixed := map[string]int{"h100-sxm": 2, "a100-80gb": 3}
	most := map[string]int{"h100-sxm": 4, "a100-80gb": 6}
	for _, r := range rows {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(r[i], 64); return v }
		gpu := r[1]
		if r[2] == "fixed" {
			assert.InDelta(t, float64(fixed[gpu])*hours*price[gpu], f(3), 0.005, "%s fixed dollars", gpu)
			assert.InDelta(t, float64(fixed[gpu])*hours, f(4), 0.05, "%s fixed GPU-h", gpu)
			assert.Equal(t, 0.0, f(5), "%s fixed start-up GPU-h", gpu)
		}
		assert.LessOrEqual(t, int(f(8)), most[gpu], "%s %s max replicas", gpu, r[2])
		assert.Greater(t, f(6), 0.0, "kWh")
		assert.LessOrEqual(t, f(9), 100.0, "attainment")
	}
}
