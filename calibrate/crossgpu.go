package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/servesim/servesim/cost"
)

// CrossGPULimit is the fraction of the smallest resource ratio below
// which CrossGPU flags a faster GPU's run: 5% for run-to-run spread.
const CrossGPULimit = 0.95

// GPUPair is one setup measured on two GPUs of which one (Fast) has at
// least the other's (Slow) memory and more of every resource a serving
// step is bound by: memory bandwidth and dense FLOP/s at the run's
// precision, by at least Ratio. Slow's run kept its GPU busy at peak for
// a fraction Busy of its time at least (the larger of Audit's Compute and
// Bandwidth). If Fast reaches at least Slow's fraction of its peaks and
// the rest of the time (launches, the CPU, the client) does not grow, the
// run is faster on Fast by at least Floor = 1/(Busy/Ratio + 1 − Busy).
// Below CrossGPULimit × Floor, Fast's run was held back by something
// outside the GPU that Slow's was not (the host's CPU, the client, a
// server setting the row does not record): a model of the GPU cannot
// price it, and no kernel fraction should be fitted to it.
type GPUPair struct {
	Slow, Fast Point
	// Speedup is Fast's measured output throughput over Slow's (of the
	// inverse mean TPOT when a throughput is missing).
	Speedup float64
	// Ratio is min(bandwidth ratio, FLOP/s ratio) of Fast over Slow.
	Ratio float64
	// Busy is Slow's implied utilisation (AuditRow), at most 1.
	Busy float64
	// Floor is the least speed-up a GPU-bound Fast run has.
	Floor float64
	// Flagged is set when Speedup < CrossGPULimit × Floor.
	Flagged bool
	// TTFTSpeedup is Slow's mean TTFT over Fast's, and TTFTFloor the least
	// a GPU-bound Fast run reaches, 1/(b/Ratio + 1 − b) with b Slow's
	// implied prefill utilisation within its TTFT (AuditRow.ComputeTTFT,
	// at most 1); both 0 when a TTFT is missing. TTFTFlagged is set when
	// TTFTSpeedup < CrossGPULimit × TTFTFloor: Fast's first tokens waited
	// for something outside the GPU (its host's frontend or CPU, the
	// client) that Slow's did not, and Fast's TTFT says nothing about its
	// GPU while its throughput and TPOT may.
	TTFTSpeedup, TTFTFloor float64
	TTFTFlagged            bool
}

// String writes the pair as one line.
func (p GPUPair) String() string {
	flag := ""
	if p.Flagged {
		flag = ": flagged, host-limited"
	}
	if p.TTFTFlagged {
		flag += fmt.Sprintf("; TTFT ×%.2f against a floor of %.2f: flagged, host-limited TTFT", p.TTFTSpeedup, p.TTFTFloor)
	}
	return fmt.Sprintf("%s vs %s: speed-up %.2f, floor %.2f (resources ×%.2f, slow run busy %.0f%%)%s", p.Fast.ID, p.Slow.ID, p.Speedup, p.Floor, p.Ratio, 100*p.Busy, flag)
}

// CrossGPU pairs the points that ran the same setup (model, precision,
// TP, lengths, load, request count, vLLM version) on two GPUs, one
// dominating the other (GPUPair), and checks each pair's speed-up. No
// profile enters: datasheet peaks, the step model's byte and FLOP counts
// (Audit) and the measurements. The mean TTFTs are checked the same way
// against the slower run's prefill utilisation (GPUPair.TTFTFlagged).
// Points whose GPU is not in the catalog, that Audit cannot read, or that
// no other point pairs with, are left out; pairs come in the faster run's
// ID order.
func (s Simulator) CrossGPU(points []Point) []GPUPair {
	key := func(p Point) string {
		return fmt.Sprint(p.Model, "|", strings.ToLower(p.Precision), "|", p.KVCache, "|", p.TP, "|", p.DP, "|", p.EP, "|", p.Input, "|", p.Output, "|",
			p.Concurrency, "|", p.Rate, "|", p.MaxConcurrency, "|", p.NumPrompts, "|", p.BackendVersion)
	}
	groups := map[string][]Point{}
	for _, p := range points {
		if p.Engine == nil {
			groups[key(p)] = append(groups[key(p)], p)
		}
	}
	var out []GPUPair
	for _, g := range groups {
		for _, a := range g {
			for _, b := range g {
				pair, ok := gpuPair(b, a)
				if !ok {
					continue
				}
				row, err := s.audit(b)
				if err != nil {
					continue
				}
				pair.Busy = min(max(row.Compute, row.Bandwidth), 1)
				pair.Floor = 1 / (pair.Busy/pair.Ratio + 1 - pair.Busy)
				pair.Flagged = pair.Speedup < CrossGPULimit*pair.Floor
				if tf, ts := a.Measured.TTFT, b.Measured.TTFT; tf > 0 && ts > 0 {
					busy := min(row.ComputeTTFT, 1)
					pair.TTFTSpeedup, pair.TTFTFloor = ts/tf, 1/(busy/pair.Ratio+1-busy)
					pair.TTFTFlagged = pair.TTFTSpeedup < CrossGPULimit*pair.TTFTFloor
				}
				out = append(out, pair)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Fast.ID != out[j].Fast.ID {
			return out[i].Fast.ID < out[j].Fast.ID
		}
		return out[i].Slow.ID < out[j].Slow.ID
	})
	return out
}

// gpuPair returns the pair of slow and fast, its speed-up and resource
// ratio, when fast's GPU dominates slow's and both have a speed to
// compare.
func gpuPair(slow, fast Point) (GPUPair, bool) {
	if slow.GPU == fast.GPU {
		return GPUPair{}, false
	}
	gs, err1 := cost.GPU(slow.GPU)
	gf, err2 := cost.GPU(fast.GPU)
	if err1 != nil || err2 != nil || gf.MemoryBytes < gs.MemoryBytes {
		return GPUPair{}, false
	}
	peak := func(g cost.GPUSpec) float64 {
		if p := strings.ToLower(slow.Precision); p == "bf16" || p == "" {
			return g.PeakFLOPS.BF16
		}
		return g.PeakFLOPS.ForBytes(1)
	}
	bw := gf.BandwidthBytesPerS / gs.BandwidthBytesPerS
	fl := peak(gf) / peak(gs)
	if !(bw > 1) || !(fl > 1) || math.IsInf(fl, 0) {
		return GPUPair{}, false
	}
	speed := func(p Point) float64 {
		if p.Measured.OutputThroughput > 0 {
			return p.Measured.OutputThroughput
		}
		if p.Measured.TPOT > 0 {
			return 1 / p.Measured.TPOT
		}
		return 0
	}
	vs, vf := speed(slow), speed(fast)
	if !(vs > 0) || !(vf > 0) || (slow.Measured.OutputThroughput > 0) != (fast.Measured.OutputThroughput > 0) {
		return GPUPair{}, false
	}
	return GPUPair{Slow: slow, Fast: fast, Speedup: vf / vs, Ratio: min(bw, fl)}, true
}
