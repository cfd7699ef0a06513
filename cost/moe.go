package cost

import (
	"math"
)

// moeLayers returns the layers whose MLP is a mixture of experts:
// Layers − DenseLayers, or 0 for a dense model.
func (m ModelSpec) moeLayers() int {
	if m.Experts == 0 {
		return 0
	}
	return m.Layers - m.DenseLayers
}

// expertParams returns the weight elements of one routed expert, the three
// SwiGLU matrices 3·H·I_e.
func (m ModelSpec) expertParams() float64 {
	return 3 * float64(m.Hidden) * float64(m.ExpertIntermediate)
}

// routedExpertParams returns the weight elements of every routed expert of
// every MoE layer, moeLayers·E·3·H·I_e: what expert parallelism splits
// across ranks. It is 0 for a dense model.
func (m ModelSpec) routedExpertParams() float64 {
	return float64(m.moeLayers()) * float64(m.Experts) * m.expertParams()
}

// activeParams returns the parameters one token uses: TotalParams less the
// routed experts it does not use, moeLayers·(E − k)·3·H·I_e. It counts the
// input embedding and the LM head, as Qwen, DeepSeek and Mistral publish
// their "activated" sizes; OpenAI leaves the embedding out of gpt-oss's
// active count and MiniMax both (docs/cost-model.md#mixture-of-experts). For
// a dense model it is TotalParams. The step prices the experts a step
// touches (expectedDistinctExperts), not this count; the tests check it
// against the published active sizes.
func (m ModelSpec) activeParams() float64 {
	idle := float64(m.moeLayers()) * float64(m.Experts-m.ExpertsPerToken) * m.expertParams()
	return m.TotalParams() - idle
}

// expectedDistinctExperts returns the expected number of distinct routed
// experts of one MoE layer that a step of tokens tokens touches, k per
// token. With RoutingSkew 0 each token chooses its k of the E experts
// uniformly at random:
//
//	E·(1 − (1 − k/E)^T)
//
// (an expert is missed by one token with probability 1 − k/E, by all T
// independently with its T-th power), the most a router whose tokens
// choose independently can touch for a given T (Σ 1 − (1 − q_i)^T over the
// experts' shares q_i is concave, largest at equal shares). With
// RoutingSkew α the experts' loads follow the power law aiconfigurator
// draws for its MoE estimates (powerLawTouched), capped at what uniform
// routing touches. It is k at T = 1 and tends to E as T grows; 0 for
// T ≤ 0 or a dense model.
func (m ModelSpec) expectedDistinctExperts(tokens float64) float64 {
	if m.Experts == 0 || tokens <= 0 {
		return 0
	}
	return float64(m.Experts) * m.routing().touched(tokens)
}

// routing holds what the expected share of a layer's experts a step
// touches depends on.
type routing struct {
	logMiss  float64 // log(1 − k/E): uniform routing
	alpha    float64 // RoutingSkew; 0 for uniform routing
	experts  float64 // E
	perToken float64 // k
}

// routing returns m's routing; the zero value for a dense model.
func (m ModelSpec) routing() routing {
	if m.Experts == 0 {
		return routing{}
	}
	return routing{logMiss: m.logMissProbability(), alpha: m.RoutingSkew, experts: float64(m.Experts),
		perToken: float64(m.ExpertsPerToken)}
}

// touched returns the expected fraction of the experts that tokens tokens
// touch.
func (r routing) touched(tokens float64) float64 {
	uniform := distinctFraction(r.logMiss, tokens)
	if r.alpha == 0 {
		return uniform
	}
	// A modelling choice: skew touches at most what uniform routing does.
	// aiconfigurator's sampler touches more just past T·k = E and, with
	// few experts, up to T·k ≈ 20E, because it gives every expert a drawn
	// load of at least 1 there; that is its construction, not skew, and
	// the cap leaves the count up to 0.09 of E below the sampler's there.
	return min(uniform, powerLawTouched(tokens, r.experts, r.perToken, r.alpha))
}

// logMissProbability returns log(1 − k/E), the log of the probability that
// one token does not route to a given expert (−Inf when k = E).
func (m ModelSpec) logMissProbability() float64 {
	return math.Log1p(-float64(m.ExpertsPerToken) / float64(m.Experts))
}

// distinctFraction returns 1 − (1 − k/E)^T from logMiss = log(1 − k/E): the
// probability that a given expert is touched by T tokens.
func distinctFraction(logMiss, tokens float64) float64 {
	return -math.Expm1(tokens * logMiss)
}

