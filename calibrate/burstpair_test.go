package calibrate

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/stretchr/testify/require"
)

// burstPairs returns docs/cost-model.md's table of gpustack's bursts that
// were run on both an A100 80GB and an H100 SXM (same model, lengths and
// prompts, one vLLM): how much faster the H100 finished, measured
// (output throughput over output throughput) and simulated under the
// catalog profiles, and the H100 run's measured over simulated duration.
func burstPairs(t *testing.T) string {
	s := Simulator{ModelDir: modelDir(t)}
	byKey := map[string]map[string]Point{}
	for _, p := range publicVLLM(t) {
		if p.MaxConcurrency != 0 || p.Measured.OutputThroughput == 0 || (p.GPU != "a100-80gb" && p.GPU != "h100-sxm") {
			continue
		}
		key := fmt.Sprintf("%s %dx%d, %d prompts", strings.TrimPrefix(p.Model, "Qwen/"), p.Input, p.Output, p.NumPrompts)
		if byKey[key] == nil {
			byKey[key] = map[string]Point{}
		}
		byKey[key][p.GPU] = p
	}
	keys := make([]string, 0, len(byKey))
	for k, m := range byKey {
		if len(m) == 2 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	predict := func(p Point) float64 {
		gpu, err := cost.GPU(p.GPU)
		require.NoError(t, err)
		m, err := s.Predict([]Point{p}, cost.DefaultProfile(gpu))
		require.NoError(t, err)
		return m[0].OutputThroughput
	}
	var b strings.Builder
	b.WriteString("| run | H100 over A100, measured | simulated | H100 measured duration over simulated |\n|---|---:|---:|---:|\n")
	for _, k := range keys {
		a, h := byKey[k]["a100-80gb"], byKey[k]["h100-sxm"]
		pa, ph := predict(a), predict(h)
		fmt.Fprintf(&b, "| %s | %.2f× | %.2f× | %.2f× |\n", k,
			h.Measured.OutputThroughput/a.Measured.OutputThroughput, ph/pa, ph/h.Measured.OutputThroughput)
	}
	return b.String()
}

// TestBurstPairsDoc keeps docs/cost-model.md's A100-against-H100 table true.
func TestBurstPairsDoc(t *testing.T) {
	t.Parallel()
	requireInDoc(t, "cost-model.md", "burst pairs table", burstPairs(t))
}
