package vllmbench

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/quoted"
)

// FuzzParseFloatList checks that an accepted list holds one number per
// non-empty field, as strconv reads it, and that written back with
// strconv it reads back bit for bit; and that an error quotes the bad
// field or says the list is empty.
func FuzzParseFloatList(f *testing.F) {
	for _, s := range []string{"50,90,99", "99.9", " 1 , 2 ", "1,,2", ",", "", " ", "nan", "inf,-inf", "-1", "1e400",
		"1e-400", "0x1p-2", "1_000", "a", "1,a", "5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		xs, err := ParseFloatList(s)
		if err != nil {
			if msg := err.Error(); msg != "is empty" && !quoted.ContainsPart(msg, s) {
				t.Fatalf("ParseFloatList(%q): error %q quotes no part of the input", s, err)
			}
			return
		}
		var fields []string
		for _, field := range strings.Split(s, ",") {
			if field = strings.TrimSpace(field); field != "" {
				fields = append(fields, field)
			}
		}
		if len(xs) == 0 || len(xs) != len(fields) {
			t.Fatalf("ParseFloatList(%q) = %v from %d non-empty fields", s, xs, len(fields))
		}
		texts := make([]string, len(xs))
		for i, x := range xs {
			if want, _ := strconv.ParseFloat(fields[i], 64); !sameFloat(x, want) {
				t.Fatalf("ParseFloatList(%q)[%d] = %v, want %v", s, i, x, want)
			}
			texts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		back, err := ParseFloatList(strings.Join(texts, ","))
		if err != nil || !slices.EqualFunc(back, xs, sameFloat) {
			t.Fatalf("ParseFloatList(%q) = %v, written back reads %v, %v", s, xs, back, err)
		}
	})
}

// sameFloat reports whether a and b are the same number, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
