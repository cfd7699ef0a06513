package calibrate

import (
	"math"
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

// TestVersionGaps: two vLLM versions measuring one setup more than 30%
// apart are each reported with both values; within 30%, other clients,
// another metric's gap or an unrecorded version are not.
func TestVersionGaps(t *testing.T) {
	t.Parallel()
	pt := func(c int, version string, ttftMS float64) Point {
		return Point{Model: "m", GPU: "b200", Precision: "fp4", TP: 2, Input: 1024, Output: 1024,
			Concurrency: c, BackendVersion: version, Measured: Metrics{TTFT: ttftMS / 1000, TPOT: 0.01}}
	}
	pts := []Point{
		pt(4, "0.19.0", 56),   // 0: 100.6 on nightly, +80%
		pt(4, "nightly", 100), // 1
		pt(8, "0.19.0", 66),   // 2: within 30% of 80
		pt(8, "nightly", 80),  // 3
		pt(16, "0.19.0", 50),  // 4: no other version at 16 clients
		pt(4, "", 200),        // 5: version unrecorded
	}
	got := VersionGaps(pts, TTFT)
	for i, want := range []bool{true, true, false, false, false, false} {
		if _, ok := got[i]; ok != want {
			t.Errorf("point %d: reported %v, want %v (%q)", i, ok, want, got[i])
		}
	}
	if why := got[1]; !strings.Contains(why, "100.0 ms on vLLM nightly, 56.0 ms on 0.19.0") || !strings.Contains(why, "+79%") {
		t.Errorf("point 1: %q", why)
	}
	if len(VersionGaps(pts, TPOT)) != 0 {
		t.Errorf("TPOT: %v, want no gaps", VersionGaps(pts, TPOT))
	}
}

// TestRepeats: pairs of one setup split by vLLM version, a run listed
// twice (to printed digits) counted once, unrecorded versions left out,
// other client counts never paired.
func TestRepeats(t *testing.T) {
	t.Parallel()
	pt := func(c int, version string, ttftMS, tpotMS float64) Point {
		return Point{Model: "m", GPU: "b200", Precision: "fp4", TP: 2, Input: 1024, Output: 1024,
			Concurrency: c, BackendVersion: version, Measured: Metrics{TTFT: ttftMS / 1000, TPOT: tpotMS / 1000}}
	}
	pts := []Point{
		pt(4, "0.19.0", 100, 10),
		pt(4, "0.19.0", 110, 11),
		pt(4, "0.19.0", 130, 12),
		pt(4, "0.19.0", 100.004, 10.003), // the first, listed again: no pair with it
		pt(4, "nightly", 200, 20),
		pt(8, "nightly", 300, 30), // no other run at 8 clients
		pt(4, "", 1000, 100),      // version unrecorded
	}
	same, across := Repeats(pts, TTFT)
	// One version: 110/100, 130/100, 130/110 and the listed-again run's
	// 110/100.004 and 130/100.004; the middle of the five is 130/110.
	if want := 130.0/110 - 1; same.Pairs != 5 || math.Abs(same.Median-want) > 1e-12 {
		t.Errorf("same version: %+v, want 5 pairs, median %.6f", same, want)
	}
	// Two versions: 200 against 100, 110, 130 and 100.004; the median is the
	// mean of the middle two, 200/110 and 200/100.004.
	if want := (200.0/110 - 1 + 200/100.004 - 1) / 2; across.Pairs != 4 || math.Abs(across.Median-want) > 1e-12 {
		t.Errorf("across versions: %+v, want 4 pairs, median %.6f", across, want)
	}
	if got, want := (Spread{Pairs: 1, Median: 0.44}).MiddleError(), 0.2; math.Abs(got-want) > 1e-12 {
		t.Errorf("MiddleError of a 44%% spread: %v, want %v (1.2 × 1.2 = 1.44)", got, want)
	}
}

// TestDuplicate: one run listed twice agrees on TTFT and TPOT to the
// digits printed (two decimals of a millisecond), whatever its derived
// E2E; separate runs, or a metric measured on one only, do not.
func TestDuplicate(t *testing.T) {
	t.Parallel()
	m := func(ttftMS, tpotMS float64) Point {
		// E2E as ReadSiliconCSV derives it, for 1024 output tokens.
		return Point{Measured: Metrics{TTFT: ttftMS / 1000, TPOT: tpotMS / 1000, E2E: (ttftMS + 1023*tpotMS) / 1000}}
	}
	for _, c := range []struct {
		name string
		p, q Point
		want bool
	}{
		{"identical", m(302.334, 7.4427), m(302.334, 7.4427), true},
		{"printed to two decimals", m(163.72509357752278, 7.423259694292521), m(163.73, 7.42), true},
		{"float noise", m(302.334, 7.442717309322941), m(302.334, 7.44271730932294), true},
		{"same TTFT, TPOT 1% apart", m(302.334, 7.44), m(302.334, 7.52), false},
		{"TTFT 0.01 ms apart", m(302.33, 7.44), m(302.34, 7.44), false},
		{"TPOT measured on one only", m(302.334, 7.44), m(302.334, 0), false},
		{"nothing measured", Point{}, Point{}, false},
	} {
		if got := Duplicate(c.p, c.q); got != c.want {
			t.Errorf("%s: Duplicate %v, want %v", c.name, got, c.want)
		}
	}
}