// powerLawTouched returns the expected fraction of E experts that T tokens
// touch, k each, when the experts' loads follow the power law of exponent
// α (1 < α < 2) that aiconfigurator draws for its MoE estimates and its
// power_law timings (collector/helper.py, _generate_power_law_distribution
// at ai-dynamo/aiconfigurator@095f58a5): one load w per expert drawn from
// the density ∝ w^−α on [1, 0.8·T] (on [0.01, 2] when T·k ≤ E), scaled to
// the T·k token–expert pairs, rounded, capped at T, and the pairs the
// rounding and the cap leave over given one at a time to the least-loaded
// experts, the untouched ones first. In closed form, with the mean load μ
// in place of the loads' average: an expert is touched when its scaled load
// rounds to one or more, w ≥ θ = E·μ/(2·T·k); the pairs of the experts
// below θ (L) and above the cap φ = E·μ/k (O) touch one expert each more,
// up to E:
//
//	touched = min(E, E·P(w ≥ θ) + L + O) / E
//
// Against draws of the sampler itself this is 0.01 to 0.04 high
// (TestPowerLawTouchedMatchesSampler). It is k/E at T = 1 like uniform
// routing. For MiniMax-M2.5's 256 experts at α 1.2 it touches 0.49 of them
// at T·k = E against uniform routing's 0.64, 0.79 at 2E against 0.87 and
// 0.91 at 8E against 1.00, but more than uniform routing from E to 1.25E,
// where the drawn loads start at 1; with few experts (32, or 128 at k = 8)
// it stays above uniform routing up to T·k ≈ 20E (routing.touched caps
// it). Exponents near 1 and 2 and load ranges near a point are computed
// without cancellation (powDiff).
func powerLawTouched(tokens, experts, k, alpha float64) float64 {
	pairs := tokens * k
	if math.IsInf(tokens, 1) {
		return 1
	}
	lo, hi := 0.01, 2.0
	if pairs > experts {
		lo, hi = 1, 0.8*tokens
	}
	if !(hi > lo) || tokens <= 1 {
		return min(experts, pairs) / experts
	}
	g, h := 1-alpha, 2-alpha
	norm := powDiff(lo, hi, g)                                              // ∫ w^−α over [lo, hi]
	moment := func(a, b float64) float64 { return powDiff(a, b, h) / norm } // ∫ w·p(w) over [a, b]
	above := func(a float64) float64 { return powDiff(a, hi, g) / norm }    // P(w ≥ a), lo ≤ a ≤ hi
	mean := moment(lo, hi)
	var n float64
	switch theta := experts * mean / (2 * pairs); {
	case theta <= lo:
		n = experts
	case theta >= hi:
		n = pairs
	default:
		n = experts*above(theta) + pairs/mean*moment(lo, theta)
	}
	if phi := experts * mean / k; phi < hi {
		a := max(phi, lo)
		n += experts * (pairs/(experts*mean)*moment(a, hi) - tokens*above(a))
	}
	return min(experts, n) / experts
}

// powDiff returns (b^e − a^e)/e for 0 < a ≤ b, the integral of w^(e−1)
// over [a, b], as a^e·expm1(e·ln(b/a))/e: exact as e → 0, where it tends
// to ln(b/a), and as b → a.
func powDiff(a, b, e float64) float64 {
	l := math.Log(b / a)
	if e == 0 {
		return l
	}
	return math.Pow(a, e) * math.Expm1(e*l) / e
}

// expertBytes returns the bytes of one routed-expert weight:
// ExpertWeightBytes, or WeightBytes when that is 0.
func (m ModelSpec) expertBytes() float64 {
	if m.ExpertWeightBytes > 0 {
		return m.ExpertWeightBytes
	}
	return m.WeightBytes
}

// embeddingBytes returns the bytes of one embedding or LM-head weight:
// EmbeddingBytes, or WeightBytes when that is 0.
func (m ModelSpec) embeddingBytes() float64 {
	if m.EmbeddingBytes > 0 {
		return m.EmbeddingBytes
	}
	return m.WeightBytes
}

