package metrics

import (
	"fmt"
	"strconv"
)

// A Stat is one named server counter (preemptions, mean KV-cache usage,
// MBU, ...). Names are snake_case result field names; Merge says how the
// counter combines over replicas.
type Stat struct {
	Name  string
	Value float64
	Merge Merge
	// Num and Den are a Ratio counter's parts: Value = Num/Den (0 when
	// Den is 0). Other counters leave them 0.
	Num, Den float64
}

// StatValue returns the value of the counter called name in stats and
// whether there is one.
func StatValue(stats []Stat, name string) (float64, bool) {
	for _, s := range stats {
		if s.Name == name {
			return s.Value, true
		}
	}
	return 0, false
}

// A Merge says how a counter of several replicas combines into one.
type Merge uint8

// Merge rules.
const (
	Sum  Merge = iota // counts and totals: the sum
	Mean              // averages and fractions: the mean over replicas
	Max               // maxima: the largest
	// Ratio: a rate such as a hit rate, Num/Den; replicas sum their Num
	// and Den and divide (so the rate weighs each replica by its Den, as
	// vLLM's prefix_cache_hit_rate does over requests).
	Ratio
)

// RatioStat returns the Ratio counter name = num/den (0 when den is 0).
func RatioStat(name string, num, den float64) Stat {
	s := Stat{Name: name, Merge: Ratio, Num: num, Den: den}
	if den != 0 {
		s.Value = num / den
	}
	return s
}

// MergeStats combines the counters of several replicas, each list in the
// same order with the same names, by each counter's Merge rule. It returns
// nil for no lists and an error when the lists do not line up.
func MergeStats(lists [][]Stat) ([]Stat, error) {
	if len(lists) == 0 {
		return nil, nil
	}
	out := append([]Stat(nil), lists[0]...)
	for i, l := range lists[1:] {
		if len(l) != len(out) {
			return nil, fmt.Errorf("replica %d reports %d counters, replica 0 %d", i+1, len(l), len(out))
		}
		for j, s := range l {
			if s.Name != out[j].Name || s.Merge != out[j].Merge {
				return nil, fmt.Errorf("replica %d counter %d is %q, replica 0's %q", i+1, j, s.Name, out[j].Name)
			}
			switch s.Merge {
			case Max:
				out[j].Value = max(out[j].Value, s.Value)
			case Ratio:
				out[j].Num += s.Num
				out[j].Den += s.Den
			default:
				out[j].Value += s.Value
			}
		}
	}
	k := float64(len(lists))
	for j := range out {
		switch out[j].Merge {
		case Mean:
			out[j].Value /= k
		case Ratio:
			out[j] = RatioStat(out[j].Name, out[j].Num, out[j].Den)
		}
	}
	return out, nil
}

// DefaultPercentiles returns the percentiles results report when none are
// asked for: vLLM's default --metric-percentiles 99, plus the median and
// p90/p95 that capacity work asks for. Each call returns a new slice, so
// callers may keep or change it.
func DefaultPercentiles() []float64 { return []float64{50, 90, 95, 99} }

// PercentileKey formats p the way vLLM names percentile fields: "99" for
// whole numbers, "99.9" otherwise.
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
