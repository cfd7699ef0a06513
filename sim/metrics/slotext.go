package metrics

import (
	"fmt"
	"strings"
)

// String describes the bounds set, in milliseconds: "TTFT <= 200 ms, TPOT
// <= 50 ms" ("" when none is set).
func (s SLO) String() string { return BoundsText(1000*s.TTFT, 1000*s.TPOT, 1000*s.E2E) }

// BoundsText describes SLO bounds given in milliseconds (0: not set), as
// SLO.String does.
func BoundsText(ttftMS, tpotMS, e2elMS float64) string {
	var parts []string
	for _, b := range []struct {
		name string
		ms   float64
	}{{"TTFT", ttftMS}, {"TPOT", tpotMS}, {"E2EL", e2elMS}} {
		if b.ms > 0 {
			parts = append(parts, fmt.Sprintf("%s <= %g ms", b.name, b.ms))
		}
	}
	return strings.Join(parts, ", ")
}
