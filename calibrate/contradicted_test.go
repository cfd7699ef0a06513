package calibrate

import (
	"strings"
	"testing"
)

// TestContradicted: a decode of many clients measured faster than the
// same setup's fastest at an eighth to all of its clients is flagged; a
// slow outlier does not condemn the points above it, other setups (a
// model, TP or KV cache) and
// concurrencies more than 8 times smaller are not compared, and vLLM
// versions are not told apart.
func TestContradicted(t *testing.T) {
	t.Parallel()
	pt := func(model string, tp, c int, version string, tpotMS float64) Point {
		return Point{Model: model, GPU: "h100-sxm", Precision: "fp4", TP: tp, Input: 1024, Output: 1024,
			Concurrency: c, BackendVersion: version, Measured: Metrics{TPOT: tpotMS / 1000}}
	}
	pts := []Point{
		pt("m", 4, 4, "0.18.0", 4.0),   // 0
		pt("m", 4, 16, "0.18.0", 5.8),  // 1
		pt("m", 4, 32, "0.18.0", 15.9), // 2: slow outlier
		pt("m", 4, 64, "0.18.0", 9.7),  // 3: above 0.75 × 5.8, kept
		pt("m", 4, 512, "", 4.7),       // 4: below 0.75 × 9.7 (c64 is its only point in [64, 512))
		pt("m", 8, 512, "", 4.7),       // 5: another TP, nothing to compare
		pt("n", 4, 512, "", 4.7),       // 6: another model
		pt("m", 4, 40, "0.11.2", 4.3),  // 7: below 0.75 × 5.8 (c16), another version
		pt("m", 4, 1024, "", 4.0),      // 8: another KV cache, nothing to compare
	}
	pts[8].KVCache = "fp8"
	got := Contradicted(pts)
	for i, want := range []bool{false, false, false, false, true, false, false, true, false} {
		if _, flagged := got[i]; flagged != want {
			t.Errorf("point %d (tp%d c%d %.1f ms): flagged %v, want %v (%q)", i, pts[i].TP, pts[i].Concurrency, 1000*pts[i].Measured.TPOT, flagged, want, got[i])
		}
	}
	if why := got[4]; !strings.Contains(why, "9.70 ms at 64") {
		t.Errorf("point 4: %q does not name the point it contradicts", why)
	}
}
