package cost

import (
	"errors"
	"fmt"
	"math"
)

// arAlgorithm names the implementation vLLM's CudaCommunicator.all_reduce
// dispatches one tensor-parallel all-reduce to (docs/cost-model.md#vllms-all-reduce).
type arAlgorithm uint8

// arAlgorithm values, in the order vLLM tries them on NVIDIA GPUs.
const (
	// arnccl is NCCL through vLLM's pynccl: every size the others decline.
	arnccl arAlgorithm = iota
	// arOneShot is vLLM's custom kernel cross_device_reduce_1stage: every
	// rank reads the whole message from each of its p−1 peers over
	// peer-to-peer and sums it locally.
	arOneShot
	// arTwoShot is cross_device_reduce_2stage: a reduce-scatter and an
	// all-gather over peer reads, 2(p−1)/p·S bytes read per rank.
	arTwoShot
	// arSymmMem is PyTorch's symmetric-memory all-reduce (multimem on
	// NVSwitch, else two-shot), which vLLM tries after its custom kernel.
	arSymmMem
)

// String returns "nccl", "one-shot", "two-shot" or "symm-mem".
func (a arAlgorithm) String() string {
	switch a {
	case arOneShot:
		return "one-shot"
	case arTwoShot:
		return "two-shot"
	case arSymmMem:
		return "symm-mem"
	default:
		return "nccl"
	}
}

// MarshalText encodes a as its String.
func (a arAlgorithm) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

const (
	kiB = 1 << 10
	miB = 1 << 20
)

// vllmCustomMaxBytes is the default max_size of vLLM's CustomAllreduce,
// 8 MiB: the custom kernel takes messages strictly smaller than it. With
// PyTorch symmetric memory available (Hopper and Blackwell) vLLM lowers it
// per rank count (vllmAllReduceParams.CustomMaxBytes).
const vllmCustomMaxBytes = 8 * miB

// vllmCustomRanks reports whether vLLM's custom all-reduce supports p
// ranks: 2, 4, 6 or 8 (CustomAllreduce._SUPPORTED_WORLD_SIZES).
func vllmCustomRanks(p int) bool { return p == 2 || p == 4 || p == 6 || p == 8 }

// oneShotMaxBytes returns the message size in bytes from which vLLM's
// custom kernel runs two-shot instead of one-shot at p ranks, as
// csrc/custom_all_reduce.cuh chooses on fully NVLink-connected GPUs: 512 KiB
// up to 4 ranks, 256 KiB up to 8; +Inf at 2 ranks (always one-shot, which
// is also what a PCIe peer-to-peer pair runs).
func oneShotMaxBytes(p int) float64 {
	switch {
	case p <= 2:
		return math.Inf(1)
	case p <= 4:
		return 512 * kiB
	default:
		return 256 * kiB
	}
}

// linkCost is the latency and bandwidth of one all-reduce algorithm.
type linkCost struct {
	// Alpha is the fixed time of one call, in seconds.
	Alpha float64 `json:"alpha_s" yaml:"alpha_s"`
	// Bandwidth is in bytes per second; what it divides depends on the
	// algorithm (vllmAllReduceParams).
	Bandwidth float64 `json:"bandwidth_bytes_per_s" yaml:"bandwidth_bytes_per_s"`
}

// vllmAllReduceParams is vLLM's tensor-parallel all-reduce at one rank count
// on one kind of system: where its custom kernel and PyTorch's symmetric
// memory take over from NCCL, and what each costs. A message of S bytes
// over p = Ranks ranks runs
//
//	S < min(oneShotMaxBytes(p), CustomMaxBytes)   one-shot  τ = α₁ + (p−1)·S/B₁
//	oneShotMaxBytes(p) ≤ S < CustomMaxBytes       two-shot  τ = α₂ + 2(p−1)/p·S/B₂
//	CustomMaxBytes ≤ S ≤ SymmMemMaxBytes          symm-mem  τ = α₃ + 2(p−1)/p·S/B₃
//	otherwise                                     NCCL (vllmAllReduce.NCCL)
//
// B₁ is the rate at which each rank reads its p−1 peers' buffers; B₂ and B₃
// are bus bandwidths as nccl-tests reports them.
type vllmAllReduceParams struct {
	// Ranks is the rank count p, one of 2, 4, 6, 8. An entry for more than
	// 2 ranks means the GPUs are fully connected by NVLink (vLLM's custom
	// kernel needs that beyond 2 GPUs); a PCIe peer-to-peer pair has an
	// entry for 2 ranks only.
	Ranks int `json:"ranks" yaml:"ranks"`
	// CustomMaxBytes is vLLM's max_size: the custom kernel takes messages
	// strictly smaller, in bytes. vllmCustomMaxBytes by default.
	CustomMaxBytes float64 `json:"custom_max_bytes" yaml:"custom_max_bytes"`
	// OneShot prices the one-shot kernel; Bandwidth is B₁.
	OneShot linkCost `json:"one_shot" yaml:"one_shot"`
	// TwoShot prices the two-shot kernel; Bandwidth is the bus bandwidth
	// B₂. Zero when CustomMaxBytes ≤ oneShotMaxBytes(Ranks) (never run).
	TwoShot linkCost `json:"two_shot,omitzero" yaml:"two_shot,omitempty"`
	// SymmMemMaxBytes is the largest message PyTorch's symmetric-memory
	// all-reduce takes, in bytes (inclusive); 0 when it is unavailable
	// (before Hopper, or with VLLM_ALLREDUCE_USE_SYMM_MEM=0).
	SymmMemMaxBytes float64 `json:"symm_mem_max_bytes,omitempty" yaml:"symm_mem_max_bytes,omitempty"`
	// SymmMem prices the symmetric-memory all-reduce; Bandwidth is the bus
	// bandwidth B₃. Zero when SymmMemMaxBytes is 0.
	SymmMem linkCost `json:"symm_mem,omitzero" yaml:"symm_mem,omitempty"`
}

