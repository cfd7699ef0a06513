package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePolicies parses policies separated by ';' (ParsePolicy each,
// spaces around them trimmed), each named as written.
func ParsePolicies(list string, min, max int) ([]NamedPolicy, error) {
	var out []NamedPolicy
	for _, f := range strings.Split(list, ";") {
		f = strings.TrimSpace(f)
		p, err := ParsePolicy(f, min, max)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		out = append(out, NamedPolicy{Name: f, Policy: p})
	}
	return out, nil
}

// ParsePolicy parses a policy as a command line gives it: "fixed:N" (N
// replicas), "schedule:AT=N,AT=N,..." (seconds=replicas, the first at 0),
// or "METRIC:TARGET" for TargetTracking on METRIC (running, waiting,
// in-flight, kv-usage, queue-time) with the HPA's defaults and limits
// [min, max]. A bare "fixed" is a Fixed policy of 0 replicas: the count a
// plan sized (RankPlan); DaySpec.Validate refuses it elsewhere.
func ParsePolicy(s string, min, max int) (Policy, error) {
	if s == string(Fixed) {
		return Policy{Kind: Fixed}, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	if !ok || arg == "" {
		return Policy{}, invalidf("policy %q must look like fixed:N, schedule:0=N,3600=M or METRIC:TARGET (running:24)", s)
	}
	var p Policy
	switch kind {
	case "fixed":
		n, err := strconv.Atoi(arg)
		if err != nil {
			return Policy{}, invalidf("policy %q: %q is not a replica count", s, arg)
		}
		p = Policy{Kind: Fixed, Replicas: n}
	case "schedule":
		p.Kind = Scheduled
		for _, part := range strings.Split(arg, ",") {
			at, n, ok := strings.Cut(part, "=")
			t, err1 := strconv.ParseFloat(at, 64)
			k, err2 := strconv.Atoi(n)
			if !ok || err1 != nil || err2 != nil {
				return Policy{}, invalidf("policy %q: step %q must look like SECONDS=REPLICAS", s, part)
			}
			p.Schedule = append(p.Schedule, Step{At: t, Replicas: k})
		}
	default:
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			return Policy{}, invalidf("policy %q: target %q is not a number", s, arg)
		}
		p = Target(Metric(kind), v, min, max)
	}
	return p, p.Validate()
}
