package cost_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDatasheetHeldOutRTX4090 replays the one visible serving run of a
// GPU without per-operator data, LLMServingSim's Llama-3.1-8B run on an
// RTX 4090 (../calibrate/testdata/llmservingsim, held out: nothing was
// fitted on it), and checks the errors the datasheet profiles state for
// it: the RTX 4090's own band, and the band of the GDDR profiles without
// a published decode (the RTX 4090 profile at the class's bandwidth). It
// also pins the finding that the memory class alone, without the card's
// published microbenchmarks, does worse on this run than H100's numbers.
func TestDatasheetHeldOutRTX4090(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "calibrate", "testdata", "llmservingsim", "rtx4090-llama-3.1-8b")
	meta, err := os.Open(filepath.Join(dir, "meta.json"))
	require.NoError(t, err)
	defer meta.Close()
	reqs, err := os.Open(filepath.Join(dir, "requests.jsonl"))
	require.NoError(t, err)
	defer reqs.Close()
	run, err := calibrate.ReadLLMServingSimRun(meta, reqs, filepath.Base(dir))
	require.NoError(t, err)
	s := calibrate.Simulator{ModelDir: shareddata.Path(t, "model_configs")}
	errs := func(p cost.Profile) (tpot, ttft float64) {
		rs, err := s.Residuals([]calibrate.Point{run}, p, []calibrate.Metric{calibrate.TPOT, calibrate.TTFT})
		require.NoError(t, err)
		tpot, _ = calibrate.MedianAbsError(rs, calibrate.TPOT)
		ttft, _ = calibrate.MedianAbsError(rs, calibrate.TTFT)
		return tpot, ttft
	}
	g, err := cost.GPU("rtx4090")
	require.NoError(t, err)
	p := cost.DefaultProfile(g)
	require.Contains(t, p.Pricing(), "DATASHEET profile", "rtx4090 has no measured profile: the datasheet rule builds it")
	tpot, ttft := errs(p)
	own := cost.MeasuredError(p)
	require.Len(t, own, 1)
	assert.InDelta(t, own[0].TPOT, tpot, 0.0006)
	assert.InDelta(t, own[0].TTFT, ttft, 0.0006)

	// The GDDR class's bandwidth (the rule without a published decode).
	l4, err := cost.GPU("l4")
	require.NoError(t, err)
	classBW := cost.DefaultProfile(l4).Bandwidth
	q := p
	q.Attention.Decode *= classBW / p.Bandwidth
	q.Bandwidth = classBW
	q.SamplingPerVocab = 16 / (g.BandwidthBytesPerS * classBW)
	ctpot, cttft := errs(q)
	l4Bands := cost.MeasuredError(cost.DefaultProfile(l4))
	require.Len(t, l4Bands, 2)
	assert.InDelta(t, l4Bands[1].TPOT, ctpot, 0.0006)
	assert.InDelta(t, l4Bands[1].TTFT, cttft, 0.0006)

	// The class alone: also the class's GEMM and prefill attention, the
	// medians (here means) of the two GDDR files.
	r := q
	r.GEMM.Max, r.Attention.Prefill = 0, 0
	for _, name := range []string{"l40s", "rtxpro6000"} {
		c, err := cost.EmbeddedProfile(name)
		require.NoError(t, err)
		r.GEMM.Max += c.GEMM.Max / 2
		r.Attention.Prefill += c.Attention.Prefill / 2
	}
	alone, aloneTTFT := errs(r)
	h, err := cost.EmbeddedProfile("h100-sxm")
	require.NoError(t, err)
	h.GPU = "rtx4090"
	borrowed, borrowedTTFT := errs(h)
	t.Logf("RTX 4090 TPOT, TTFT: datasheet %.1f%%, %.1f%%; class bandwidth %.1f%%, %.1f%%; class alone %.1f%%, %.1f%%; H100's numbers %.1f%%, %.1f%%", 100*tpot, 100*ttft, 100*ctpot, 100*cttft, 100*alone, 100*aloneTTFT, 100*borrowed, 100*borrowedTTFT)
	assert.Greater(t, alone, borrowed, "the memory class alone beats H100's numbers: revisit docs/cost-model.md#profiles-from-datasheets")
	assert.Less(t, tpot, borrowed/2)
}
