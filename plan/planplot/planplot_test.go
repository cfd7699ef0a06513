package planplot_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/plan/planplot"
	"github.com/servesim/servesim/sim/metrics"
)

// result is a plan of three ranked candidates: the cheapest (a winner,
// on the frontier), a faster dearer one (on the frontier) and one that the
// first dominates (off it).
func result() *plan.Result {
	rank := func(name string, dollars, ttft, tpot float64, frontier bool) plan.Ranked {
		return plan.Ranked{
			Candidate:   plan.Candidate{Name: name, Settings: plan.Settings{GPU: "h100-sxm", TP: 1, Precision: cost.BF16, ChunkedPrefill: true}, GPUs: 1},
			Replicas:    2,
			CostPerHour: dollars,
			TTFT:        plan.Percentiles{P99: ttft},
			TPOT:        plan.Percentiles{P99: tpot},
			Frontier:    frontier,
		}
	}
	return &plan.Result{
		Rate:     20,
		Criteria: capacity.Criteria{SLO: metrics.SLO{TTFT: 0.5, TPOT: 0.05}},
		Ranked: []plan.Ranked{
			rank("a", 6, 0.30, 0.030, true),
			rank("b", 8, 0.10, 0.020, true),
			rank("c", 9, 0.40, 0.040, false),
		},
		Winners: 1,
	}
}

// TestCharts: two panels, each with every ranked point, the frontier's
// two labelled points, the one winner and the SLO's bound in ms.
func TestCharts(t *testing.T) {
	t.Parallel()
	cs := planplot.Charts(result())
	require.Len(t, cs, 2)
	for i, bound := range []float64{500, 50} {
		c := cs[i]
		require.Len(t, c.Lines, 3, c.Title)
		assert.Len(t, c.Lines[0].Points, 3)
		assert.Equal(t, []string{"h100-sxm tp1 bf16 x2", "h100-sxm tp1 bf16 x2"}, c.Lines[1].Labels)
		assert.Len(t, c.Lines[2].Points, 1)
		require.Len(t, c.Rules, 1)
		assert.InDelta(t, bound, c.Rules[0].Y, 1e-9)
		assert.Contains(t, c.Title, "20 req/s")
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"svg", "png"} {
		var img bytes.Buffer
		require.NoError(t, planplot.Write(&img, result(), format))
		assert.Greater(t, img.Len(), 1000, format)
	}
	var svg bytes.Buffer
	require.NoError(t, planplot.Write(&svg, result(), "svg"))
	assert.True(t, strings.Contains(svg.String(), "Pareto frontier"))
	var img bytes.Buffer
	assert.ErrorIs(t, planplot.Write(&img, result(), "gif"), plan.ErrInvalid)
}

// Example draws a plan's frontier as SVG.
func Example() {
	r := &plan.Result{Rate: 10, Criteria: capacity.Criteria{SLO: metrics.SLO{TPOT: 0.05}},
		Ranked: []plan.Ranked{{Candidate: plan.Candidate{Name: "one", Settings: plan.Settings{GPU: "h100-sxm", TP: 1, Precision: cost.BF16, ChunkedPrefill: true}, GPUs: 1},
			Replicas: 1, CostPerHour: 3, TTFT: plan.Percentiles{P99: 0.2}, TPOT: plan.Percentiles{P99: 0.02}, Frontier: true}},
		Winners: 1}
	var svg bytes.Buffer
	if err := planplot.Write(&svg, r, "svg"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<svg"), len(planplot.Charts(r)))
	// Output: true 2
}
