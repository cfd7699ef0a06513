package jobs

import (
	"errors"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim"
)

// FuzzParseShard checks that an accepted shard has 0 <= Index < Count,
// owns its share of the jobs, and reads back from its String; and that a
// rejected one is an sim.ErrInvalidConfig naming the shard.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "0/4", "3/4", " 1 / 2 ", "4/4", "-1/4", "0/0", "1/-1", "+1/2", "01/02",
		"1", "/", "", "a/b", "1/2/3", "9223372036854775806/9223372036854775807", "0/9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if !errors.Is(err, sim.ErrInvalidConfig) || !strings.Contains(err.Error(), "shard") {
				t.Fatalf("ParseShard(%q): error %q is not an sim.ErrInvalidConfig naming the shard", s, err)
			}
			return
		}
		if !(0 <= sh.Index && sh.Index < sh.Count) {
			t.Fatalf("ParseShard(%q) = %+v, want 0 <= index < count", s, sh)
		}
		if err := sh.Validate(); err != nil {
			t.Fatalf("ParseShard(%q) = %+v, which fails Validate: %v", s, sh, err)
		}
		if back, err := ParseShard(sh.String()); err != nil || back != sh {
			t.Fatalf("ParseShard(%q) = %+v, but its String %q reads as %+v, %v", s, sh, sh.String(), back, err)
		}
		// The shard owns job Index and, of the jobs 0 .. Index+Count, only it.
		if !sh.Owns(sh.Index) || sh.Size(sh.Index+1) != 1 {
			t.Fatalf("ParseShard(%q) = %+v does not own job %d alone", s, sh, sh.Index)
		}
	})
}
