package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPDPlan: on the prefill-heavy workload the H100-prefill/A100-decode
// split is cheaper than every colocated deployment that passes; on the
// decode-heavy one a colocated deployment is cheaper than the split.
func TestPDPlan(t *testing.T) {
	cases, err := Study(400, 1)
	require.NoError(t, err)
	var b strings.Builder
	write(&b, cases)
	t.Log("\n" + b.String())
	require.Len(t, cases, 2)
	heavy, light := cases[0], cases[1]
	require.True(t, heavy.PD.Found)
	if best, ok := heavy.Best(); ok {
		assert.Less(t, heavy.PD.CostPerHour, best.Cost, "prefill-heavy: P/D is cheaper")
	}
	best, ok := light.Best()
	require.True(t, ok)
	if light.PD.Found {
		assert.Less(t, best.Cost, light.PD.CostPerHour, "decode-heavy: colocated is cheaper")
	}
	assert.Contains(t, b.String(), "toy_proxy_server.py --port 8000 --prefiller-hosts localhost localhost --prefiller-ports 8100 8101")
}
