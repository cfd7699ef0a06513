package calibrate

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publicVLLM returns the vLLM rows of public_serving_runs.csv (SGLang's
// kept apart).
func publicVLLM(t testing.TB) []Point {
	var out []Point
	for _, p := range publicRuns(t) {
		if !IsSGLang(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestProfileErrorBands recomputes the measured errors that
// cost.Profile.Pricing prints for the published runs: each catalog
// profile's median |error| of TPOT and TTFT on the public vLLM runs of
// its GPU and vLLM version band, under the default knobs. The
// aiconfigurator figures are the full study's (TestFidelityFull).
func TestProfileErrorBands(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	for _, tc := range []struct {
		gpu, version, band string
	}{{"h100-sxm", "0.11.0", "gpustack"}, {"h100-sxm", "0.19.1", "vLLM blog"}, {"a100-80gb", "0.11.0", "gpustack"}} {
		var pts []Point
		for _, p := range publicVLLM(t) {
			if p.GPU == tc.gpu && p.BackendVersion == tc.version {
				pts = append(pts, p)
			}
		}
		g, err := cost.GPU(tc.gpu)
		require.NoError(t, err)
		prof := cost.DefaultProfile(g)
		rs, err := s.Residuals(pts, prof, []Metric{TPOT, TTFT})
		require.NoError(t, err)
		tpot, n := MedianAbsError(rs, TPOT)
		ttft, _ := MedianAbsError(rs, TTFT)
		var band *cost.ErrorBand
		for _, b := range cost.MeasuredError(prof) {
			if strings.Contains(b.On, tc.band) {
				band = &b
			}
		}
		require.NotNil(t, band, "%s has no %s band", tc.gpu, tc.band)
		assert.Equal(t, band.Runs, n, "%s %s", tc.gpu, tc.version)
		assert.InDelta(t, band.TPOT, tpot, 0.0006, "%s %s TPOT", tc.gpu, tc.version)
		assert.InDelta(t, band.TTFT, ttft, 0.0006, "%s %s TTFT", tc.gpu, tc.version)
	}
}