// moeEfficiency prices the routed experts of one MoE layer on one rank as
// vLLM's fused MoE kernels run them (fused_moe's Triton grouped GEMMs, the
// gpt-oss MXFP4 kernels, Marlin; docs/cost-model.md#fused-moe-kernels),
// instead of on the dense roofline. For P token–expert pairs routed through
// the layer (T·k over every data-parallel group's T tokens), touching d of
// the rank's experts (expected, expectedDistinctExperts) whose weights are
// W bytes, with F FLOPs of expert GEMMs on the rank and n = P/(experts
// touched over all ranks) tokens per touched expert, the layer takes
//
//	LayerOverhead [+ EPOverhead] + RoutingBytes·P·H/BW
//	  + max(W/(BW·Bandwidth), F·(n + HalfTokens)/(n·peak·GEMMMax))
//
// BW and peak being the GPU's peak bandwidth and the expert precision's
// peak FLOP/s. The grouped GEMMs' efficiency depends on the tokens each
// expert gets, not on the step's tokens: a decode step of 64 tokens with
// top-8 of 256 experts gives each touched expert about 2. The zero value
// means "no entry": the experts stay on the dense roofline.
type moeEfficiency struct {
	// Bandwidth is the achieved fraction of peak memory bandwidth when the
	// kernels read the touched experts' weights, in (0, 1].
	Bandwidth float64 `json:"bandwidth" yaml:"bandwidth"`
	// GEMMMax is the achieved fraction of peak FLOP/s of the expert GEMMs
	// when every touched expert gets many tokens, in (0, 1].
	GEMMMax float64 `json:"gemm_max" yaml:"gemm_max"`
	// HalfTokens is the tokens per touched expert at which the expert
	// GEMMs reach GEMMMax/2, ≥ 0.
	HalfTokens float64 `json:"half_tokens" yaml:"half_tokens"`
	// LayerOverhead is a fixed time per MoE layer and step, in seconds,
	// ≥ 0: top-k selection, sorting and aligning tokens by expert, the
	// kernels' fixed costs.
	LayerOverhead float64 `json:"layer_overhead_s" yaml:"layer_overhead_s"`
	// EPOverhead is the fixed time per MoE layer and step that expert
	// parallelism (EP > 1) adds to LayerOverhead, in seconds, ≥ 0: the
	// expert map and the masking of the tokens routed to other ranks.
	EPOverhead float64 `json:"ep_overhead_s" yaml:"ep_overhead_s"`
	// RoutingBytes is the memory traffic, in bytes at peak bandwidth, per
	// routed token–expert pair and per hidden element: gathering the
	// tokens by expert, the intermediate activations, the weighted
	// combine, ≥ 0. Every rank does it for every pair of the layer,
	// whichever rank holds the expert.
	RoutingBytes float64 `json:"routing_bytes" yaml:"routing_bytes"`
}

// IsZero reports whether e is the zero value (no entry).
func (e moeEfficiency) IsZero() bool { return e == moeEfficiency{} }

// MoEEfficiencies holds a moeEfficiency per precision of the expert
// weights (ModelSpec.ExpertGEMM, else ModelSpec.GEMM; a model without
// either by its expert weight bytes: 2 bf16, 1 fp8), as each precision
// runs a different kernel.
type MoEEfficiencies struct {
	// BF16 is for 16-bit experts (BF16 and FP16).
	BF16 moeEfficiency `json:"bf16,omitzero" yaml:"bf16,omitempty"`
	// FP8 is for FP8 experts (W8A8; block-scaled checkpoints).
	FP8 moeEfficiency `json:"fp8,omitzero" yaml:"fp8,omitempty"`
	// MXFP4 is for MXFP4 experts (gpt-oss).
	MXFP4 moeEfficiency `json:"mxfp4,omitzero" yaml:"mxfp4,omitempty"`
	// NVFP4 is for NVFP4 experts.
	NVFP4 moeEfficiency `json:"nvfp4,omitzero" yaml:"nvfp4,omitempty"`
	// INT4 is for 4-bit integer weight-only experts (W4A16).
	INT4 moeEfficiency `json:"int4,omitzero" yaml:"int4,omitempty"`
}

// IsZero reports whether m has no entry.
func (m MoEEfficiencies) IsZero() bool { return m == MoEEfficiencies{} }

// forPrecision returns the entry for experts stored in p (BF16 for FP16 too), or
// the zero value when there is none.
func (m MoEEfficiencies) forPrecision(p Precision) moeEfficiency {
	switch p {
	case BF16, FP16:
		return m.BF16
	case FP8:
		return m.FP8
	case MXFP4:
		return m.MXFP4
	case FP4:
		return m.NVFP4
	case INT4:
		return m.INT4
	}
	return moeEfficiency{}
}

