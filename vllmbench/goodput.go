package vllmbench

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/servesim/servesim/scenario"
)

// Goodput is a flag.Value that collects vLLM's --goodput pairs KEY:MS
// (keys ttft, tpot, e2el) into SLO's bounds, given as one value with
// several pairs ("ttft:800 tpot:50"), as repeated flags, or as the
// arguments that follow the flag (Argparse).
type Goodput struct{ SLO *scenario.SLO }

// String is the flag's default: none.
func (g Goodput) String() string { return "" }

// Set adds the pairs of s; a malformed pair, a bound that is not a
// finite number of milliseconds > 0 or an unknown key is an error quoting
// the pair.
func (g Goodput) Set(s string) error {
	for _, pair := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		if err := g.add(pair); err != nil {
			return err
		}
	}
	return nil
}

func (g Goodput) add(pair string) error {
	k, v, ok := strings.Cut(pair, ":")
	ms, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		return fmt.Errorf("%q: want KEY:VALUE pairs such as ttft:800 tpot:50 (milliseconds; keys ttft, tpot, e2el)", pair)
	}
	if !(ms > 0) || math.IsInf(ms, 1) {
		return fmt.Errorf("%q: the bound must be a finite number of milliseconds > 0 (leave a metric out to set no bound on it)", pair)
	}
	switch strings.ToLower(k) {
	case "ttft":
		g.SLO.TTFTms = ms
	case "tpot":
		g.SLO.TPOTms = ms
	case "e2el":
		g.SLO.E2ELms = ms
	default:
		return fmt.Errorf("%q: unknown metric %q (want ttft, tpot or e2el)", pair, k)
	}
	return nil
}

// goodputPairRE matches a bare KEY:VALUE pair left among the positional
// arguments by vLLM's `--goodput ttft:800 tpot:50` form.
var goodputPairRE = regexp.MustCompile(`^(?i)(ttft|tpot|e2el):`)
