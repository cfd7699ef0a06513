package screen_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/screen"
)

// FuzzParseCandidates checks that accepted candidates are one per
// comma-separated field, with TP and replicas >= 1 and DP in [0, the
// limit], and that written back (screen.Candidate.Spec) they read back
// the same.
func FuzzParseCandidates(f *testing.F) {
	for _, s := range []string{"4x1,2x2,1x4", "1x1", " 8x1 , 1x8 ", "+2x02", "0x1", "1x0", "-1x1", "x", "1x", "4X1", "1x2x3",
		"", ",", "1x1,", "9223372036854775807x1", "9223372036854775807x2", "9223372036854775808x1", "0x10",
		"tp4dp2ep", "TP8", "tp2ep", "tp1dp8epx1", "tp2dp2x2", "tp4dp0", "tp4dp1", "tp4dp2000", "tpdp2", "tp4epdp2", "tp4x0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := screen.ParseCandidates(s)
		if err != nil {
			quoted := false
			for _, field := range strings.Split(s, ",") {
				quoted = quoted || strings.Contains(err.Error(), strconv.Quote(field))
			}
			if !quoted {
				t.Fatalf("ParseCandidates(%q): error %q does not name the bad candidate", s, err)
			}
			return
		}
		if want := strings.Count(s, ",") + 1; len(cs) != want {
			t.Fatalf("ParseCandidates(%q) = %v: %d candidates from %d fields", s, cs, len(cs), want)
		}
		texts := make([]string, len(cs))
		for i, c := range cs {
			if c.TP < 1 || c.Replicas < 1 || c.DP < 0 || c.DP > batching.MaxDataParallel {
				t.Fatalf("ParseCandidates(%q) = %v: candidate %d has TP %d, replicas %d, DP %d, want TP and replicas >= 1, DP in [0, %d]",
					s, cs, i, c.TP, c.Replicas, c.DP, batching.MaxDataParallel)
			}
			texts[i] = c.Spec()
		}
		back, err := screen.ParseCandidates(strings.Join(texts, ","))
		if err != nil || !slices.Equal(back, cs) {
			t.Fatalf("ParseCandidates(%q) = %v, written back as %q reads %v, %v", s, cs, strings.Join(texts, ","), back, err)
		}
	})
}

// TestCandidatesGPUsOverflow: ParseCandidates rejects TP and replicas
// whose product would overflow int (it once printed -2 GPUs for
// 9223372036854775807x2).
func TestCandidatesGPUsOverflow(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"9223372036854775807x2", "4611686018427387904x2"} {
		if cs, err := screen.ParseCandidates(s); err == nil {
			t.Errorf("ParseCandidates(%q) = %v (GPUs %d), want an error", s, cs, cs[0].GPUs())
		}
	}
}
