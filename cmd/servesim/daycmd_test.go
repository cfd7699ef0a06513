package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDayRank: --rank runs every policy on every GPU and lists them by the
// day's dollars among those at or above --attainment, cheapest first,
// then the rest by attainment; the closing line names the first.
func TestDayRank(t *testing.T) {
	t.Parallel()
	// A 25 req/s day starts near 11 req/s (the diurnal sine): one A100
	// falls behind, one H100 and three of either keep up.
	r := runCLI("day", "--hours", "0.25", "--rate", "25", "--gpu", "h100-sxm,a100-80gb",
		"--rank", "fixed:1;fixed:3;waiting:2", "--attainment", "0.99")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	row := regexp.MustCompile(`^\s*(\S+ \S+)\s+([0-9.]+)\s.*\s([0-9.]+)\s+\d+\s+[0-9.]+\s*$`)
	var names []string
	var dollars, att []float64
	for _, line := range strings.Split(r.stdout, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		d, _ := strconv.ParseFloat(m[2], 64)
		a, _ := strconv.ParseFloat(m[3], 64)
		names, dollars, att = append(names, m[1]), append(dollars, d), append(att, a)
	}
	if len(names) != 6 {
		t.Fatalf("%d ranked rows, want 6 (3 policies x 2 GPUs):\n%s", len(names), r.stdout)
	}
	met := 0
	for _, a := range att {
		if a >= 99 {
			met++
		}
	}
	if met == 0 || met == len(att) {
		t.Fatalf("%d of %d fleets meet the target: the case should have both kinds:\n%s", met, len(att), r.stdout)
	}
	for i := 1; i < len(names); i++ {
		okPrev, ok := att[i-1] >= 99, att[i] >= 99
		switch {
		case ok && !okPrev:
			t.Errorf("%s meets the target but follows %s, which misses it", names[i], names[i-1])
		case ok && okPrev && dollars[i] < dollars[i-1]:
			t.Errorf("%s ($%v) ranked after the dearer %s ($%v)", names[i], dollars[i], names[i-1], dollars[i-1])
		case !ok && !okPrev && att[i] > att[i-1]:
			t.Errorf("%s (%v%%) ranked after %s (%v%%), which attains less", names[i], att[i], names[i-1], att[i-1])
		}
	}
	if !strings.Contains(r.stdout, "at >= 99% attainment: "+names[0]) && !strings.Contains(r.stdout, "the best is "+names[0]) {
		t.Errorf("the closing line does not name %s:\n%s", names[0], r.stdout)
	}
	for _, bad := range [][]string{{"--attainment", "1.5"}, {"--rank", "fixed:1;bogus:3"}} {
		r := runCLI(append([]string{"day", "--hours", "0.1"}, bad...)...)
		if r.code == 0 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("day %v: exit %d, stderr %q: want an error naming %s", bad, r.code, r.stderr, bad[0])
		}
	}
}
