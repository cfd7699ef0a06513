package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/distribution"
)

// DistSyntax describes the text form of a distribution that ParseDist
// reads, for help messages.
const DistSyntax = "exp:MEAN, det:VALUE, uniform:MIN,MAX, gamma:MEAN,CV, lognormal:MEAN,CV or mix:VALUE@PROB,VALUE@PROB,... (times in seconds, or with a unit: 50ms, 200us, 1.5s)"

// ParseDist reads a distribution of times written as KIND:PARAMS:
//
//	exp:0.05              exponential, mean 0.05 s (rate 20/s)
//	det:20ms              deterministic 20 ms
//	uniform:10ms,30ms     uniform on [10 ms, 30 ms)
//	gamma:0.05,2          gamma with mean 0.05 s and coefficient of variation 2
//	lognormal:50ms,0.5    log-normal with mean 50 ms and CV 0.5
//	mix:0.02@0.8,0.18@0.2 20 ms with probability 0.8, 180 ms with 0.2
//
// Times are seconds unless they carry a unit (s, ms, us or µs). The
// result is validated; errors quote the text.
func ParseDist(s string) (distribution.Dist, error) {
	kind, params, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return nil, fmt.Errorf("distribution %q: want KIND:PARAMS, one of %s", s, DistSyntax)
	}
	args := strings.Split(params, ",")
	bad := func(format string, a ...any) error {
		return fmt.Errorf("distribution %q: "+format, append([]any{s}, a...)...)
	}
	want := func(n int) error {
		if len(args) != n {
			return bad("%s takes %d parameter(s), got %d", kind, n, len(args))
		}
		return nil
	}
	var d distribution.Dist
	switch strings.ToLower(kind) {
	case "exp", "exponential":
		if err := want(1); err != nil {
			return nil, err
		}
		mean, err := ParseSeconds(args[0])
		if err != nil {
			return nil, bad("mean: %v", err)
		}
		if !(mean > 0) {
			return nil, bad("mean %v must be > 0", mean)
		}
		d = distribution.Exponential{Rate: 1 / mean}
	case "det", "deterministic", "const":
		if err := want(1); err != nil {
			return nil, err
		}
		v, err := ParseSeconds(args[0])
		if err != nil {
			return nil, bad("value: %v", err)
		}
		d = distribution.Deterministic{Value: v}
	case "uniform":
		if err := want(2); err != nil {
			return nil, err
		}
		lo, err := ParseSeconds(args[0])
		if err != nil {
			return nil, bad("min: %v", err)
		}
		hi, err := ParseSeconds(args[1])
		if err != nil {
			return nil, bad("max: %v", err)
		}
		d = distribution.Uniform{Min: lo, Max: hi}
	case "gamma", "lognormal":
		if err := want(2); err != nil {
			return nil, err
		}
		mean, err := ParseSeconds(args[0])
		if err != nil {
			return nil, bad("mean: %v", err)
		}
		cv, err := strconv.ParseFloat(strings.TrimSpace(args[1]), 64)
		if err != nil {
			return nil, bad("cv %q is not a number", args[1])
		}
		if !(mean > 0) || math.IsInf(mean, 1) || !(cv > 0) || math.IsInf(cv, 1) {
			return nil, bad("mean %v and cv %v must be finite numbers > 0", mean, cv)
		}
		if strings.EqualFold(kind, "gamma") {
			d = distribution.GammaMeanCV(mean, cv)
		} else {
			d = distribution.LogNormalMeanCV(mean, cv)
		}
	case "mix", "mixture", "discrete":
		values := make([]float64, len(args))
		probs := make([]float64, len(args))
		for i, a := range args {
			v, p, ok := strings.Cut(a, "@")
			if !ok {
				return nil, bad("component %q: want VALUE@PROB", a)
			}
			var err error
			if values[i], err = ParseSeconds(v); err != nil {
				return nil, bad("component %q: %v", a, err)
			}
			if probs[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
				return nil, bad("component %q: probability %q is not a number", a, p)
			}
		}
		d = distribution.Discrete(values, probs)
	default:
		return nil, bad("unknown kind %q: want %s", kind, DistSyntax)
	}
	if err := d.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	return d, nil
}

// ParseSeconds reads a time in seconds, with an optional unit suffix s,
// ms, us or µs ("0.05", "50ms"). It rejects NaN, infinities and negative
// times; errors quote the text with its unit.
func ParseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	t, scale := s, 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"s", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			t, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a finite time >= 0 (seconds, or with a unit: 50ms)", s)
	}
	return v * scale, nil
}

// ParseBytes reads a byte count: a plain number ("8589934592", "8e9") or
// one with a decimal (K, M, G, T, or KB, MB, GB, TB) or binary (KiB, MiB,
// GiB, TiB) unit, case-insensitive ("8GiB", "512MiB"). It rejects negative
// and non-finite values, and counts beyond the largest float64 ("1e308GiB").
func ParseBytes(s string) (float64, error) {
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	scale := 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"b", 1},
	} {
		if strings.HasSuffix(lower, u.suffix) {
			t, scale = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a byte count >= 0 (a number, or with a unit: 8GiB, 512MiB, 16GB)", s)
	}
	if b := v * scale; math.IsInf(b, 1) {
		return 0, fmt.Errorf("%q is too large: a byte count must be at most %v", s, math.MaxFloat64)
	}
	return v * scale, nil
}

// ParseRate reads a request rate in requests per second: a finite number
// > 0, or inf (every request at time 0), spelled inf, +inf, .inf, +.inf,
// infinity or +infinity in any case.
func ParseRate(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "inf", "+inf", ".inf", "+.inf", "infinity", "+infinity":
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate: want a number > 0 (requests/s) or inf", s)
	}
	return v, nil
}
