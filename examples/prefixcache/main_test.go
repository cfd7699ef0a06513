package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/internal/shareddata"
)

// TestPrefixCacheExample runs the example on the trace's first 150 s
// and checks its table: no hits without caching, some with it, at least as
// many with prefix-aware routing as with round-robin (the router sends a
// request where its prefix is cached), and a λ* bracket on every row.
func TestPrefixCacheExample(t *testing.T) {
	path := shareddata.Path(t, "mooncake_conversation_trace.jsonl")
	var b strings.Builder
	require.NoError(t, run(&b, path, 0, 150, 0.5))
	out := b.String()
	t.Log("\n" + out)
	row := regexp.MustCompile(`(?m)^(.{26}) +([\d.]+)% +([\d.]+)s +([\d.]+)s +[\d.]+/s +\[([\d.]+), ([\d.]+)\)$`)
	rows := map[string][]float64{}
	for _, m := range row.FindAllStringSubmatch(out, -1) {
		var v []float64
		for _, s := range m[2:] {
			x, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err)
			v = append(v, x)
		}
		rows[strings.TrimSpace(m[1])] = v
	}
	require.Len(t, rows, 4, "one row per setup, each with a bracket")
	off, on := rows["1 replica, no caching"], rows["1 replica, caching"]
	rr, pa := rows["4 replicas, round-robin"], rows["4 replicas, prefix-aware"]
	assert.Zero(t, off[0], "no caching, no hits")
	assert.Positive(t, on[0])
	assert.Positive(t, rr[0])
	assert.GreaterOrEqual(t, pa[0], rr[0], "prefix-aware hits at least as often as round-robin")
	for name, v := range rows {
		assert.LessOrEqual(t, v[1], v[2], "%s: TTFT p50 <= p99", name)
		assert.Less(t, v[3], v[4], "%s: bracket", name)
	}
}
