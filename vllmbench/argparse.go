package vllmbench

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/servesim/servesim/internal/nearest"
)

// Argparse rewrites a command line written for Python's argparse, as
// vLLM's FlexibleArgumentParser reads it, into one the flag package reads:
//
//   - underscores in a flag name are dashes (--num_prompts is
//     --num-prompts; only the name, not a value after '=');
//   - a long flag may be shortened to any prefix that names one flag
//     (--num-prompt, --random-input); a prefix of several is an error
//     naming them, as argparse's "ambiguous option";
//   - a flag that takes several values (nargs: --goodput, --metadata, --header, --lora-modules) takes every
//     following argument up to the next flag: --metadata a=1 b=2 becomes
//     --metadata a=1 --metadata b=2.
//
// Exact names always win over prefixes; one-dash names (-tp, -q) are
// matched exactly. Everything after "--" is left alone.
func Argparse(fs *flag.FlagSet, args []string) ([]string, error) {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if len(a) < 2 || a[0] != '-' || looksNegative(a) {
			out = append(out, a)
			continue
		}
		dashes := "-"
		if strings.HasPrefix(a, "--") {
			dashes = "--"
		}
		name, value, hasValue := strings.Cut(a[len(dashes):], "=")
		name = strings.ReplaceAll(name, "_", "-")
		if fs.Lookup(name) == nil && dashes == "--" && name != "" {
			var match []string
			for _, n := range names {
				if strings.HasPrefix(n, name) {
					match = append(match, n)
				}
			}
			switch len(match) {
			case 0:
				if near := nearestFlags(name, names); len(near) > 0 {
					return nil, fmt.Errorf("unknown flag --%s (did you mean --%s?)", name, strings.Join(near, ", --"))
				}
			case 1:
				name = match[0]
			default:
				slices.Sort(match)
				return nil, fmt.Errorf("ambiguous flag --%s could match --%s", name, strings.Join(match, ", --"))
			}
		}
		flagArg := dashes + name
		if hasValue {
			flagArg += "=" + value
		}
		out = append(out, flagArg)
		take, isMulti := nargs[name]
		if !isMulti || hasValue {
			continue
		}
		// nargs: the values that follow, each as its own flag.
		n := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && (n == 0 || take == nil || take.MatchString(args[i+1])) {
			i++
			if n > 0 {
				out = append(out, dashes+name)
			}
			out = append(out, args[i])
			n++
		}
		if n == 0 {
			out[len(out)-1] = flagArg + "=" // nargs=*: no values
		}
	}
	return out, nil
}

// looksNegative reports whether a looks like a negative number ("-1", "-0.5"),
// which argparse reads as a value, not a flag.
func looksNegative(a string) bool { return negativeNumberRE.MatchString(a) }

var negativeNumberRE = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// nearestFlags returns the flag names within edit distance 2 of name (3
// for names of 10 bytes or more), nearest first: the "did you mean" of a
// misspelled flag (--num-promts).
func nearestFlags(name string, names []string) []string {
	limit := 2
	if len(name) >= 10 {
		limit = 3
	}
	return nearest.Names(name, names, 3, limit)
}

// nargs are vLLM's flags that take several values after one flag
// (argparse's nargs); a pattern, when set, is what a value after the
// first must match (--goodput's KEY:VALUE pairs, so a scenario file after
// them stays positional).
var nargs = map[string]*regexp.Regexp{
	"goodput":      goodputPairRE,
	"metadata":     nil,
	"header":       nil,
	"lora-modules": nil,
}
