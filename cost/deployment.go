package cost

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/fielderr"
)

// DefaultRuntimeReserveBytes is the per-rank memory a Deployment sets aside
// for activations, CUDA graphs, the CUDA context and allocator slack when
// RuntimeReserveBytes is 0: 1 GiB, the order of vLLM's profiled peak for a
// 7B–70B model at its default 8192-token batch budget. With it, Qwen2.5-7B on
// an RTX 4090 at 0.9 utilisation keeps the 6.41 GiB KV pool of
// docs/reference-numbers.md#kv-pool.
const DefaultRuntimeReserveBytes = 1 * GiB

// Efficiency turns the roofline floor into a prediction: the achieved
// fractions of peak memory bandwidth and of peak FLOP/s, and a fixed cost per
// step (kernel launches, scheduling, sampling, Python).
//
// The zero Efficiency is the ideal roofline floor: a zero Bandwidth or FLOPs
// means 1 (full peak) and a zero StepOverhead means none. Use
// DefaultEfficiency for a realistic starting point; package calibrate fits a
// GPU's Profile, which replaces it, to measurements.
type Efficiency struct {
	// Bandwidth is the achieved fraction of peak memory bandwidth, in (0, 1];
	// 0 means 1.
	Bandwidth float64 `json:"bandwidth" yaml:"bandwidth"`
	// FLOPs is the achieved fraction of peak FLOP/s, in (0, 1]; 0 means 1.
	FLOPs float64 `json:"flops" yaml:"flops"`
	// StepOverhead is a fixed time added to every step, in seconds, ≥ 0.
	StepOverhead float64 `json:"step_overhead_s" yaml:"step_overhead_s"`
}

// DefaultEfficiency returns a starting point for a tuned engine such as vLLM
// with CUDA graphs, to be replaced by a Profile fitted to measurements
// (package calibrate):
//
//   - Bandwidth 0.80: streaming kernels reach 85–92% of datasheet bandwidth
//     (STREAM-like copies); decode GEMV and paged-attention kernels lose a few
//     points more to tails and launch gaps.
//   - FLOPs 0.60: large BF16 GEMMs reach 70–80% of dense peak, but a step also
//     runs narrower per-rank GEMMs, attention and elementwise kernels.
//   - StepOverhead 1 ms: per-step CPU work (scheduling, input preparation,
//     sampling, detokenisation hand-off) that CUDA graphs and async
//     scheduling do not hide; it is what makes batch-1 decode slower than the
//     weight-streaming floor by more than the bandwidth factor.
func DefaultEfficiency() Efficiency {
	return Efficiency{Bandwidth: 0.80, FLOPs: 0.60, StepOverhead: 1e-3}
}

// validate checks that the fractions lie in [0, 1] (0 meaning 1) and the
// overhead is finite and ≥ 0; NaN fails. Fields are named by their keys
// in an efficiency block ("flops").
func (e Efficiency) validate() error {
	var errs []error
	if !(e.Bandwidth >= 0 && e.Bandwidth <= 1) {
		errs = append(errs, invalidField("bandwidth", e.Bandwidth, "must be in (0, 1] (0 = ideal)"))
	}
	if !(e.FLOPs >= 0 && e.FLOPs <= 1) {
		errs = append(errs, invalidField("flops", e.FLOPs, "must be in (0, 1] (0 = ideal)"))
	}
	if !nonNegativeFinite(e.StepOverhead) {
		errs = append(errs, invalidField("step_overhead_s", e.StepOverhead, "must be a finite number >= 0"))
	}
	return errors.Join(errs...)
}

// fractions returns the bandwidth and FLOP fractions with 0 read as 1.
func (e Efficiency) fractions() (bw, fl float64) {
	bw, fl = e.Bandwidth, e.FLOPs
	if bw == 0 {
		bw = 1
	}
	if fl == 0 {
		fl = 1
	}
	return bw, fl
}

