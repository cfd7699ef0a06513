package cost

import (
	"errors"
	"fmt"
	"math"
)

// AllReduce gives the time of one all-reduce of a payload of bytes bytes
// (the logical message size S, not the bus traffic) across ranks ranks, in
// seconds. It must return 0 for ranks ≤ 1, must not allocate, and must be
// safe for concurrent use: Deployment.Step calls it on every step.
//
// AlphaBeta and AlphaBetaTable implement it with the α–β model;
// cost/topology.LoadNCCLTable returns one that interpolates NCCL
// measurements.
type AllReduce interface {
	Time(bytes float64, ranks int) float64
}

// busBytes returns 2(p−1)/p·S, the bytes each rank sends (and receives) in a
// ring all-reduce of S bytes over p ranks: the nccl-tests bus-bandwidth
// correction. It is 0 for p ≤ 1.
func busBytes(payload float64, p int) float64 {
	if p <= 1 {
		return 0
	}
	return 2 * float64(p-1) / float64(p) * payload
}

// AlphaBeta is the α–β cost of an all-reduce: τ(S, p) = α + 2(p−1)S/(p·B).
type AlphaBeta struct {
	// Ranks is the rank count these parameters describe; 0 means any rank
	// count (used by AlphaBetaTable for lookup only).
	Ranks int `json:"ranks" yaml:"ranks"`
	// Alpha is the fixed latency α_p of one call, in seconds.
	Alpha float64 `json:"alpha_s" yaml:"alpha_s"`
	// BusBandwidth is the effective bus bandwidth B_p in bytes per second,
	// as nccl-tests reports busbw.
	BusBandwidth float64 `json:"bus_bandwidth_bytes_per_s" yaml:"bus_bandwidth_bytes_per_s"`
}

// Time returns α + 2(p−1)S/(p·B) seconds for a payload of bytes bytes over
// ranks ranks (the ranks argument, not a.Ranks, sets the 2(p−1)/p factor),
// or 0 when ranks ≤ 1.
func (a AlphaBeta) Time(bytes float64, ranks int) float64 {
	alpha, perByte := a.coefficients(ranks)
	return alpha + perByte*bytes
}

// coefficients returns τ(S, ranks) = alpha + perByte·S as its two
// coefficients: α and 2(p−1)/(p·B) seconds per payload byte; both 0 for
// ranks ≤ 1.
func (a AlphaBeta) coefficients(ranks int) (alpha, perByte float64) {
	if ranks <= 1 {
		return 0, 0
	}
	return a.Alpha, busBytes(1, ranks) / a.BusBandwidth
}

// validate checks that α ≥ 0, B > 0 (both finite) and Ranks ≥ 0.
func (a AlphaBeta) validate() error { return errors.Join(a.problems("all_reduce")...) }

// problems lists what is wrong with a, each field named under prefix
// (the entry's place in its table, "all_reduce[0]").
func (a AlphaBeta) problems(prefix string) []error {
	var out []error
	if a.Ranks < 0 {
		out = append(out, invalidField(prefix+".ranks", a.Ranks, "must be >= 0 (0 = any)"))
	}
	if !nonNegativeFinite(a.Alpha) {
		out = append(out, invalidField(prefix+".alpha_s", a.Alpha, "must be a finite number >= 0"))
	}
	if !positiveFinite(a.BusBandwidth) {
		out = append(out, invalidField(prefix+".bus_bandwidth_bytes_per_s", a.BusBandwidth, "must be a finite number > 0"))
	}
	return out
}

// AlphaBetaTable holds α–β parameters for several rank counts, as measured
// on one system. It implements AllReduce.
type AlphaBetaTable []AlphaBeta

// Params returns the parameters used for p ranks: the entry whose Ranks is
// p; else an entry with Ranks 0 (any); else the entry with the nearest rank
// count (the larger on a tie). ok is false only for an empty table.
func (t AlphaBetaTable) Params(p int) (ab AlphaBeta, ok bool) {
	best, bestDist := -1, math.MaxInt
	for i, e := range t {
		if e.Ranks == p {
			return e, true
		}
		if e.Ranks == 0 {
			best, bestDist = i, -1
			continue
		}
		if bestDist < 0 {
			continue
		}
		d := e.Ranks - p
		if d < 0 {
			d = -d
		}
		if d < bestDist || (d == bestDist && e.Ranks > t[best].Ranks) {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return AlphaBeta{}, false
	}
	return t[best], true
}

// Time returns the α–β time of one all-reduce with the parameters Params
// selects for ranks, in seconds; 0 for ranks ≤ 1; +Inf when the table is
// empty and ranks > 1.
func (t AlphaBetaTable) Time(bytes float64, ranks int) float64 {
	if ranks <= 1 {
		return 0
	}
	ab, ok := t.Params(ranks)
	if !ok {
		return math.Inf(1)
	}
	return ab.Time(bytes, ranks)
}

// Validate checks every entry and that no rank count appears twice; each
// problem is an ErrInvalidSpec *fielderr.Error at the entry's place in a
// GPU file ("all_reduce[1].alpha_s"), joined in table order.
func (t AlphaBetaTable) Validate() error { return errors.Join(t.problems()...) }

func (t AlphaBetaTable) problems() []error {
	var out []error
	seen := make(map[int]bool, len(t))
	for i, e := range t {
		at := fmt.Sprintf("all_reduce[%d]", i)
		out = append(out, e.problems(at)...)
		if seen[e.Ranks] {
			out = append(out, invalidField(at+".ranks", e.Ranks, "is listed twice"))
		}
		seen[e.Ranks] = true
	}
	return out
}
