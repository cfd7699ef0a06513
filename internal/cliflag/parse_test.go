package cliflag

import (
	"errors"
	"flag"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fuzzFlags is a flag set like the subcommands': a string, an int and a
// pair of boolean flags (--x, --no-x) sharing one variable.
type fuzzFlags struct {
	fs     *flag.FlagSet
	format string
	n      int
	x      bool
}

func newFuzzFlags() *fuzzFlags {
	v := &fuzzFlags{fs: NewFlagSet("run")}
	v.fs.StringVar(&v.format, "format", "table", "")
	v.fs.IntVar(&v.n, "n", 1, "")
	v.fs.Var(BoolTarget{P: &v.x, Val: true}, "x", "")
	v.fs.Var(BoolTarget{P: &v.x, Val: false}, "no-x", "")
	return v
}

// FuzzParseArgs checks Parse on argument lists (the fuzzed string
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
		pos, err := Parse(v.fs, slices.Clone(args))
		if err != nil {
			if !errors.Is(err, flag.ErrHelp) && !strings.HasPrefix(err.Error(), "run: ") {
				t.Fatalf("Parse(%q): error %q does not name the subcommand", args, err)
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
			t.Fatalf("Parse(%q) = %q, not a subsequence of the arguments", args, pos)
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
		got, err := Parse(w.fs, canon)
		if err != nil || !slices.Equal(got, pos) || w.format != v.format || w.n != v.n || w.x != v.x {
			t.Fatalf("Parse(%q) = %q with format %q, n %d, x %v; flags first (%q) it is %q with %q, %d, %v, %v",
				args, pos, v.format, v.n, v.x, canon, got, w.format, w.n, w.x, err)
		}
	})
}

// TestParseArgsAfterDoubleDash: "--" ends the flags for good, so in
// `servesim run -- a.yaml -b.yaml` both are positional (the second was once
// read as an unknown flag --b.yaml).
func TestParseArgsAfterDoubleDash(t *testing.T) {
	v := newFuzzFlags()
	pos, err := Parse(v.fs, []string{"--", "a.yaml", "-b.yaml"})
	if err != nil || !slices.Equal(pos, []string{"a.yaml", "-b.yaml"}) {
		t.Errorf("Parse(-- a.yaml -b.yaml) = %q, %v; want [a.yaml -b.yaml]", pos, err)
	}
}

// TestFlagMessage: the flag package's messages, with vLLM-style --names.
func TestFlagMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"flag provided but not defined: -foo", "unknown flag --foo"},
		{"flag provided but not defined: --foo", "unknown flag --foo"},
		{`invalid value "x" for flag -num-prompts: parse error`, `invalid value "x" for --num-prompts: `},
		{`invalid boolean value "x" for -quiet: parse error`, `invalid value "x" for --quiet: `},
		{"flag needs an argument: -model", "flag --model needs a value"},
	}
	for _, tt := range tests {
		if got := flagMessage(errString(tt.in)); got != tt.want {
			t.Errorf("flagMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
