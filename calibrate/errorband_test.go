package calibrate

import (
	"os"
	"path/filepath"
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

// requireInDoc fails t unless docs/<doc> contains want, naming what is
// stale and printing want to paste in.
func requireInDoc(t *testing.T, doc, what, want string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "docs", doc))
	require.NoError(t, err)
	if !strings.Contains(string(text), want) {
		t.Errorf("docs/%s's %s is stale; want:\n%s", doc, what, want)
	}
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

// TestBorrowedProfile measures the band cost.Profile.Pricing prints for a
// GPU without a profile on the one such run visible (LLMServingSim's RTX
// 4090 replay), and checks the choice of H100's numbers as the carry-over:
// a same-memory-class card's (L40S, GDDR6 Ada; RTX PRO 6000, GDDR7) do
// worse on that run.
func TestBorrowedProfile(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	var pts []Point
	for _, p := range llmServingSimRuns(t) {
		if p.GPU == "rtx4090" {
			pts = append(pts, p)
		}
	}
	require.Len(t, pts, 1)
	g, err := cost.GPU("rtx4090")
	require.NoError(t, err)
	errs := func(p cost.Profile) (tpot, ttft float64) {
		rs, err := s.Residuals(pts, p, []Metric{TPOT, TTFT})
		require.NoError(t, err)
		tpot, _ = MedianAbsError(rs, TPOT)
		ttft, _ = MedianAbsError(rs, TTFT)
		return tpot, ttft
	}
	carry := cost.DefaultProfile(g)
	tpot, ttft := errs(carry)
	bands := cost.MeasuredError(carry)
	require.Len(t, bands, 1)
	assert.InDelta(t, bands[0].TPOT, tpot, 0.0006)
	assert.InDelta(t, bands[0].TTFT, ttft, 0.0006)
	for _, name := range []string{"l40s", "rtxpro6000"} {
		p, err := catalogProfile(name)
		require.NoError(t, err)
		p.GPU = "rtx4090"
		other, _ := errs(p)
		assert.Greater(t, other, tpot+0.05, "%s's numbers on the RTX 4090", name)
	}
}
