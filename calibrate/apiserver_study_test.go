package calibrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/stretchr/testify/require"
)

// apiServerStudy re-simulates the published vLLM runs (catalog profiles)
// without and with an API server process (batching.APIServer) in front of
// the engine, and returns docs/cost-model.md's table of the median |error|
// of mean TPOT and TTFT per group of runs.
func apiServerStudy(t *testing.T) string {
	groups := []struct {
		name string
		of   func(Point) bool
	}{
		{"gpustack A100 bursts (10)", func(p Point) bool { return p.GPU == "a100-80gb" }},
		{"gpustack H100 bursts (10)", func(p Point) bool {
			return p.GPU == "h100-sxm" && p.BackendVersion == "0.11.0" && p.MaxConcurrency == 0
		}},
		{"gpustack H100 Qwen3-8B, 1-8 clients (4)", func(p Point) bool { return p.BackendVersion == "0.11.0" && p.MaxConcurrency > 0 }},
		{"vLLM blog, 8 clients (5)", func(p Point) bool { return p.BackendVersion == "0.19.1" }},
	}
	variants := []struct {
		name string
		api  batching.APIServer
	}{
		{"none (a 9.7 ms delay)", batching.APIServer{}},
		{"20 ms a request", batching.APIServer{PerRequest: 0.020}},
		{"20 ms + 1 µs a prompt token + 150 µs an output token", batching.APIServer{PerRequest: 0.020, PerPromptToken: 1e-6, PerOutputToken: 150e-6}},
	}
	var b strings.Builder
	b.WriteString("| API server | " + groups[0].name)
	for _, g := range groups[1:] {
		b.WriteString(" | " + g.name)
	}
	b.WriteString(" |\n|---|" + strings.Repeat("---:|", len(groups)) + "\n")
	pts := publicVLLM(t)
	for _, v := range variants {
		s := Simulator{ModelDir: modelDir(t), Adjust: func(_ Point, c *batching.Config) error {
			c.APIServer = v.api
			return nil
		}}
		fmt.Fprintf(&b, "| %s |", v.name)
		for _, g := range groups {
			var rs []Residual
			for _, p := range pts {
				if !g.of(p) {
					continue
				}
				gpu, err := cost.GPU(p.GPU)
				require.NoError(t, err)
				r, err := s.Residuals([]Point{p}, cost.DefaultProfile(gpu), []Metric{TPOT, TTFT})
				require.NoError(t, err)
				rs = append(rs, r...)
			}
			tp, _ := MedianAbsError(rs, TPOT)
			tt, _ := MedianAbsError(rs, TTFT)
			fmt.Fprintf(&b, " %s / %s |", pct(tp), pct(tt))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestAPIServerStudyDoc keeps docs/cost-model.md's API server table true.
func TestAPIServerStudyDoc(t *testing.T) {
	t.Parallel()
	requireInDoc(t, "cost-model.md", "API server table", apiServerStudy(t))
}
