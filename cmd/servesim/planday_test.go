package main

import (
	"strings"
	"testing"
)

// TestPlanPoliciesErrors: a bad day flag of plan --policies exits 2
// naming the flag and the value before any plan runs, and a day flag
// without --policies is refused rather than ignored.
func TestPlanPoliciesErrors(t *testing.T) {
	t.Parallel()
	base := []string{"plan", "--model", "llama-3.1-8b", "--request-rate", "4", "--goodput", "ttft:2000", "tpot:100", "--gpus", "h100-sxm", "--tp-degrees", "1"}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--policies", "fixed", "--attainment", "1.5"}, []string{"--attainment", "1.5"}},
		{[]string{"--policies", "fixed", "--day-trough", "0"}, []string{"--day-trough", "0"}},
		{[]string{"--policies", "fixed", "--day-hours", "200"}, []string{"--day-hours", "200"}},
		{[]string{"--policies", "fixed;bogus:3"}, []string{"--policies", "bogus"}},
		{[]string{"--policies", "fixed", "--format", "json"}, []string{"--policies", "--format json"}},
		{[]string{"--day-rate", "3"}, []string{"--day-rate", "--policies"}},
	} {
		r := runCLI(append(base, tt.args...)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, stderr %q; want 2", tt.args, r.code, r.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, r.stderr, w)
			}
		}
	}
}