// Shape is how a model's attention heads and MLP split across p
// tensor-parallel ranks.
type Shape struct {
	// TP is the tensor-parallel degree p.
	TP int
	// HeadsPerRank is heads/p query heads on each rank.
	HeadsPerRank int
	// KVHeadsPerRank is the number of KV heads each rank stores:
	// kv_heads/p, or 1 when p > kv_heads.
	KVHeadsPerRank int
	// KVReplication is how many ranks hold a copy of each KV head: 1, or
	// p/kv_heads when p > kv_heads (KV heads are replicated, and the KV cache
	// and K/V weights stop shrinking with p).
	KVReplication int
	// IntermediatePerRank is I/p MLP columns on each rank.
	IntermediatePerRank int
}

// String summarises the split, e.g. "tp=8: 8 heads, 1 kv head (replicated
// ×2), 3584 MLP columns per rank".
func (s Shape) String() string {
	kv := "kv heads"
	if s.KVHeadsPerRank == 1 {
		kv = "kv head"
	}
	rep := ""
	if s.KVReplication > 1 {
		rep = fmt.Sprintf(" (replicated ×%d)", s.KVReplication)
	}
	return fmt.Sprintf("tp=%d: %d heads, %d %s%s, %d MLP columns per rank",
		s.TP, s.HeadsPerRank, s.KVHeadsPerRank, kv, rep, s.IntermediatePerRank)
}

// Shape splits m across p tensor-parallel ranks. It fails, matching
// ErrInvalidSpec, when p < 1, when p does not divide heads, the MLP
// intermediate size (when a layer has a dense MLP) or the shared-expert
// width, or when neither p nor kv_heads divides the other (the KV heads
// cannot be split evenly nor replicated evenly; vLLM refuses these).
// p > kv_heads is allowed and reported through KVReplication. With MLA the
// latent cache is one head replicated on every rank (KVReplication p).
// Routed experts split by Deployment.EP, not here. Each problem is an
// ErrInvalidSpec *fielderr.Error at field "tp" (a deployment's key), whose
// limit names the model.
func (m ModelSpec) Shape(p int) (Shape, error) {
	var errs []error
	bad := func(limit string, args ...any) {
		errs = append(errs, invalidField("tp", p, limit+" of model %q", append(args, m.Name)...))
	}
	if p < 1 {
		errs = append(errs, invalidField("tp", p, "must be >= 1"))
		return Shape{}, errors.Join(errs...)
	}
	if m.Heads > 0 && m.Heads%p != 0 {
		bad("must divide heads %d", m.Heads)
	}
	if m.Intermediate > 0 && m.Intermediate%p != 0 && m.hasDenseMLP() {
		bad("must divide intermediate %d", m.Intermediate)
	}
	if m.SharedIntermediate%p != 0 {
		bad("must divide shared_intermediate %d", m.SharedIntermediate)
	}
	if !m.mla() && m.KVHeads > 0 && m.KVHeads%p != 0 && p%m.KVHeads != 0 {
		bad("must divide, or be a multiple of, kv_heads %d", m.KVHeads)
	}
	if len(errs) > 0 {
		return Shape{}, errors.Join(errs...)
	}
	return m.split(p), nil
}

// split computes the per-rank shape without checks; it never divides by
// zero.
func (m ModelSpec) split(p int) Shape {
	p = max(p, 1)
	s := Shape{TP: p, HeadsPerRank: m.Heads / p, IntermediatePerRank: m.Intermediate / p,
		KVHeadsPerRank: m.kvHeadsPerRank(p), KVReplication: 1}
	switch {
	case m.mla(): // the latent is one KV head, replicated on every rank
		s.KVReplication = p
	case p > m.KVHeads && m.KVHeads > 0: // one replicated head per rank
		s.KVReplication = p / m.KVHeads
	}
	return s
}

