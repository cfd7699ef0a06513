package vllmbench

import (
	"math"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
)

// FuzzFlagValues feeds one string to each flag value type of vLLM's flags. An accepted
// value is in the type's range (a rate > 0 or +Inf, a finite number > 0, a
// finite byte count >= 0, SLO bounds that are finite numbers >= 0) and its
// String, given back to Set, gives the same value; a rejected one leaves
// the target as it was.
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"10", "2.5", "inf", "+inf", "Infinity", "1e308", "1e400", "0", "-1", "nan", "", " 3 ",
		"8GiB", "1e308GiB", "512mb", "ttft:800 tpot:50", "ttft:800,e2el:2000", "TTFT:1", "ttft:-1", "ttft:inf",
		"ttft", "itl:5", "ttft:1e400", "true", "false", "1", "T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const sentinel = 12345.0
		rate := sentinel
		if err := (rateValue{&rate}).Set(s); err != nil {
			if rate != sentinel {
				t.Fatalf("rate %q: rejected but set to %v", s, rate)
			}
		} else {
			if !(rate > 0) {
				t.Fatalf("rate %q = %v, want > 0 or +Inf", s, rate)
			}
			back := sentinel
			if err := (rateValue{&back}).Set(rateValue{&rate}.String()); err != nil || back != rate {
				t.Fatalf("rate %q = %v, String %q reads back %v, %v", s, rate, rateValue{&rate}.String(), back, err)
			}
		}
		for _, infOK := range []bool{false, true} {
			x := sentinel
			v := cliflag.PositiveFloat{P: &x, InfOK: infOK, Format: PyFloat}
			if err := v.Set(s); err != nil {
				if x != sentinel {
					t.Fatalf("positiveFloat(infOK %v) %q: rejected but set to %v", infOK, s, x)
				}
				continue
			}
			if !(x > 0) || (!infOK && math.IsInf(x, 1)) {
				t.Fatalf("positiveFloat(infOK %v) %q = %v out of range", infOK, s, x)
			}
			back := sentinel
			if err := (cliflag.PositiveFloat{P: &back, InfOK: infOK}).Set(v.String()); err != nil || back != x {
				t.Fatalf("positiveFloat %q = %v, String %q reads back %v, %v", s, x, v.String(), back, err)
			}
		}
		b := sentinel
		if err := (bytesValue{&b}).Set(s); err != nil {
			if b != sentinel {
				t.Fatalf("bytes %q: rejected but set to %v", s, b)
			}
		} else {
			if !(b >= 0) || math.IsInf(b, 1) {
				t.Fatalf("bytes %q = %v, want a finite number >= 0", s, b)
			}
			back := sentinel
			if err := (bytesValue{&back}).Set(bytesValue{&b}.String()); b != 0 && (err != nil || back != b) {
				t.Fatalf("bytes %q = %v, String %q reads back %v, %v", s, b, bytesValue{&b}.String(), back, err)
			}
		}
		var slo scenario.SLO
		if err := (Goodput{SLO: &slo}).Set(s); err == nil {
			for _, ms := range []float64{slo.TTFTms, slo.TPOTms, slo.E2ELms} {
				if !(ms >= 0) || math.IsInf(ms, 1) {
					t.Fatalf("goodput %q = %+v, want finite bounds >= 0", s, slo)
				}
			}
		}
	})
}
