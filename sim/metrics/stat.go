package metrics

import "strconv"

// A Stat is one named server counter (preemptions, mean KV-cache usage,
// MBU, ...). Names are snake_case result field names.
type Stat struct {
	Name  string
	Value float64
}

// DefaultPercentiles returns the percentiles results report when none are
// asked for: vLLM's default --metric-percentiles 99, plus the median and
// p90/p95 that capacity work asks for. Each call returns a new slice, so
// callers may keep or change it.
func DefaultPercentiles() []float64 { return []float64{50, 90, 95, 99} }

// PercentileKey formats p the way vLLM names percentile fields: "99" for
// whole numbers, "99.9" otherwise.
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