// hasDenseMLP reports whether some layer has a dense MLP of width
// Intermediate: every layer of a dense model, DenseLayers of a MoE one.
func (m *ModelSpec) hasDenseMLP() bool { return m.Experts == 0 || m.DenseLayers > 0 }

// kvHeadsPerRank returns the KV heads each of p ≥ 1 ranks stores:
// kv_heads/p, or 1 once p > kv_heads and the heads are replicated, or 1
// with MLA (the latent).
func (m *ModelSpec) kvHeadsPerRank(p int) int {
	if m.mla() || (p > m.KVHeads && m.KVHeads > 0) {
		return 1
	}
	return m.KVHeads / p
}

// Deployment is one engine replica: a model on TP GPUs of one kind, the
// all-reduce model of their interconnect, the efficiency profile that turns
// roofline floors into predicted step times, and the memory settings that
// size the KV cache. It is the one description of a deployment: servers
// such as batching.Config hold it whole. Write it literally; the zero values
// of Eff, Comm, PeakFLOPS, GPUMemoryUtilization, KVCacheMemory and
// RuntimeReserveBytes select documented defaults.
type Deployment struct {
	// Model is the served model.
	Model ModelSpec `json:"model" yaml:"model"`
	// GPU is the accelerator of every rank.
	GPU GPUSpec `json:"gpu" yaml:"gpu"`
	// TP is the tensor-parallel degree p ≥ 1 of attention (and of dense
	// MLPs, shared experts and the LM head).
	TP int `json:"tp" yaml:"tp"`
	// DP is the attention data-parallel degree D (vLLM's
	// --data-parallel-size with a MoE model): D groups of TP ranks, each
	// running its own batch through its own attention and KV cache, all
	// sharing the MoE layers. 0 or 1 means none. The deployment then spans
	// TP·DP GPUs (GPUs), Step describes one group's step with every group
	// assumed to run a batch like it, and Memory one group's KV pool
	// (docs/cost-model.md#mixture-of-experts).
	DP int `json:"dp,omitempty" yaml:"dp,omitempty"`
	// EP is the expert-parallel degree: the routed experts of each MoE layer
	// are split EP ways over the TP·DP ranks, and each expert TP·DP/EP ways
	// (vLLM's --enable-expert-parallel is EP = TP·DP). 0 or 1 means none.
	EP int `json:"ep,omitempty" yaml:"ep,omitempty"`
	// Eff holds the efficiency knobs; the zero value is the ideal floor.
	Eff Efficiency `json:"efficiency" yaml:"efficiency"`
	// Profile, when set, replaces Eff: the per-GPU efficiency profile
	// (GEMM efficiency by step size, attention, per-sequence step overhead,
	// frontend overhead, sampling); see Profile and DefaultProfile.
	Profile *Profile `json:"profile,omitempty" yaml:"profile,omitempty"`
	// Comm times one all-reduce; nil means vLLM's dispatch on the GPU's
	// tables: its custom and symmetric-memory all-reduces from
	// GPU.VLLMAllReduce where they apply, NCCL α–β from GPU.AllReduce
	// otherwise and for the MoE data-parallel exchange
	// (docs/cost-model.md#vllms-all-reduce). Set it to what
	// topology.LoadNCCLTable returns to use NCCL measurements, or to any
	// AllReduce. It is not read from or written to files: a file describes
	// the interconnect through the GPU's all_reduce and vllm_all_reduce
	// tables.
	Comm AllReduce `json:"-" yaml:"-"`
	// AllToAll, when set, prices the MoE data-parallel exchange as
	// all-to-all dispatch and combine kernels by the link each crosses
	// (AllToAllByName), instead of an all-gather and reduce-scatter
	// through Comm; it needs DP ≥ 2 and EP = TP·DP, which may span nodes.
	AllToAll *AllToAll `json:"all_to_all,omitempty" yaml:"all_to_all,omitempty"`
	// PeakFLOPS overrides the per-rank peak FLOP/s of every GEMM, the routed
	// experts' included; 0 means the GPU's dense peak for the model's GEMM
	// precision (ModelSpec.GEMM, and ExpertGEMM for the experts), else for
	// its activation size (GPU.PeakFLOPS.ForBytes).
	PeakFLOPS float64 `json:"peak_flops,omitempty" yaml:"peak_flops,omitempty"`
	// GPUMemoryUtilization is the fraction of each GPU's memory the engine
	// may use, in (0, 1] (vLLM's gpu_memory_utilization); the KV pool is
	// what the weights and the runtime reserve leave of it. 0 means
	// DefaultGPUMemoryUtilization. Ignored when KVCacheMemory is set.
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization,omitempty" yaml:"gpu_memory_utilization,omitempty"`
	// KVCacheMemory, when > 0, is the KV pool of each GPU in bytes (vLLM's
	// kv_cache_memory), overriding GPUMemoryUtilization.
	KVCacheMemory float64 `json:"kv_cache_memory,omitempty" yaml:"kv_cache_memory,omitempty"`
	// RuntimeReserveBytes is per-rank memory kept for activations and the
	// runtime, in bytes; 0 means DefaultRuntimeReserveBytes.
	RuntimeReserveBytes float64 `json:"runtime_reserve_bytes,omitempty" yaml:"runtime_reserve_bytes,omitempty"`
	// StateSeqs is the number of sequences whose linear-attention state
	// (ModelSpec.StateBytesPerSeq) Memory reserves out of the KV pool, as
	// vLLM's engine holds up to max_num_seqs at once; 0 means
	// defaultStateSeqs. Ignored for a model without linear attention.
	StateSeqs int `json:"state_seqs,omitempty" yaml:"state_seqs,omitempty"`
}

