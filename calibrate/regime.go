package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/servesim/servesim/cost"
)

// Regime is the cell of docs/fidelity.md's regime table a run falls in:
// model class, tensor parallelism, weight precision and load.
type Regime struct {
	// Model is "dense <=10B", "dense 10-40B", "dense >40B" (by total
	// parameters) or "MoE".
	Model string
	// TP is "TP 1" or "TP >1".
	TP string
	// Precision is the weight precision family: "BF16", "FP8" or "FP4"
	// (NVFP4, MXFP4 and INT4 weights: 4-bit).
	Precision string
	// Load is "light" (at most LowLoad requests in flight, InFlight) or
	// "heavy".
	Load string
}

// String writes the regime as "dense <=10B, TP 1, BF16, light".
func (r Regime) String() string {
	return strings.Join([]string{r.Model, r.TP, r.Precision, r.Load}, ", ")
}

// RegimeOf returns pt's regime, reading its model's size from the
// engine Simulator.Engine builds (so the model must resolve).
func (s Simulator) RegimeOf(pt Point) (Regime, error) {
	g, err := cost.GPU(pt.GPU)
	if pt.Engine != nil {
		g, err = pt.Engine.Deployment.GPU, nil
	}
	if err != nil {
		return Regime{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	eng, err := s.Engine(pt, cost.DefaultProfile(g))
	if err != nil {
		return Regime{}, err
	}
	m := eng.Deployment.Model
	r := Regime{TP: "TP 1", Load: "light", Precision: "BF16"}
	switch params := m.TotalParams(); {
	case m.Experts > 0:
		r.Model = "MoE"
	case params <= 10e9:
		r.Model = "dense <=10B"
	case params <= 40e9:
		r.Model = "dense 10-40B"
	default:
		r.Model = "dense >40B"
	}
	if eng.Deployment.TP > 1 {
		r.TP = "TP >1"
	}
	switch p := strings.ToLower(pt.Precision); {
	case strings.Contains(p, "fp8"), p == "int8":
		r.Precision = "FP8"
	case strings.Contains(p, "4"):
		r.Precision = "FP4"
	}
	if n := InFlight(pt); n > LowLoad || n == 0 && math.IsInf(pt.Rate, 1) {
		r.Load = "heavy"
	}
	return r, nil
}

// RegimeTable writes the median and worst |error| of TPOT and TTFT per
// regime cell as a Markdown table, cells in the order model class, TP,
// precision, load; a cell's row count is its runs with a TPOT residual.
// regime maps each residual's point to its cell (points for which it
// returns false are left out).
func RegimeTable(rs []Residual, regime func(Point) (Regime, bool)) string {
	type cell struct{ tpot, ttft []float64 }
	cells := map[Regime]*cell{}
	for _, r := range rs {
		g, ok := regime(r.Point)
		if !ok {
			continue
		}
		c := cells[g]
		if c == nil {
			c = &cell{}
			cells[g] = c
		}
		switch r.Metric {
		case TPOT:
			c.tpot = append(c.tpot, math.Abs(r.Error()))
		case TTFT:
			c.ttft = append(c.ttft, math.Abs(r.Error()))
		}
	}
	order := map[string]int{"dense <=10B": 0, "dense 10-40B": 1, "dense >40B": 2, "MoE": 3, "TP 1": 0, "TP >1": 1,
		"BF16": 0, "FP8": 1, "FP4": 2, "light": 0, "heavy": 1}
	keys := make([]Regime, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		for _, f := range [][2]string{{a.Model, b.Model}, {a.TP, b.TP}, {a.Precision, b.Precision}, {a.Load, b.Load}} {
			if order[f[0]] != order[f[1]] {
				return order[f[0]] < order[f[1]]
			}
		}
		return false
	})
	stat := func(xs []float64) (string, string) {
		if len(xs) == 0 {
			return "–", "–"
		}
		worst := 0.0
		for _, x := range xs {
			worst = max(worst, x)
		}
		return fmt.Sprintf("%.1f%%", 100*median(xs)), fmt.Sprintf("%.1f%%", 100*worst)
	}
	var b strings.Builder
	b.WriteString("| model | TP | precision | load | rows | TPOT median | TPOT worst | TTFT median | TTFT worst |\n|---|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		c := cells[k]
		tm, tw := stat(c.tpot)
		fm, fw := stat(c.ttft)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s |\n", k.Model, k.TP, k.Precision, k.Load, max(len(c.tpot), len(c.ttft)), tm, tw, fm, fw)
	}
	return b.String()
}