// algorithm returns the implementation vLLM runs for a message of bytes
// bytes at e.Ranks ranks.
func (e vllmAllReduceParams) algorithm(bytes float64) arAlgorithm {
	switch {
	case bytes < e.CustomMaxBytes && bytes < oneShotMaxBytes(e.Ranks):
		return arOneShot
	case bytes < e.CustomMaxBytes:
		return arTwoShot
	case bytes <= e.SymmMemMaxBytes:
		return arSymmMem
	default:
		return arnccl
	}
}

// twoShotUsed reports whether some message size runs two-shot.
func (e vllmAllReduceParams) twoShotUsed() bool { return e.CustomMaxBytes > oneShotMaxBytes(e.Ranks) }

// coefficients returns τ = alpha + perByte·S for algorithm a at e.Ranks
// ranks; a must not be arnccl.
func (e vllmAllReduceParams) coefficients(a arAlgorithm) (alpha, perByte float64) {
	switch a {
	case arOneShot:
		return e.OneShot.Alpha, float64(e.Ranks-1) / e.OneShot.Bandwidth
	case arTwoShot:
		return e.TwoShot.Alpha, busBytes(1, e.Ranks) / e.TwoShot.Bandwidth
	default:
		return e.SymmMem.Alpha, busBytes(1, e.Ranks) / e.SymmMem.Bandwidth
	}
}

// problems lists what is wrong with e, each field named under prefix (the
// entry's place in its table, "vllm_all_reduce[0]").
func (e vllmAllReduceParams) problems(prefix string) []error {
	var out []error
	bad := func(field string, value any, limit string) {
		out = append(out, invalidField(prefix+"."+field, value, "%s", limit))
	}
	if !vllmCustomRanks(e.Ranks) {
		bad("ranks", e.Ranks, "must be 2, 4, 6 or 8 (vLLM's custom all-reduce sizes)")
	}
	if !positiveFinite(e.CustomMaxBytes) {
		bad("custom_max_bytes", e.CustomMaxBytes, "must be a finite number > 0")
	}
	if !nonNegativeFinite(e.SymmMemMaxBytes) {
		bad("symm_mem_max_bytes", e.SymmMemMaxBytes, "must be a finite number >= 0")
	}
	link := func(name string, c linkCost) {
		if !nonNegativeFinite(c.Alpha) {
			bad(name+".alpha_s", c.Alpha, "must be a finite number >= 0")
		}
		if !positiveFinite(c.Bandwidth) {
			bad(name+".bandwidth_bytes_per_s", c.Bandwidth, "must be a finite number > 0")
		}
	}
	link("one_shot", e.OneShot)
	if e.twoShotUsed() || e.TwoShot != (linkCost{}) {
		link("two_shot", e.TwoShot)
	}
	if e.SymmMemMaxBytes > 0 || e.SymmMem != (linkCost{}) {
		link("symm_mem", e.SymmMem)
	}
	return out
}

// vllmAllReduceTable holds vllmAllReduceParams for the rank counts at which
// vLLM's custom all-reduce runs on one kind of system. Unlike
// AlphaBetaTable it matches rank counts exactly: a rank count without an
// entry has no custom all-reduce (vLLM falls back to NCCL).
type vllmAllReduceTable []vllmAllReduceParams

// params returns the entry for exactly p ranks; ok is false when there is
// none or p is not a size vLLM's custom all-reduce supports.
func (t vllmAllReduceTable) params(p int) (e vllmAllReduceParams, ok bool) {
	if !vllmCustomRanks(p) {
		return vllmAllReduceParams{}, false
	}
	for _, e := range t {
		if e.Ranks == p {
			return e, true
		}
	}
	return vllmAllReduceParams{}, false
}