// DefaultGPUMemoryUtilization is the gpu_memory_utilization a Deployment
// uses when GPUMemoryUtilization is 0: vLLM's default, 0.9.
const DefaultGPUMemoryUtilization = 0.9

// Validate checks the model, the GPU, the all-reduce model, the efficiency
// knobs and the memory settings, and the shape checks that make the
// deployment impossible (docs/cost-model.md#tp-shape): tp must divide
// heads and the MLP intermediate size. Replicated KV heads (tp > kv_heads)
// are allowed; see Shape. Each problem is an ErrInvalidSpec
// *fielderr.Error named by its key in a deployment file ("tp",
// "model.layers", "gpu.memory_bytes", "efficiency.flops"), joined with
// errors.Join in the order of the fields.
func (d Deployment) Validate() error {
	errs := []error{fielderr.In("model", d.Model.Validate()), fielderr.In("gpu", d.GPU.Validate()),
		fielderr.In("efficiency", d.Eff.validate())}
	if d.Profile != nil {
		errs = append(errs, fielderr.In("profile", d.Profile.Validate()))
	}
	if v, ok := d.Comm.(interface{ Validate() error }); ok {
		errs = append(errs, fielderr.In("comm", v.Validate()))
	}
	errs = append(errs, d.validateAllToAll())
	if d.TP < 1 {
		errs = append(errs, invalidField("tp", d.TP, "must be >= 1"))
	} else if _, err := d.Model.Shape(d.TP); err != nil {
		errs = append(errs, err)
	}
	if !nonNegativeFinite(d.PeakFLOPS) {
		errs = append(errs, invalidField("peak_flops", d.PeakFLOPS, "must be a finite number >= 0"))
	} else if d.peakFLOPS() <= 0 {
		fe := invalidField("peak_flops", d.PeakFLOPS, "is unset and gpu %q has no peak for the %v-byte activations of model %q", d.GPU.Name, d.Model.ActBytes, d.Model.Name)
		fe.Fix = "set peak_flops"
		errs = append(errs, fe)
	} else if d.Model.Experts > 0 && d.expertPeakFLOPS() <= 0 {
		fe := invalidField("peak_flops", d.PeakFLOPS, "is unset and gpu %q has no peak for the %v experts of model %q", d.GPU.Name, d.Model.ExpertGEMM, d.Model.Name)
		fe.Fix = "set peak_flops"
		errs = append(errs, fe)
	}
	if d.TP > 1 && d.Comm == nil && len(d.GPU.AllReduce) == 0 {
		fe := invalidField("gpu.all_reduce", nil, "of gpu %q is empty, so tp %d has no all-reduce to time", d.GPU.Name, d.TP)
		fe.Fix = "set gpu.all_reduce, or Deployment.Comm"
		errs = append(errs, fe)
	}
	errs = append(errs, d.validateMoE()...)
	if !(d.GPUMemoryUtilization >= 0 && d.GPUMemoryUtilization <= 1) {
		errs = append(errs, invalidField("gpu_memory_utilization", d.GPUMemoryUtilization, "must be in (0, 1] (0 = %v)", DefaultGPUMemoryUtilization))
	}
	if !nonNegativeFinite(d.KVCacheMemory) {
		errs = append(errs, invalidField("kv_cache_memory", d.KVCacheMemory, "must be a finite number of bytes >= 0"))
	}
	if d.StateSeqs < 0 {
		errs = append(errs, invalidField("state_seqs", d.StateSeqs, "must be >= 0 (0: %d, vLLM's default max_num_seqs)", defaultStateSeqs))
	}
	if !nonNegativeFinite(d.RuntimeReserveBytes) {
		errs = append(errs, invalidField("runtime_reserve_bytes", d.RuntimeReserveBytes, "must be a finite number >= 0"))
	}
	return errors.Join(errs...)
}

