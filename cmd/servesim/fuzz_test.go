package main

import (
	"errors"
	"flag"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/vllmbench"
)

// The fuzz targets of the CLI's own parsers: the
// comma-separated number lists (--grid, --metric-percentiles), the flag
// values, and the parsing of flags mixed with positional arguments.

// FuzzFlagValues feeds one string to each flag value type. An accepted
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
			v := positiveFloat{&x, infOK}
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
			if err := (positiveFloat{&back, infOK}).Set(v.String()); err != nil || back != x {
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
		if err := (vllmbench.Goodput{SLO: &slo}).Set(s); err == nil {
			for _, ms := range []float64{slo.TTFTms, slo.TPOTms, slo.E2ELms} {
				if !(ms >= 0) || math.IsInf(ms, 1) {
					t.Fatalf("goodput %q = %+v, want finite bounds >= 0", s, slo)
				}
			}
		}
	})
}

// fuzzFlags is a flag set like the subcommands': a string, an int and a
// pair of boolean flags (--x, --no-x) sharing one variable.
type fuzzFlags struct {
	fs     *flag.FlagSet
	format string
	n      int
	x      bool
}

func newFuzzFlags() *fuzzFlags {
	v := &fuzzFlags{fs: newFlagSet("run")}
	v.fs.StringVar(&v.format, "format", "table", "")
	v.fs.IntVar(&v.n, "n", 1, "")
	v.fs.Var(boolTarget{&v.x, true}, "x", "")
	v.fs.Var(boolTarget{&v.x, false}, "no-x", "")
	return v
}

// FuzzParseArgs checks parseArgs on argument lists (the fuzzed string
// split at NUL bytes): it returns the positional arguments in order, and
// the same positional arguments and flag values as the list with every
// flag written first as --name=value; errors name the subcommand.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"a.yaml", "a.yaml\x00--format\x00csv", "--format=csv\x00a.yaml\x00b.yaml\x00-n\x003", "--x\x00a\x00--no-x",
		"--x=false\x00a", "-", "--", "--\x00-a", "a\x00--\x00b", "--n\x00x", "--bogus", "--n", "-h", "--help",
		"--format", "---x", "-x=maybe", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		v := newFuzzFlags()
		pos, err := parseArgs(v.fs, slices.Clone(args))
		if err != nil {
			if !errors.Is(err, flag.ErrHelp) && !strings.HasPrefix(err.Error(), "run: ") {
				t.Fatalf("parseArgs(%q): error %q does not name the subcommand", args, err)
			}
			return
		}
		// pos is a subsequence of args.
		j := 0
		for _, a := range args {
			if j < len(pos) && a == pos[j] {
				j++
			}
		}
		if j != len(pos) {
			t.Fatalf("parseArgs(%q) = %q, not a subsequence of the arguments", args, pos)
		}
		// Flags first, then the positional arguments: the same outcome.
		// (A positional argument that begins with "-" would need "--"
		// before it; those lists are left out.)
		for _, p := range pos {
			if strings.HasPrefix(p, "-") && p != "-" {
				return
			}
		}
		w := newFuzzFlags()
		canon := append([]string{"--format=" + v.format, "--n=" + strconv.Itoa(v.n), "--x=" + strconv.FormatBool(v.x)}, pos...)
		got, err := parseArgs(w.fs, canon)
		if err != nil || !slices.Equal(got, pos) || w.format != v.format || w.n != v.n || w.x != v.x {
			t.Fatalf("parseArgs(%q) = %q with format %q, n %d, x %v; flags first (%q) it is %q with %q, %d, %v, %v",
				args, pos, v.format, v.n, v.x, canon, got, w.format, w.n, w.x, err)
		}
	})
}

// TestParseArgsAfterDoubleDash: "--" ends the flags for good, so in
// `servesim run -- a.yaml -b.yaml` both are positional (the second was once
// read as an unknown flag --b.yaml).
func TestParseArgsAfterDoubleDash(t *testing.T) {
	v := newFuzzFlags()
	pos, err := parseArgs(v.fs, []string{"--", "a.yaml", "-b.yaml"})
	if err != nil || !slices.Equal(pos, []string{"a.yaml", "-b.yaml"}) {
		t.Errorf("parseArgs(-- a.yaml -b.yaml) = %q, %v; want [a.yaml -b.yaml]", pos, err)
	}
}
