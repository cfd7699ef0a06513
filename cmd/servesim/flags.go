package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/vllmbench"
)

// newFlagSet returns a flag set that reports errors to run instead of
// printing them or exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags that may come before, between or after the
// positional arguments (`servesim run a.yaml --format csv`), and returns
// the positional ones. Flag errors read like "unknown flag --x" or
// "invalid value "x" for --n: must be a whole number >= 0".
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
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

var (
	undefinedRE = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	badValueRE  = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`)
	needArgRE   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// flagMessage rewrites the flag package's messages with vLLM-style
// --names.
func flagMessage(err error) string {
	m := err.Error()
	if s := undefinedRE.FindStringSubmatch(m); s != nil {
		return "unknown flag --" + s[1]
	}
	if s := badValueRE.FindStringSubmatch(m); s != nil {
		return fmt.Sprintf("invalid value %s for --%s: %s", s[1], s[2], strings.TrimPrefix(s[3], "parse error"))
	}
	if s := needArgRE.FindStringSubmatch(m); s != nil {
		return "flag --" + s[1] + " needs a value"
	}
	return m
}

// withReason completes a bad-value message that gives no reason (the flag
// package's own types give none) with what the flag takes.
func withReason(fs *flag.FlagSet, m string) string {
	s := badValueRE.FindStringSubmatch(m)
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

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// intValue is a whole-number flag of at least min and at most max (why
// says why); max 0 means math.MaxInt32, the largest count a flag takes.
// It takes exact floats too: 1e6 is 1000000.
type intValue struct {
	p        *int
	min, max int
	why      string
}

func (v intValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	hi, why := v.max, v.why
	if hi == 0 {
		hi, why = math.MaxInt32, "the largest count a flag takes"
	}
	n, err := parseWhole(s)
	switch {
	case err != nil:
		return fmt.Errorf("must be a whole number in [%d, %d]", v.min, hi)
	case n < int64(v.min):
		return fmt.Errorf("must be >= %d", v.min)
	case n > int64(hi):
		return fmt.Errorf("exceeds %d, %s", hi, why)
	}
	*v.p = int(n)
	return nil
}

// parseWhole reads a whole number written as an integer or as an exact
// float ("1e6").
func parseWhole(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, errors.New("not a whole number")
	}
	return int64(f), nil
}

// seedValue is a random seed: a whole number in [0, 2^64).
type seedValue struct{ p *uint64 }

func (v seedValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("must be a whole number in [0, 18446744073709551615]")
	}
	*v.p = n
	return nil
}

// nonNegativeFloat is a finite number >= 0; zero, when set, is what 0
// stands for ("the workload's rate"), which errors repeat.
type nonNegativeFloat struct {
	p    *float64
	zero string
}

func (v nonNegativeFloat) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v nonNegativeFloat) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 1) {
		if v.zero != "" {
			return fmt.Errorf("must be a finite number >= 0 (0: %s)", v.zero)
		}
		return errors.New("must be a finite number >= 0")
	}
	*v.p = f
	return nil
}

// rateValue is a request rate: a number > 0 or inf.
type rateValue struct{ p *float64 }

func (v rateValue) String() string {
	if v.p == nil {
		return ""
	}
	return vllmbench.PyFloat(*v.p)
}

func (v rateValue) Set(s string) error {
	r, err := scenario.ParseRate(s)
	if err != nil {
		return errors.New("must be a number > 0 (requests/s) or inf")
	}
	*v.p = r
	return nil
}

// positiveFloat is a finite number > 0, or +Inf when infOK.
type positiveFloat struct {
	p     *float64
	infOK bool
}

func (v positiveFloat) String() string {
	if v.p == nil {
		return ""
	}
	return vllmbench.PyFloat(*v.p)
}

func (v positiveFloat) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0) || (!v.infOK && math.IsInf(f, 1)) {
		if v.infOK {
			return errors.New("must be a number > 0 or inf")
		}
		return errors.New("must be a finite number > 0")
	}
	*v.p = f
	return nil
}

// bytesValue is a byte count, with an optional unit (8GiB).
type bytesValue struct{ p *float64 }

func (v bytesValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'f', -1, 64)
}

func (v bytesValue) Set(s string) error {
	if n, err := parseHumanInt(s); err == nil && strings.ContainsAny(s, "kmgtKMGT") {
		*v.p = float64(n) // vLLM's 8G (8 GiB) and 8g (8e9)
		return nil
	}
	b, err := scenario.ParseBytes(s)
	if err != nil {
		if strings.Contains(err.Error(), "too large") {
			return fmt.Errorf("is too large: a byte count must be at most %v", math.MaxFloat64)
		}
		return errors.New("must be a byte count >= 0 (a number, or with a unit: 8GiB, 512MiB)")
	}
	*v.p = b
	return nil
}

// boolTarget sets *p to val when given; two of them, --x and --no-x,
// share one variable, and the last one given wins. --x=false works too.
type boolTarget struct {
	p   *bool
	val bool
}

func (b boolTarget) IsBoolFlag() bool { return true }

func (b boolTarget) String() string { return "" }

func (b boolTarget) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*b.p = v == b.val
	return nil
}

// A flagGroup is a titled list of flag names for usage messages.
type flagGroup struct {
	title string
	names []string
}

// printFlags writes the flags of fs, group by group, with -- names.
func printFlags(w io.Writer, fs *flag.FlagSet, groups []flagGroup) {
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, name := range g.names {
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			arg, usage := flag.UnquoteUsage(f)
			switch f.Value.(type) {
			case vllmbench.Ignored:
				if k := f.Value.(vllmbench.Ignored).Kind; k != "bool" {
					arg = k
				}
			case intValue, humanInt:
				arg = strings.Replace(arg, "value", "int", 1)
			case seedValue:
				arg = strings.Replace(arg, "value", "uint", 1)
			case positiveFloat, nonNegativeFloat, fractionValue:
				arg = strings.Replace(arg, "value", "float", 1)
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