// validateMoE checks the data- and expert-parallel degrees.
func (d Deployment) validateMoE() []error {
	var errs []error
	bad := func(field string, value any, limit string, args ...any) {
		errs = append(errs, invalidField(field, value, limit, args...))
	}
	if d.DP < 0 {
		bad("dp", d.DP, "must be >= 0 (0: none)")
	}
	if d.EP < 0 {
		bad("ep", d.EP, "must be >= 0 (0: none)")
	}
	if len(errs) > 0 {
		return errs
	}
	dp, ep, m := max(d.DP, 1), max(d.EP, 1), &d.Model
	if (dp > 1 || ep > 1) && m.Experts == 0 {
		field, value := "dp", d.DP
		if dp == 1 {
			field, value = "ep", d.EP
		}
		bad(field, value, "needs a mixture-of-experts model, and model %q is dense; use replicas", m.Name)
		return errs
	}
	if d.TP < 1 || m.Experts == 0 {
		return errs
	}
	ranks := d.TP * dp
	if ranks%ep != 0 || m.Experts%ep != 0 {
		bad("ep", ep, "must divide tp×dp %d and experts %d", ranks, m.Experts)
	} else if m.ExpertIntermediate%(ranks/ep) != 0 {
		field, value := "ep", ep // the experts split tp×dp/ep ways
		if ep == 1 {
			field, value = "dp", dp
		}
		bad(field, value, "gives tp×dp/ep %d, which must divide expert_intermediate %d", ranks/ep, m.ExpertIntermediate)
	}
	if dp > 1 && d.Comm == nil && d.AllToAll == nil {
		if _, ok := d.GPU.AllReduce.Params(dp); !ok {
			fe := invalidField("dp", dp, "needs gpu %q's all_reduce parameters for the MoE token exchange, and it has none", d.GPU.Name)
			fe.Fix = "set gpu.all_reduce, or Deployment.Comm"
			errs = append(errs, fe)
		}
	}
	return errs
}

// GPUs returns the GPUs of the deployment, TP·DP.
func (d Deployment) GPUs() int { return d.TP * max(d.DP, 1) }

// Shape returns the per-rank split of the model; see ModelSpec.Shape.
func (d Deployment) Shape() (Shape, error) { return d.Model.Shape(d.TP) }

