package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// stringList collects every value of a repeated flag (--metadata a=1
// --metadata b=2, which argparse writes --metadata a=1 b=2); an empty
// value adds nothing.
type stringList struct{ p *[]string }

func (l stringList) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, " ")
}

func (l stringList) Set(s string) error {
	if s != "" {
		*l.p = append(*l.p, s)
	}
	return nil
}

// triState sets an optional boolean: nil unset, else true or false
// (argparse's BooleanOptionalAction with default None).
type triState struct{ p **bool }

func (t triState) IsBoolFlag() bool { return true }
func (t triState) String() string {
	if t.p == nil || *t.p == nil {
		return ""
	}
	return strconv.FormatBool(**t.p)
}

func (t triState) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*t.p = &v
	return nil
}

// triNo is the --no- form of a triState.
type triNo struct{ p **bool }

func (n triNo) IsBoolFlag() bool { return true }
func (n triNo) String() string   { return "" }
func (n triNo) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	v = !v
	*n.p = &v
	return nil
}

// humanInt is a whole number >= min written as vLLM's human_readable_int
// reads it: 8192, 8k (8000), 8K (8192), 1.5m (1500000), 2M (2097152).
type humanInt struct {
	p   *int
	min int
}

func (v humanInt) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v humanInt) Set(s string) error {
	n, err := parseHumanInt(s)
	switch {
	case err != nil:
		return err
	case n < int64(v.min):
		return fmt.Errorf("must be >= %d", v.min)
	case n > math.MaxInt32:
		return fmt.Errorf("exceeds %d, the largest count a flag takes", math.MaxInt32)
	}
	*v.p = int(n)
	return nil
}

// parseHumanInt reads vLLM's human-readable integers: decimal suffixes
// k, m, g, t (powers of 1000, decimals allowed: 1.5k) and binary K, M, G,
// T (powers of 1024, whole numbers only); without a suffix, a whole
// number (1e6 works).
func parseHumanInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := errors.New("must be a whole number, or one with a suffix: 8k = 8000, 8K = 8192, 1M = 1048576")
	if s == "" {
		return 0, bad
	}
	const units = "kmgtKMGT"
	i := strings.IndexByte(units, s[len(s)-1])
	if i < 0 {
		n, err := parseWhole(s)
		if err != nil {
			return 0, bad
		}
		return n, nil
	}
	num := s[:len(s)-1]
	var scale float64
	if i < 4 {
		scale = math.Pow(1000, float64(i+1))
	} else {
		scale = math.Pow(1024, float64(i-3))
		if strings.ContainsAny(num, ".eE") {
			return 0, bad
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f*scale >= 1<<62 || f*scale != math.Trunc(f*scale) {
		return 0, bad
	}
	return int64(f * scale), nil
}

// fractionValue is a number in (0, 1].
type fractionValue struct{ p *float64 }

func (v fractionValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v fractionValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0 && f <= 1) {
		return errors.New("must be a number in (0, 1]")
	}
	*v.p = f
	return nil
}
