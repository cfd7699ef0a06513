package screen

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/cost"
)

// WriteTable writes one line per candidate — shape and per-rank memory,
// KV tokens, the λ* bracket and λ* per GPU, and, when commonRate > 0, the
// floor of attainment and per-card goodput at that rate — then the verdict.
func (rep *Report) WriteTable(w io.Writer, commonRate float64) error {
	var b strings.Builder
	common := ""
	if commonRate > 0 {
		common = fmt.Sprintf("at %g req/s: floor, G_card", commonRate)
	}
	fmt.Fprintf(&b, "%-9s %4s  %-42s %10s  %-18s %-16s %s\n", "candidate", "GPUs", "shape and memory per rank", "KV tokens", "lambda* (req/s)", "lambda*/GPU", common)
	for _, r := range rep.Rows {
		switch {
		case r.ShapeErr != "":
			fmt.Fprintf(&b, "%-9s %4d  impossible: %s\n", r.Candidate, r.GPUs, r.ShapeErr)
			continue
		case !r.Fits && r.Memory.KVPoolBytes <= 0:
			fmt.Fprintf(&b, "%-9s %4d  does not fit: weights %.1f GiB + runtime %.1f GiB > usable %.1f GiB\n",
				r.Candidate, r.GPUs, r.Memory.WeightBytes/cost.GiB, r.Memory.RuntimeBytes/cost.GiB, r.Memory.UsableBytes/cost.GiB)
			continue
		case !r.Fits:
			fmt.Fprintf(&b, "%-9s %4d  cannot run: %s\n", r.Candidate, r.GPUs, r.FitErr)
			continue
		}
		shape := fmt.Sprintf("%d heads, %d kv; weights %.1f + KV %.1f GiB",
			r.Shape.HeadsPerRank, r.Shape.KVHeadsPerRank, r.Memory.WeightBytes/cost.GiB, r.Memory.KVPoolBytes/cost.GiB)
		fmt.Fprintf(&b, "%-9s %4d  %-42s %10d  [%6.2f, %6s) [%5.2f, %6s)",
			r.Candidate, r.GPUs, shape, r.Memory.KVTokens, r.Search.Lower, rate(r.Search.Upper), r.LowerPerGPU, rate(r.UpperPerGPU))
		if commonRate > 0 {
			fmt.Fprintf(&b, " %6.2f%%, %5.0f tok/s/GPU", 100*r.CommonAttainment, r.CommonGoodputPerGPU)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "verdict: %s\n", rep.Verdict())
	_, err := io.WriteString(w, b.String())
	return err
}

func rate(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", x)
}