// expertPeakFLOPS is peakFLOPS for the routed experts' GEMMs: the peak of
// ModelSpec.ExpertGEMM when that is set and no PeakFLOPS overrides it.
func (d *Deployment) expertPeakFLOPS() float64 {
	if d.PeakFLOPS == 0 && d.Model.ExpertGEMM != PrecisionUnset {
		return d.Model.ExpertGEMM.peak(d.GPU.PeakFLOPS)
	}
	return d.peakFLOPS()
}

// peakFLOPS returns the per-rank peak FLOP/s: PeakFLOPS, else the GPU's
// dense peak for the model's GEMM precision, else for its activation size.
func (d *Deployment) peakFLOPS() float64 {
	if d.PeakFLOPS > 0 {
		return d.PeakFLOPS
	}
	if d.Model.GEMM != PrecisionUnset {
		return d.Model.GEMM.peak(d.GPU.PeakFLOPS)
	}
	return d.GPU.PeakFLOPS.ForBytes(d.Model.ActBytes)
}

func (d Deployment) reserve() float64 {
	if d.RuntimeReserveBytes == 0 {
		return DefaultRuntimeReserveBytes
	}
	return d.RuntimeReserveBytes
}

func (d Deployment) memoryUtilization() float64 {
	if d.GPUMemoryUtilization == 0 {
		return DefaultGPUMemoryUtilization
	}
	return d.GPUMemoryUtilization
}

// kvProjParams returns the K and V projection weights of all layers, in
// elements: the part of the weights that stops shrinking with p once KV
// heads are replicated. It is 0 with MLA (see replicatedParams).
func (m ModelSpec) kvProjParams() float64 {
	if m.mla() {
		return 0
	}
	return float64(m.attentionLayers()) * 2 * float64(m.Hidden) * float64(m.kvWidth())
}

// replicatedParams returns the weights every tensor-parallel rank holds in
// full, as vLLM builds them (ReplicatedLinear): the MLA down-projections and
// the MoE routers. It is 0 for a dense grouped-query model.
func (m ModelSpec) replicatedParams() float64 {
	return float64(m.Layers)*m.mlaDownParams() + float64(m.moeLayers())*float64(m.Experts)*float64(m.Hidden)
}

// rankShare is what one of tp ranks holds of a model. Every per-rank size
// of the package is derived from a whole-model one through it, so that the
// step model and the Deployment methods cannot disagree. It holds only what
// the step model needs (see split for the full Shape): Deployment.Step
// builds one on every call.
type rankShare struct {
	tp             int     // ranks, ≥ 1
	headsPerRank   int     // query heads on the rank
	kvHeadsPerRank int     // KV heads on the rank (see kvHeadsPerRank)
	kvHeads        float64 // the model's KV heads (1 with MLA)
	kvParams       float64 // K and V projection weights of all layers, elements
	dp             float64 // attention data-parallel groups, ≥ 1
	experts        float64 // routed experts of one MoE layer held by the rank: E/EP
	expertTP       float64 // ranks each routed expert is split over: TP·DP/EP
}

// share returns the share of one of the deployment's ranks; it never
// divides by zero.
func (d *Deployment) share() rankShare {
	m := &d.Model
	p, dp, ep := max(d.TP, 1), max(d.DP, 1), max(d.EP, 1)
	r := rankShare{tp: p, headsPerRank: m.Heads / p, kvHeadsPerRank: m.kvHeadsPerRank(p),
		kvHeads: float64(m.KVHeads), kvParams: m.kvProjParams(),
		dp: float64(dp), experts: float64(m.Experts) / float64(ep), expertTP: float64(p*dp) / float64(ep)}
	if m.mla() {
		r.kvHeads = 1
	}
	return r
}

// kv returns the rank's part of x, a whole-model quantity proportional to
// the number of KV heads (K/V projection weights, KV-cache bytes):
// x·kvHeadsPerRank/kv_heads, which is x/p until p exceeds kv_heads and
// x/kv_heads beyond (one replicated head per rank).
func (r *rankShare) kv(x float64) float64 {
	if r.kvHeads <= 0 {
		return 0
	}
	return x * float64(r.kvHeadsPerRank) / r.kvHeads
}