// problems lists what is wrong with m's entries, each naming its field
// under prefix (such as "moe"), each an ErrInvalidSpec *fielderr.Error;
// a zero entry is fine.
func (m MoEEfficiencies) problems(prefix string) []error {
	var out []error
	for _, e := range []struct {
		name string
		v    moeEfficiency
	}{{"bf16", m.BF16}, {"fp8", m.FP8}, {"mxfp4", m.MXFP4}, {"nvfp4", m.NVFP4}, {"int4", m.INT4}} {
		if e.v.IsZero() {
			continue
		}
		name := prefix + "." + e.name + "."
		for _, f := range []struct {
			name string
			v    float64
		}{{"bandwidth", e.v.Bandwidth}, {"gemm_max", e.v.GEMMMax}} {
			if !(f.v > 0 && f.v <= 1) {
				out = append(out, invalidField(name+f.name, f.v, "must be in (0, 1]"))
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"half_tokens", e.v.HalfTokens}, {"layer_overhead_s", e.v.LayerOverhead}, {"ep_overhead_s", e.v.EPOverhead},
			{"routing_bytes", e.v.RoutingBytes}} {
			if !nonNegativeFinite(f.v) {
				out = append(out, invalidField(name+f.name, f.v, "must be a finite number >= 0"))
			}
		}
	}
	return out
}

// expertPrecision returns the precision of m's routed-expert weights:
// ExpertGEMM when set, else GEMM when set, else BF16 for 2-byte and FP8 for
// 1-byte expert weights (PrecisionUnset otherwise).
func (m ModelSpec) expertPrecision() Precision {
	if m.ExpertGEMM != PrecisionUnset {
		return m.ExpertGEMM
	}
	if m.GEMM != PrecisionUnset {
		return m.GEMM
	}
	switch m.expertBytes() {
	case 2:
		return BF16
	case 1:
		return FP8
	}
	return PrecisionUnset
}

// fusedMoE holds a step model's constants for routed experts priced by a
// moeEfficiency; all 0 when they are on the dense roofline.
type fusedMoE struct {
	bytes         float64 // all local routed experts of all MoE layers, per rank
	flopsPerToken float64 // expert GEMM FLOPs per token of the group, all MoE layers, per rank
	k, experts    float64 // experts per token; routed experts per layer
	invBandwidth  float64 // 1 / achieved bytes/s of the weight reads
	invFLOPS      float64 // 1 / achieved FLOP/s at GEMMMax
	half          float64 // HalfTokens
	fixed         float64 // MoE layers × (LayerOverhead + EPOverhead when EP > 1), s
	perPair       float64 // MoE layers × RoutingBytes × H / BW, s per token–expert pair
}

// compileFusedMoE fills s.fused from e for d's routed experts, whose
// per-rank weight bytes and FLOPs per token are bytes and flopsPerToken.
func (d *Deployment) compileFusedMoE(s *StepModel, e moeEfficiency, bytes, flopsPerToken float64) {
	m := &d.Model
	layers := float64(m.moeLayers())
	bw := d.GPU.BandwidthBytesPerS
	fixed := e.LayerOverhead
	if d.EP > 1 {
		fixed += e.EPOverhead
	}
	s.fused = fusedMoE{
		bytes:         bytes,
		flopsPerToken: flopsPerToken,
		k:             float64(m.ExpertsPerToken),
		experts:       float64(m.Experts),
		invBandwidth:  1 / (bw * e.Bandwidth),
		invFLOPS:      1 / (d.expertPeakFLOPS() * e.GEMMMax),
		half:          e.HalfTokens,
		fixed:         layers * fixed,
		perPair:       layers * e.RoutingBytes * float64(m.Hidden) / bw,
	}
}

// fusedMoEStep prices the routed experts of a step of t tokens by the
// profile's moeEfficiency (see moeEfficiency): it sets c.MoETime, and keeps
// the experts' bytes and FLOPs and the memory and compute parts of their
// time for context, which adds them to the counts after MemoryTime and
// ComputeTime are computed without them, and uses the parts for the Bound.
// It depends on t only, so it belongs to a step's shape.
func (s *StepModel) fusedMoEStep(c *StepCost, t float64) {
	f := &s.fused
	tokens := t * s.dp // the layer routes every data-parallel group's tokens
	touched := s.route.touched(tokens)
	bytes := f.bytes * touched
	flops := t * f.flopsPerToken
	pairs := tokens * f.k
	perExpert := pairs / (f.experts * touched)
	memory := bytes * f.invBandwidth
	compute := flops * (perExpert + f.half) / perExpert * f.invFLOPS
	c.MoETime = f.fixed + pairs*f.perPair + max(memory, compute)
	c.fusedBytes, c.fusedFLOPs, c.fusedMemory, c.fusedCompute = bytes, flops, memory, compute
}
