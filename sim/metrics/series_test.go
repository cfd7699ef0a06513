package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeriesBounded: a series never exceeds MaxSeriesPoints, keeps its
// times increasing and spans the whole run.
func TestSeriesBounded(t *testing.T) {
	t.Parallel()
	s := NewSeries("x", 0.5, "a", "b")
	for i := range 100_000 {
		ti := float64(i) * 0.1
		s.Record(ti, ti, 2*ti)
	}
	require.LessOrEqual(t, len(s.Times), MaxSeriesPoints)
	require.Greater(t, len(s.Times), MaxSeriesPoints/2)
	for i := 1; i < len(s.Times); i++ {
		require.Less(t, s.Times[i-1], s.Times[i])
		require.Equal(t, 2*s.Values[i][0], s.Values[i][1])
	}
	assert.Equal(t, 0.0, s.Times[0])
	assert.Greater(t, s.Times[len(s.Times)-1], 9000.0)
}
