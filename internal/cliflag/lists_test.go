package cliflag

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/quoted"
)

// FuzzFloatList checks that an accepted list holds one number per
// non-empty field, as strconv reads it, and that written back with
// strconv it reads back bit for bit; and that an error quotes the bad
// field or says the list is empty.
func FuzzFloatList(f *testing.F) {
	for _, s := range []string{"50,90,99", "99.9", " 1 , 2 ", "1,,2", ",", "", " ", "nan", "inf,-inf", "-1", "1e400",
		"1e-400", "0x1p-2", "1_000", "a", "1,a", "5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		xs, err := FloatList(s)
		if err != nil {
			if msg := err.Error(); msg != "is empty" && !quoted.ContainsPart(msg, s) {
				t.Fatalf("FloatList(%q): error %q quotes no part of the input", s, err)
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
			t.Fatalf("FloatList(%q) = %v from %d non-empty fields", s, xs, len(fields))
		}
		texts := make([]string, len(xs))
		for i, x := range xs {
			if want, _ := strconv.ParseFloat(fields[i], 64); !sameFloat(x, want) {
				t.Fatalf("FloatList(%q)[%d] = %v, want %v", s, i, x, want)
			}
			texts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		back, err := FloatList(strings.Join(texts, ","))
		if err != nil || !slices.EqualFunc(back, xs, sameFloat) {
			t.Fatalf("FloatList(%q) = %v, written back reads %v, %v", s, xs, back, err)
		}
	})
}

// sameFloat reports whether a and b are the same number, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestIntAndOnOffLists: each field in range is read in order, empty
// fields are skipped, and an error names the flag and the bad field.
func TestIntAndOnOffLists(t *testing.T) {
	t.Parallel()
	ints := []struct {
		in   string
		want []int
		err  string
	}{
		{"1,2,4", []int{1, 2, 4}, ""},
		{" 8 ,, 1", []int{8, 1}, ""},
		{"0", nil, `--tp-degrees: "0" is not a whole number in [1, 8]`},
		{"9", nil, `--tp-degrees: "9" is not a whole number in [1, 8]`},
		{"2.5", nil, `--tp-degrees: "2.5" is not a whole number in [1, 8]`},
		{",", nil, "--tp-degrees: is empty"},
	}
	for _, tt := range ints {
		got, err := IntList("--tp-degrees", tt.in, 1, 8)
		if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) || !slices.Equal(got, tt.want) {
			t.Errorf("IntList(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
	bools := []struct {
		in   string
		want []bool
		err  string
	}{
		{"on,off", []bool{true, false}, ""},
		{"true, false", []bool{true, false}, ""},
		{"", nil, ""},
		{"on,maybe", nil, `--chunked-prefill-options: "maybe": want on or off`},
	}
	for _, tt := range bools {
		got, err := OnOffList("--chunked-prefill-options", tt.in)
		if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) || !slices.Equal(got, tt.want) {
			t.Errorf("OnOffList(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}