// Validate checks every entry and that no rank count appears twice; each
// problem is an ErrInvalidSpec *fielderr.Error at the entry's place in a
// GPU file ("vllm_all_reduce[0].custom_max_bytes"), joined in table order.
func (t vllmAllReduceTable) Validate() error { return errors.Join(t.problems()...) }

func (t vllmAllReduceTable) problems() []error {
	var out []error
	seen := make(map[int]bool, len(t))
	for i, e := range t {
		at := fmt.Sprintf("vllm_all_reduce[%d]", i)
		out = append(out, e.problems(at)...)
		if seen[e.Ranks] {
			out = append(out, invalidField(at+".ranks", e.Ranks, "is listed twice"))
		}
		seen[e.Ranks] = true
	}
	return out
}

// vllmAllReduce times an all-reduce as vLLM dispatches a tensor-parallel
// one: its custom one-shot or two-shot kernel, then PyTorch's symmetric
// memory, where Custom has an entry for the rank count and the message
// falls in their ranges, and NCCL otherwise. It implements AllReduce; a
// Deployment whose Comm is nil builds the same dispatch from its GPU's
// VLLMAllReduce and AllReduce tables.
type vllmAllReduce struct {
	// Custom describes the custom and symmetric-memory algorithms; empty
	// means NCCL for every message (no peer-to-peer, as on GeForce cards).
	Custom vllmAllReduceTable
	// NCCL times every message the others decline: an AlphaBetaTable, an
	// NCCL table of measurements (topology.LoadNCCLTable) or any
	// AllReduce. A nil NCCL makes those messages cost +Inf.
	NCCL AllReduce
}

// algorithm returns what vLLM runs for a message of bytes bytes over ranks
// ranks.
func (v vllmAllReduce) algorithm(bytes float64, ranks int) arAlgorithm {
	if e, ok := v.Custom.params(ranks); ok {
		return e.algorithm(bytes)
	}
	return arnccl
}

// Time returns the time of one all-reduce of bytes bytes over ranks ranks,
// in seconds; 0 for ranks ≤ 1. It does not allocate.
func (v vllmAllReduce) Time(bytes float64, ranks int) float64 {
	if ranks <= 1 {
		return 0
	}
	if e, ok := v.Custom.params(ranks); ok {
		if a := e.algorithm(bytes); a != arnccl {
			alpha, perByte := e.coefficients(a)
			return alpha + perByte*bytes
		}
	}
	if v.NCCL == nil {
		return math.Inf(1)
	}
	return v.NCCL.Time(bytes, ranks)
}

// Validate checks Custom and, when it has a Validate method, NCCL.
func (v vllmAllReduce) Validate() error {
	err := v.Custom.Validate()
	if n, ok := v.NCCL.(interface{ Validate() error }); ok {
		return errors.Join(err, n.Validate())
	}
	return err
}

// arCurve is a Deployment's all-reduce time at its TP degree as a piecewise
// linear function of the message size: piece i covers sizes below upTo[i]
// (the last piece every size), τ = alpha[i] + perByte[i]·S.
type arCurve struct {
	n              int
	upTo           [4]float64
	alpha, perByte [4]float64
}

func (c *arCurve) add(upTo, alpha, perByte float64) {
	c.upTo[c.n], c.alpha[c.n], c.perByte[c.n] = upTo, alpha, perByte
	c.n++
}

// at returns the time of one all-reduce of s bytes. O(pieces), no
// allocation.
func (c *arCurve) at(s float64) float64 {
	i := 0
	for i < c.n-1 && s >= c.upTo[i] {
		i++
	}
	return c.alpha[i] + c.perByte[i]*s
}

// tpAllReduce builds the all-reduce curve of vLLM's dispatch at p ranks on
// g: g.VLLMAllReduce's algorithms in their ranges, then g.AllReduce (NCCL
// α–β; +Inf without an entry).
func (g *GPUSpec) tpAllReduce(p int) arCurve {
	var c arCurve
	if e, ok := g.VLLMAllReduce.params(p); ok {
		oneShotEnd := min(oneShotMaxBytes(p), e.CustomMaxBytes)
		a, b := e.coefficients(arOneShot)
		c.add(oneShotEnd, a, b)
		if e.twoShotUsed() {
			a, b = e.coefficients(arTwoShot)
			c.add(e.CustomMaxBytes, a, b)
		}
		if e.SymmMemMaxBytes >= e.CustomMaxBytes {
			a, b = e.coefficients(arSymmMem)
			c.add(math.Nextafter(e.SymmMemMaxBytes, math.Inf(1)), a, b) // ≤ SymmMemMaxBytes
		}
	}
	if ab, ok := g.AllReduce.Params(p); ok {
		a, b := ab.coefficients(p)
		c.add(math.Inf(1), a, b)
	} else {
		c.add(math.Inf(1), math.Inf(1), 0)
	}
	return c
}