// params returns the rank's part of params weight elements that count every
// layer's K and V projections in full: those split as the KV heads do
// (kv), everything else tp ways.
func (r *rankShare) params(params float64) float64 {
	return (params-r.kvParams)/float64(r.tp) + r.kv(r.kvParams)
}

// WeightBytesPerRank returns the bytes of weights resident on each rank:
// every parameter (embedding included) split TP ways, except that with
// replicated KV heads each rank keeps a whole K/V head, the MLA
// down-projections and MoE routers are replicated, and the routed experts
// (all of them resident) are split over all TP·DP ranks.
func (d Deployment) WeightBytesPerRank() float64 {
	m := &d.Model
	s := d.share()
	routed, repl := m.routedExpertParams(), m.replicatedParams()
	b := s.params(m.TotalParams()-routed-repl) * m.WeightBytes
	b += m.embeddingTotalParams() / float64(s.tp) * (m.embeddingBytes() - m.WeightBytes)
	return b + repl*m.WeightBytes + routed/(float64(s.tp)*s.dp)*m.expertBytes()
}

// StreamedWeightBytesPerRank returns the weight bytes each rank reads from
// memory in one step: its share of MatmulParams (the embedding lookup is not
// streamed). It is StepCost.WeightBytes of every non-empty step of a dense
// model; for a mixture of experts it leaves out the routed experts, which a
// step adds as its tokens touch them (docs/cost-model.md#mixture-of-experts).
func (d Deployment) StreamedWeightBytesPerRank() float64 {
	s := d.compile()
	return s.weightBytes
}

// KVBytesPerTokenPerRank returns the KV-cache bytes one token occupies on
// each rank: 2 · layers · (kv heads per rank) · head_dim · kv_bytes. It is
// Model.KVBytesPerToken()/TP until TP exceeds kv_heads, and stays at one
// head per rank beyond; with MLA it is Model.KVBytesPerToken() (the latent
// is replicated). Sliding-window layers are left out (see
// ModelSpec.slidingKVBytesPerToken).
func (d Deployment) KVBytesPerTokenPerRank() float64 {
	s := d.compile()
	return s.kvPerToken
}

// Memory is the per-rank memory budget of a deployment.
type Memory struct {
	// TP is the tensor-parallel degree.
	TP int
	// CapacityBytes is the GPU memory of one rank, in bytes.
	CapacityBytes float64
	// Utilization is the gpu_memory_utilization fraction used; with
	// KVCacheMemory set, the fraction weights, reserve and KV pool take.
	Utilization float64
	// UsableBytes is Utilization × CapacityBytes, in bytes.
	UsableBytes float64
	// WeightBytes is the weights resident on one rank, in bytes.
	WeightBytes float64
	// RuntimeBytes is the activation/runtime reserve of one rank, in bytes.
	RuntimeBytes float64
	// KVPoolBytes is UsableBytes − WeightBytes − RuntimeBytes, in bytes
	// (KVCacheMemory when that is set); negative when the weights do not
	// fit.
	KVPoolBytes float64
	// KVBytesPerToken is the KV bytes one token takes on one rank.
	KVBytesPerToken float64
	// StateBytesPerSeq is the linear-attention state one sequence keeps on
	// one rank (0 without linear attention), StateSeqs the sequences it is
	// reserved for, and StateBytes their product, taken out of the pool
	// before it is counted in blocks.
	StateBytesPerSeq float64
	StateSeqs        int
	StateBytes       float64
	// BlockSize is the paged-KV block size in tokens.
	BlockSize int
	// KVBlocks is ⌊KVPoolBytes / (BlockSize × KVBytesPerToken)⌋, the blocks
	// of the pool (0 when it does not fit).
	KVBlocks int
	// KVTokens is KVBlocks × BlockSize: the tokens the replica can hold in
	// its KV cache. Every rank holds its slice of the same tokens, so this is
	// also the replica's capacity: it is not multiplied by TP.
	KVTokens int
	// Fits reports whether at least one KV block fits beside the weights,
	// within the GPU's memory.
	Fits bool
}

