// Package cliflag holds servesim's command-line machinery on the standard
// flag package: a flag set that returns its errors (NewFlagSet), parsing
// flags mixed with positional arguments with vLLM-style messages (Parse),
// the flags given (Given), help printed group by group (Print), and the
// flag.Value types the commands share (Int, HumanInt, Seed,
// NonNegativeFloat, PositiveFloat, Fraction, BoolTarget, StringList,
// TriState, TriNo),
// whose errors say what the flag takes, and comma-separated lists
// (FloatList, IntList, OnOffList).
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// NewFlagSet returns a flag set that reports errors to run instead of
// printing them or exiting.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// Parse parses flags that may come before, between or after the
// positional arguments (`servesim run a.yaml --format csv`), and returns
// the positional ones. Flag errors read like "unknown flag --x" or
// "invalid value "x" for --n: must be a whole number >= 0".
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %s (see servesim %s -h)", fs.Name(), withReason(fs, flagMessage(err)), fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			// "--" ends the flags: everything after it is positional.
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// The flag package's messages, compiled on first use: a program that
// never meets a bad flag (the browser page) never compiles them.
var (
	undefinedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag provided but not defined: -+(.*)$`) })
	badValueRE  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`)
	})
	needArgRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag needs an argument: -+(.*)$`) })
)

// flagMessage rewrites the flag package's messages with vLLM-style
// --names.
func flagMessage(err error) string {
	m := err.Error()
	if s := undefinedRE().FindStringSubmatch(m); s != nil {
		return "unknown flag --" + s[1]
	}
	if s := badValueRE().FindStringSubmatch(m); s != nil {
		return fmt.Sprintf("invalid value %s for --%s: %s", s[1], s[2], strings.TrimPrefix(s[3], "parse error"))
	}
	if s := needArgRE().FindStringSubmatch(m); s != nil {
		return "flag --" + s[1] + " needs a value"
	}
	return m
}

// withReason completes a bad-value message that gives no reason (the flag
// package's own types give none) with what the flag takes.
func withReason(fs *flag.FlagSet, m string) string {
	s := badValueRE().FindStringSubmatch(m)
	if s == nil || strings.TrimSpace(strings.TrimPrefix(m, fmt.Sprintf("invalid value %s for --%s:", s[1], s[2]))) != "" {
		return m
	}
	f := fs.Lookup(s[2])
	if f == nil {
		return m
	}
	want := "a valid value"
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			want = "true or false"
		case int, int64:
			want = "a whole number"
		case uint, uint64:
			want = "a whole number >= 0"
		case float64:
			want = "a number"
		}
	}
	return strings.TrimRight(m, " ") + " must be " + want
}

// Given returns the names of the flags given on the command line.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// A Group is a titled list of flag names for usage messages.
type Group struct {
	Title string
	Names []string
}

// Print writes the flags of fs, group by group, with -- names.
func Print(w io.Writer, fs *flag.FlagSet, groups []Group) {
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.Title)
		for _, name := range g.Names {
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			arg, usage := flag.UnquoteUsage(f)
			if t, ok := f.Value.(Typed); ok {
				arg = strings.Replace(arg, "value", t.Type(), 1)
			}
			line := "  --" + f.Name
			if arg != "" {
				line += " " + arg
			}
			fmt.Fprintln(w, line)
			if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
				usage += " (default " + f.DefValue + ")"
			}
			fmt.Fprintln(w, "        "+strings.ReplaceAll(usage, "\n", "\n        "))
		}
	}
}

// A Typed value names what it takes (int, uint, float, ...): Print
// writes it as the flag's argument when the help text names none.
type Typed interface {
	flag.Value
	Type() string
}
