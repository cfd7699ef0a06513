package cliflag

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Int is a whole-number flag of at least min and at most max (why
// says why); max 0 means math.MaxInt32, the largest count a flag takes.
// It takes exact floats too: 1e6 is 1000000.
type Int struct {
	P        *int
	Min, Max int
	Why      string
}

func (v Int) String() string {
	if v.P == nil {
		return ""
	}
	return strconv.Itoa(*v.P)
}

func (v Int) Set(s string) error {
	hi, why := v.Max, v.Why
	if hi == 0 {
		hi, why = math.MaxInt32, "the largest count a flag takes"
	}
	n, err := parseWhole(s)
	switch {
	case err != nil:
		return fmt.Errorf("must be a whole number in [%d, %d]", v.Min, hi)
	case n < int64(v.Min):
		return fmt.Errorf("must be >= %d", v.Min)
	case n > int64(hi):
		return fmt.Errorf("exceeds %d, %s", hi, why)
	}
	*v.P = int(n)
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

// Seed is a random seed: a whole number in [0, 2^64).
type Seed struct{ P *uint64 }

func (v Seed) String() string {
	if v.P == nil {
		return ""
	}
	return strconv.FormatUint(*v.P, 10)
}

func (v Seed) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("must be a whole number in [0, 18446744073709551615]")
	}
	*v.P = n
	return nil
}

// NonNegativeFloat is a finite number >= 0; zero, when set, is what 0
// stands for ("the workload's rate"), which errors repeat.
type NonNegativeFloat struct {
	P    *float64
	Zero string
}

func (v NonNegativeFloat) String() string {
	if v.P == nil {
		return ""
	}
	return strconv.FormatFloat(*v.P, 'g', -1, 64)
}

func (v NonNegativeFloat) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 1) {
		if v.Zero != "" {
			return fmt.Errorf("must be a finite number >= 0 (0: %s)", v.Zero)
		}
		return errors.New("must be a finite number >= 0")
	}
	*v.P = f
	return nil
}

// BoolTarget sets *p to val when given; two of them, --x and --no-x,
// share one variable, and the last one given wins. --x=false works too.
type BoolTarget struct {
	P   *bool
	Val bool
}

func (b BoolTarget) IsBoolFlag() bool { return true }

func (b BoolTarget) String() string { return "" }

func (b BoolTarget) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*b.P = v == b.Val
	return nil
}

// StringList collects every value of a repeated flag (--metadata a=1
// --metadata b=2, which argparse writes --metadata a=1 b=2); an empty
// value adds nothing.
type StringList struct{ P *[]string }

func (l StringList) String() string {
	if l.P == nil {
		return ""
	}
	return strings.Join(*l.P, " ")
}

func (l StringList) Set(s string) error {
	if s != "" {
		*l.P = append(*l.P, s)
	}
	return nil
}

// TriState sets an optional boolean: nil unset, else true or false
// (argparse's BooleanOptionalAction with default None).
type TriState struct{ P **bool }

func (t TriState) IsBoolFlag() bool { return true }
func (t TriState) String() string {
	if t.P == nil || *t.P == nil {
		return ""
	}
	return strconv.FormatBool(**t.P)
}

func (t TriState) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	*t.P = &v
	return nil
}

// TriNo is the --no- form of a TriState.
type TriNo struct{ P **bool }

func (n TriNo) IsBoolFlag() bool { return true }
func (n TriNo) String() string   { return "" }
func (n TriNo) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("must be true or false")
	}
	v = !v
	*n.P = &v
	return nil
}

// HumanInt is a whole number >= min written as vLLM's human_readable_int
// reads it: 8192, 8k (8000), 8K (8192), 1.5m (1500000), 2M (2097152).
type HumanInt struct {
	P   *int
	Min int
}

func (v HumanInt) String() string {
	if v.P == nil || *v.P == 0 {
		return ""
	}
	return strconv.Itoa(*v.P)
}

func (v HumanInt) Set(s string) error {
	n, err := ParseHumanInt(s)
	switch {
	case err != nil:
		return err
	case n < int64(v.Min):
		return fmt.Errorf("must be >= %d", v.Min)
	case n > math.MaxInt32:
		return fmt.Errorf("exceeds %d, the largest count a flag takes", math.MaxInt32)
	}
	*v.P = int(n)
	return nil
}

// ParseHumanInt reads vLLM's human-readable integers: decimal suffixes
// k, m, g, t (powers of 1000, decimals allowed: 1.5k) and binary K, M, G,
// T (powers of 1024, whole numbers only); without a suffix, a whole
// number (1e6 works).
func ParseHumanInt(s string) (int64, error) {
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

// Fraction is a number in (0, 1].
type Fraction struct{ P *float64 }

func (v Fraction) String() string {
	if v.P == nil {
		return ""
	}
	return strconv.FormatFloat(*v.P, 'g', -1, 64)
}

func (v Fraction) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0 && f <= 1) {
		return errors.New("must be a number in (0, 1]")
	}
	*v.P = f
	return nil
}

// Type is what Int takes, for Print.
func (Int) Type() string { return "int" }

// Type is what HumanInt takes, for Print.
func (HumanInt) Type() string { return "int" }

// Type is what Seed takes, for Print.
func (Seed) Type() string { return "uint" }

// Type is what NonNegativeFloat takes, for Print.
func (NonNegativeFloat) Type() string { return "float" }

// Type is what Fraction takes, for Print.
func (Fraction) Type() string { return "float" }

// PositiveFloat is a finite number > 0, or +Inf when InfOK; Format, when
// not nil, writes its value (the default in help), else strconv's
// shortest form.
type PositiveFloat struct {
	P      *float64
	InfOK  bool
	Format func(float64) string
}

func (v PositiveFloat) String() string {
	switch {
	case v.P == nil:
		return ""
	case v.Format != nil:
		return v.Format(*v.P)
	}
	return strconv.FormatFloat(*v.P, 'g', -1, 64)
}

func (v PositiveFloat) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f > 0) || (!v.InfOK && math.IsInf(f, 1)) {
		if v.InfOK {
			return errors.New("must be a number > 0 or inf")
		}
		return errors.New("must be a finite number > 0")
	}
	*v.P = f
	return nil
}

// Type is what PositiveFloat takes, for Print.
func (PositiveFloat) Type() string { return "float" }
