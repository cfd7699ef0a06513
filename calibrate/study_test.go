package calibrate

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func summary(rs []Residual) string {
	var b strings.Builder
	for _, m := range []Metric{TPOT, TTFT} {
		e, n := MedianAbsError(rs, m)
		fmt.Fprintf(&b, "%s %.1f%% (n=%d) ", m, 100*e, n)
	}
	for _, tp := range []int{2, 4, 8} {
		var sub []Residual
		for _, r := range rs {
			if r.Point.TP == tp {
				sub = append(sub, r)
			}
		}
		a, _ := MedianAbsError(sub, TPOT)
		c, _ := MedianAbsError(sub, TTFT)
		fmt.Fprintf(&b, "| tp%d tpot %.1f%% ttft %.1f%% ", tp, 100*a, 100*c)
	}
	return b.String()
}

// TestStudy prints every row's error under the catalog profile and, with
// SERVESIM_STUDY=fit, a staged refit from it; run with SERVESIM_STUDY set.
func TestStudy(t *testing.T) {
	if os.Getenv("SERVESIM_STUDY") == "" {
		t.Skip("set SERVESIM_STUDY=1 (or fit)")
	}
	pts := siliconDense(t)
	s := Simulator{ModelDir: modelDir(t)}
	h100 := testProfile()
	t0 := time.Now()
	rs, err := s.Residuals(pts, h100, []Metric{TTFT, TPOT})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("catalog h100 profile (%v): %s", time.Since(t0), summary(rs))
	for _, r := range rs {
		t.Logf("%-22s %-5s %9.1f %9.1f %+6.0f%%", r.Point.Setup(), r.Metric, 1000*r.Measured, 1000*r.Predicted, 100*r.Error())
	}
	if os.Getenv("SERVESIM_STUDY") != "fit" {
		return
	}
	t0 = time.Now()
	p, err := FitStaged(s, pts, h100, 0)
	if err != nil {
		t.Fatal(err)
	}
	rs, err = s.Residuals(pts, p, []Metric{TTFT, TPOT})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("staged refit (%v): %s", time.Since(t0), summary(rs))
	y, _ := p.MarshalYAMLBytes()
	t.Logf("%s", y)
}
