package fleet

import (
	"strconv"
	"strings"
)

// ParsePolicy parses a policy as a command line gives it: "fixed:N" (N
// replicas), "schedule:AT=N,AT=N,..." (seconds=replicas, the first at 0),
// or "METRIC:TARGET" for TargetTracking on METRIC (running, waiting,
// in-flight, kv-usage, queue-time) with the HPA's defaults and limits
// [min, max].
func ParsePolicy(s string, min, max int) (Policy, error) {
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
