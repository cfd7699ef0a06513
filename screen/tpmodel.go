package screen

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/cost"
)

// TPModel is the ideal tensor-parallel screen of
// docs/cost-model.md#tp-speed-up: the projections of a step run at a fixed
// effective rate and split perfectly 1/p across ranks, and each of the 2L
// all-reduces per step costs α_p + 2(p−1)S/(p·B_p). It ignores memory
// traffic, attention scores and GEMM efficiency loss at small per-rank
// widths, so it is optimistic; it answers "can TP=p pay for its
// communication at T active tokens at all?".
//
// Every assumption is an explicit field, so the reference table of
// docs/reference-numbers.md#tp-speed-up-table reproduces exactly (see
// ReferenceTPModel).
type TPModel struct {
	// Model supplies H, I, H_KV, L and e_a (Model.ActBytes).
	Model cost.ModelSpec
	// ProjFLOPS is the effective single-GPU projection rate, in FLOP/s;
	// the projection time of T tokens at p = 1 is a·T with
	// a = L·F(1)/ProjFLOPS.
	ProjFLOPS float64
	// Comm gives α_p and B_p per rank count (see cost.AlphaBetaTable.Params).
	Comm cost.AlphaBetaTable
	// OtherDelta is Δt_other, extra non-communication time per step that TP
	// adds (synchronisation, narrower kernels), in seconds; 0 in the ideal
	// model.
	OtherDelta float64
}

// ReferenceTPModel returns the assumptions of the TP table of
// docs/reference-numbers.md#tp-speed-up-table: the Llama-3.1-70B shape
// (H=8192, I=28672, H_KV=1024, L=80, BF16 activations), 120 TFLOP/s
// effective single-GPU projection rate, α = 8 µs and B = 150 GB/s at every
// rank count, ideal 1/p GEMM split.
func ReferenceTPModel() TPModel {
	m, err := cost.Model("llama-3.1-70b")
	if err != nil {
		panic(err) // the catalog holds it; cost's tests check every entry
	}
	return TPModel{Model: m, ProjFLOPS: 120e12, Comm: cost.AlphaBetaTable{{Alpha: 8e-6, BusBandwidth: 150e9}}}
}

// validate checks the model, the rate, the all-reduce table and the delta.
func (t TPModel) validate() error {
	errs := []error{t.Model.Validate(), t.Comm.Validate()}
	if !(t.ProjFLOPS > 0) || math.IsInf(t.ProjFLOPS, 1) {
		errs = append(errs, fmt.Errorf("%w: tp model proj_flops %v must be a finite number > 0", ErrInvalid, t.ProjFLOPS))
	}
	if len(t.Comm) == 0 {
		errs = append(errs, fmt.Errorf("%w: tp model needs at least one all_reduce entry", ErrInvalid))
	}
	if !(t.OtherDelta >= 0) || math.IsInf(t.OtherDelta, 1) {
		errs = append(errs, fmt.Errorf("%w: tp model other_delta %v must be a finite number >= 0", ErrInvalid, t.OtherDelta))
	}
	return errors.Join(errs...)
}

// projTime returns t_proj,1 = L·F(T)/ProjFLOPS, the single-GPU projection
// time of a step of tokens tokens, in seconds.
func (t TPModel) projTime(tokens float64) float64 {
	return float64(t.Model.Layers) * t.Model.ProjectionFLOPsPerLayer(tokens) / t.ProjFLOPS
}

// allReduceTime returns τ_AR(T·H·e_a, p), one all-reduce of a step of tokens
// tokens at p ranks, in seconds (0 for p ≤ 1).
func (t TPModel) allReduceTime(tokens float64, p int) float64 {
	return t.Comm.Time(t.Model.AllReducePayload(tokens), p)
}

// stepTime returns the ideal TP step time
// t_p = t_proj,1/p + 2L·τ_AR(T·H·e_a, p) + Δt_other, in seconds; at p = 1 it
// is t_proj,1. It returns NaN for p < 1.
func (t TPModel) stepTime(tokens float64, p int) float64 {
	if p < 1 {
		return math.NaN()
	}
	if p == 1 {
		return t.projTime(tokens)
	}
	return t.projTime(tokens)/float64(p) + allReducesPerStep(t.Model)*t.allReduceTime(tokens, p) + t.OtherDelta
}

// allReducesPerStep returns 2L: under tensor parallelism every block
// all-reduces twice, after attention and after the MLP.
func allReducesPerStep(m cost.ModelSpec) float64 { return 2 * float64(m.Layers) }

// StepTraffic returns the bus-equivalent bytes each rank moves in one step
// of tokens tokens at TP degree p: V = 4L·(p−1)/p·T·H·e_a (2L all-reduces of
// 2(p−1)/p·S each, the per-byte part of an α–β all-reduce at one byte a
// second). It is 0 for p ≤ 1.
func (t TPModel) StepTraffic(tokens float64, p int) float64 {
	ring := cost.AlphaBeta{BusBandwidth: 1}
	return allReducesPerStep(t.Model) * ring.Time(t.Model.AllReducePayload(tokens), p)
}

// Speedup returns t_1/t_p for a step of tokens tokens; below 1 TP is slower.
func (t TPModel) Speedup(tokens float64, p int) float64 {
	return t.stepTime(tokens, 1) / t.stepTime(tokens, p)
}

// Threshold returns T*, the number of active tokens above which TP=p beats
// one GPU in this model (docs/cost-model.md#token-threshold):
//
//	T* = (2L·α_p + Δt_other) / (a(1 − 1/p) − 4L·(p−1)/p · H·e_a/B_p)
//
// with a the single-GPU projection time per token. ok is false when no T
// helps: p < 2, or a denominator ≤ 0 (the bandwidth term alone eats the
// ideal compute saving); T is then +Inf.
func (t TPModel) Threshold(p int) (tokens float64, ok bool) {
	if p < 2 {
		return math.Inf(1), false
	}
	ab, found := t.Comm.Params(p)
	if !found {
		return math.Inf(1), false
	}
	l := float64(t.Model.Layers)
	a := t.projTime(1)
	frac := float64(p-1) / float64(p)
	den := a*frac - 4*l*frac*float64(t.Model.Hidden)*t.Model.ActBytes/ab.BusBandwidth
	if !(den > 0) {
		return math.Inf(1), false
	}
	return (2*l*ab.Alpha + t.OtherDelta) / den, true
}
