package calibrate

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repeatSpread groups aiconfigurator's rows by setup (vLLM version, model,
// GPU, precisions, lengths, clients, scheduler limits and parallelism) and
// returns, over the setups measured more than once with results that
// differ (by more than 1e-4 relative: the CSV's copies of a row agree to
// its rounding), how many there are, the median ratio of their largest to
// smallest value, and how many differ by more than over.
func repeatSpread(pts []Point, value func(Point) float64, over float64) (setups int, mid float64, above int) {
	type key struct {
		version, model, gpu, precision, kv string
		in, out, clients, seqs, budget, tp int
		dp, ep                             int
	}
	by := map[key][]float64{}
	for _, p := range pts {
		k := key{p.BackendVersion, p.Model, p.GPU, p.Precision, p.KVCache, p.Input, p.Output, p.Concurrency,
			p.MaxNumSeqs, p.MaxNumBatchedTokens, p.TP, p.DP, p.EP}
		by[k] = append(by[k], value(p))
	}
	var ratios []float64
	for _, v := range by {
		lo, hi := slices.Min(v), slices.Max(v)
		if len(v) < 2 || hi <= lo*(1+1e-4) {
			continue
		}
		ratios = append(ratios, hi/lo)
		if hi/lo > over {
			above++
		}
	}
	return len(ratios), median(ratios), above
}

// TestRepeatSpreadDoc recomputes docs/cost-model.md's account of how far
// aiconfigurator's repeated measurements of one setup differ: the floor
// that measurement repeatability puts under any model's TTFT and TPOT
// error on them.
func TestRepeatSpreadDoc(t *testing.T) {
	t.Parallel()
	pts := silicon(t)
	n, ttft, over := repeatSpread(pts, func(p Point) float64 { return p.Measured.TTFT }, 1.2)
	m, tpot, _ := repeatSpread(pts, func(p Point) float64 { return p.Measured.TPOT }, 1.1)
	want := fmt.Sprintf("aiconfigurator's CSV measures %d setups more than once with differing\nresults", n) +
		fmt.Sprintf(" (same vLLM version, model, GPU, precisions, lengths, clients,\nbatch and parallelism; most repeated rows are copies): their TTFTs differ\nby a median of %.0f%% (largest over smallest), their TPOTs by %.1f%%, and only %d\nsetups by more than 20%%", 100*(ttft-1), 100*(tpot-1), over)
	t.Logf("TTFT: %d setups, median ratio %.4f, %d over 1.2; TPOT: %d setups, median ratio %.4f", n, ttft, over, m, tpot)
	doc, err := os.ReadFile("../docs/cost-model.md")
	require.NoError(t, err)
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/cost-model.md's repeat spread is stale; want:\n%s", want)
	}
}