// Memory computes the per-rank memory budget with vLLM semantics: usable =
// GPUMemoryUtilization × GPU memory; the KV pool is what the resident
// weights and the runtime reserve leave of it, or KVCacheMemory when that
// is set, counted in tokens and in blocks of blockSize tokens (per-rank pool
// ÷ per-rank KV bytes per token, no ×TP).
//
// It returns an error matching ErrInvalidSpec for an invalid deployment or
// blockSize < 1, and one matching ErrDoesNotFit — together with the
// filled-in Memory — when not even one block fits, or when weights, reserve
// and KVCacheMemory together exceed the GPU's memory.
func (d Deployment) Memory(blockSize int) (Memory, error) {
	if err := d.Validate(); err != nil {
		return Memory{}, err
	}
	if blockSize < 1 {
		return Memory{}, invalidField("block_size", blockSize, "must be >= 1")
	}
	m := Memory{
		TP:              d.TP,
		CapacityBytes:   d.GPU.MemoryBytes,
		WeightBytes:     d.WeightBytesPerRank(),
		RuntimeBytes:    d.reserve(),
		KVBytesPerToken: d.KVBytesPerTokenPerRank(),
		BlockSize:       blockSize,
	}
	if d.KVCacheMemory > 0 {
		m.KVPoolBytes = d.KVCacheMemory
		m.UsableBytes = m.WeightBytes + m.RuntimeBytes + m.KVPoolBytes
		m.Utilization = m.UsableBytes / m.CapacityBytes
	} else {
		m.Utilization = d.memoryUtilization()
		m.UsableBytes = m.Utilization * m.CapacityBytes
		m.KVPoolBytes = m.UsableBytes - m.WeightBytes - m.RuntimeBytes
	}
	d.reserveState(&m)
	if m.KVPoolBytes > 0 {
		// The block count saturates where KVTokens would overflow an int:
		// only a pool far beyond any card gets there, and it does not fit.
		blocks := math.Floor(m.KVPoolBytes / (float64(blockSize) * m.KVBytesPerToken))
		m.KVBlocks = int(min(blocks, float64(math.MaxInt/blockSize/2)))
		m.KVTokens = m.KVBlocks * blockSize
	}
	m.Fits = m.KVBlocks >= 1 && m.UsableBytes <= m.CapacityBytes
	if m.Fits {
		return m, nil
	}
	where := fmt.Sprintf("%s on %d×%s does not fit", d.Model.Name, d.TP, d.GPU.Name)
	switch {
	case d.KVCacheMemory == 0:
		return m, errorf(ErrDoesNotFit, "%s: weights %.1f GiB + runtime %.1f GiB per rank leave no %d-token KV block in usable %.1f GiB (%.2f × %.1f GiB)",
			where, m.WeightBytes/GiB, m.RuntimeBytes/GiB, blockSize, m.UsableBytes/GiB, m.Utilization, m.CapacityBytes/GiB)
	case m.UsableBytes > m.CapacityBytes:
		return m, errorf(ErrDoesNotFit, "%s: weights %.1f GiB + runtime %.1f GiB + kv_cache_memory %.1f GiB per rank exceed the GPU's %.1f GiB",
			where, m.WeightBytes/GiB, m.RuntimeBytes/GiB, m.KVPoolBytes/GiB, m.CapacityBytes/GiB)
	default:
		return m, errorf(ErrDoesNotFit, "%s: kv_cache_memory %v bytes holds no %d-token KV block at %v bytes per token per rank",
			where, d.KVCacheMemory, blockSize, m.KVBytesPerToken)
	}
}
