package cliflag

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Comma-separated lists of flag values.

// FloatList reads comma-separated numbers (--metric-percentiles, --grid);
// an error quotes the bad field, or says the list is empty.
func FloatList(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%q is out of range for a float64", f)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("is empty")
	}
	return out, nil
}

// OnOffList parses "on,off" (or true, false); "" is nil. An error
// names the flag (flagName) and quotes the bad field.
func OnOffList(flagName, s string) ([]bool, error) {
	if s == "" {
		return nil, nil
	}
	var out []bool
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "on", "true":
			out = append(out, true)
		case "off", "false":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("%s: %q: want on or off", flagName, f)
		}
	}
	return out, nil
}

// IntList parses "1,2,4" with every value in [lo, hi]; an error names
// the flag (flagName) and quotes the bad field.
func IntList(flagName, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < lo || v > hi {
			return nil, fmt.Errorf("%s: %q is not a whole number in [%d, %d]", flagName, f, lo, hi)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: is empty", flagName)
	}
	return out, nil
}
