package cost

import (
	"errors"
	"math"
)

// bound says which roofline term limits a step.
type bound uint8

// Bound values of StepCost.Bound; the zero value marks an empty step.
const (
	_ bound = iota
	// boundMemory marks a step whose memory time exceeds its compute time.
	boundMemory
	// boundCompute marks a step whose compute time is at least its memory
	// time.
	boundCompute
)

var boundNames = [...]string{"", "memory", "compute"}

// String returns "memory", "compute", or "" for an empty step.
func (b bound) String() string {
	if int(b) < len(boundNames) {
		return boundNames[b]
	}
	return "unknown"
}

// MarshalText writes String.
func (b bound) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// Batch is the aggregate shape of one engine step. Every field is a sum a
// scheduler can maintain in O(1) as requests join and leave the batch.
//
// Context convention: a decoding request's context is the number of KV
// entries its new token attends to, i.e. vLLM's seq_len at that step,
// including the entry written for the new token itself (a request with L
// prompt tokens producing its k-th output token, k ≥ 2, has context
// L + k − 1). Those entries are read once; the write of the new entry is
// reported separately (StepCost.KVWriteBytes) and left out of the roofline
// bytes, so the floors of docs/reference-numbers.md#roofline-floors hold
// as printed.
type Batch struct {
	// DecodeSeqs is the number of requests generating one token this step.
	DecodeSeqs int
	// DecodeContext is Σ over decoding requests of their context, in tokens.
	DecodeContext float64
	// PrefillTokens is Σ prompt tokens computed this step over all chunks.
	PrefillTokens int
	// PrefillSeqs is the number of prefill chunks in the step.
	PrefillSeqs int
	// PrefillContext is Σ over chunks of the prior-context tokens read from
	// the KV cache (prefix-cache hits and earlier chunks).
	PrefillContext float64
	// PrefillPairs is Σ over chunks of causal query-key pairs,
	// c·p + c(c+1)/2 for a chunk of c tokens after p prior tokens (see
	// AddPrefill).
	PrefillPairs float64
	// DPTokens is, under attention data parallelism (Deployment.DP = D > 1),
	// the tokens of all D groups' batches of this step together, which the
	// MoE layers route and exchange; 0 means D times this batch's tokens,
	// every group running a batch like this one. Ignored without DP.
	DPTokens int
	// SpecTokens is Σ over decoding requests of the draft tokens they
	// verify this step (speculative decoding, docs/speculative.md): each
	// such request feeds 1 + d query tokens, which all sample (the
	// rejection sampler needs the target's logits at every position). Its
	// KV is read once: DecodeContext counts its context once.
	SpecTokens int
	// SpecPairs is the query-key pairs the draft tokens add beyond
	// DecodeContext: Σ d·c + d(d+1)/2 over verifying requests of context c
	// (see AddDecode), priced as decode attention.
	SpecPairs float64
}

// specPairs returns the query-key pairs d draft tokens verified after a
// decoding token of context c add: the j-th draft attends c + j entries.
func specPairs(d, c float64) float64 { return d*c + d*(d+1)/2 }

// DecodeBatch returns the batch of seqs decoding requests whose contexts
// average contextPerSeq tokens.
func DecodeBatch(seqs int, contextPerSeq float64) Batch {
	return Batch{DecodeSeqs: seqs, DecodeContext: float64(seqs) * contextPerSeq}
}

// prefillPairs returns the causal query-key pairs of a prefill chunk of
// chunk tokens after prior tokens already in the KV cache:
// chunk·prior + chunk(chunk+1)/2.
func prefillPairs(chunk, prior float64) float64 {
	return chunk*prior + chunk*(chunk+1)/2
}

// AddDecode adds to b one decoding request with context tokens that
// verifies draft ≥ 0 speculative tokens this step (0 without speculative
// decoding): SpecTokens grows by draft and SpecPairs by the pairs those
// drafts add, draft·context + draft(draft+1)/2.
func (b *Batch) AddDecode(context float64, draft int) {
	b.DecodeSeqs++
	b.DecodeContext += context
	if draft > 0 {
		b.SpecTokens += draft
		b.SpecPairs += specPairs(float64(draft), context)
	}
}

// AddPrefill adds one prefill chunk of chunk tokens after prior tokens
// already in the KV cache to b.
func (b *Batch) AddPrefill(chunk, prior int) {
	b.PrefillTokens += chunk
	b.PrefillSeqs++
	b.PrefillContext += float64(prior)
	b.PrefillPairs += prefillPairs(float64(chunk), float64(prior))
}

// Tokens returns DecodeSeqs + PrefillTokens, the T of the step.
func (b Batch) Tokens() int { return b.DecodeSeqs + b.SpecTokens + b.PrefillTokens }

// validate checks that every field is finite and ≥ 0. Step does not call
// it: the scheduler's sums are trusted on the hot path.
func (b Batch) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"decode_seqs", float64(b.DecodeSeqs)}, {"decode_context", b.DecodeContext},
		{"prefill_tokens", float64(b.PrefillTokens)}, {"prefill_seqs", float64(b.PrefillSeqs)},
		{"prefill_context", b.PrefillContext}, {"prefill_pairs", b.PrefillPairs},
		{"spec_tokens", float64(b.SpecTokens)}, {"spec_pairs", b.SpecPairs},
	} {
		if !nonNegativeFinite(f.v) {
			errs = append(errs, invalidField(f.name, f.v, "must be a finite number >= 0"))
		}
	}
	return errors.Join(errs...)
}

// StepCost is the predicted cost of one step and its breakdown. Byte and
// FLOP counts are per rank; every rank does the same work.
type StepCost struct {
	// Time is the predicted step time in seconds:
	// max(MemoryTime, ComputeTime) + MoETime + CommTime + Overhead.
	Time float64
	// MemoryTime is Bytes / (bandwidth × Eff.Bandwidth), in seconds; with a
	// Profile, KV reads run at its decode-attention efficiency, and routed
	// experts priced by its MoE entry are left out (see MoETime).
	MemoryTime float64
	// ComputeTime is FLOPs / (peak × Eff.FLOPs), in seconds; with a
	// Profile, the projections run on its GEMM curve at T tokens and the
	// attention scores at its prefill-attention efficiency, and routed
	// experts priced by its MoE entry are left out (see MoETime). Routed
	// experts on the roofline whose GEMMs run at another precision
	// (ModelSpec.ExpertGEMM) count at their own peak.
	ComputeTime float64
	// MoETime is the time of the routed experts when the Profile has a
	// MoE entry for the model's expert precision (Profile.MoE,
	// moeEfficiency), in seconds, added to the roofline of the rest of the
	// step: the fused MoE kernels run between the other layers' kernels,
	// not overlapped with them. It is 0 otherwise, the experts being part
	// of MemoryTime and ComputeTime. Their bytes and FLOPs count in Bytes
	// and FLOPs either way.
	MoETime float64
	// CommTime is 2L all-reduces of T·H·e_a bytes under TP (0 at TP 1), in
	// seconds; it is not overlapped with compute.
	CommTime float64
	// Overhead is Eff.StepOverhead, in seconds; with a Profile, its base
	// plus its per-layer overhead × the model's layers plus (per-sequence
	// overhead + sampling) × sequences in the step.
	Overhead float64
	// Bytes is WeightBytes + KVReadBytes: the memory traffic the roofline
	// counts, per rank.
	Bytes float64
	// WeightBytes is the streamed weight bytes per rank.
	WeightBytes float64
	// KVReadBytes is (DecodeContext + PrefillContext) × KV bytes per token
	// per rank.
	KVReadBytes float64
	// KVWriteBytes is T × KV bytes per token per rank: the new entries
	// written this step, reported but not included in Bytes.
	KVWriteBytes float64
	// StateBytes is what the linear-attention layers' state traffic adds to
	// Bytes: each scheduled sequence's state read and written back, 2 ×
	// seqs × state bytes per sequence per rank (0 without linear
	// attention).
	StateBytes float64
	// FLOPs is ProjFLOPs + AttnFLOPs, per rank.
	FLOPs float64
	// ProjFLOPs is 2 FLOPs per weight per token for the blocks'
	// projections, plus the LM head for each sequence that samples
	// (DecodeSeqs + PrefillSeqs), per rank.
	ProjFLOPs float64
	// AttnFLOPs is 4·head_dim FLOPs per query-key pair per head per layer
	// (QKᵀ and PV) over DecodeContext + PrefillPairs pairs, per rank.
	AttnFLOPs float64
	// CommBytes is the bus-equivalent bytes each rank moves,
	// 4L(p−1)/p·T·H·e_a.
	CommBytes float64
	// Tokens is T = DecodeSeqs + PrefillTokens.
	Tokens int
	// Bound is BoundMemory or BoundCompute; BoundNone for an empty batch.
	// The memory and compute parts of MoETime count with MemoryTime and
	// ComputeTime.
	Bound bound
	// MBU is achieved bytes/s over peak bandwidth: Bytes / (Time × peak).
	MBU float64
	// MFU is achieved FLOP/s over peak FLOP/s: FLOPs / (Time × peak), with
	// routed-expert FLOPs of another GEMM precision (ModelSpec.ExpertGEMM)
	// counted at their own peak, Σ FLOPs_i/peak_i over Time.
	MFU float64

	// The routed experts priced by a fused-MoE entry (0 without one):
	// their bytes and FLOPs, and the memory and compute parts of MoETime.
	fusedBytes, fusedFLOPs, fusedMemory, fusedCompute float64
	// What routed experts on the roofline at another peak than the rest
	// add to ProjFLOPs in ComputeTime (StepModel.routedExtraPerToken).
	routedExtra float64
	// Under data parallelism: the routed experts' FLOPs on the roofline,
	// part of ProjFLOPs, and the GEMM curve's factor at the tokens all D
	// groups gather into each rank's expert GEMMs, D·te, at which they
	// run (0 otherwise: every FLOP runs at the factor at T).
	routedFLOPs, routedGEMM float64
	// When the step schedules fewer sequences than it has tokens (a
	// prefill chunk): the LM head's FLOPs, part of ProjFLOPs, and the GEMM
	// curve's factor at its rows, one a scheduled sequence (0 otherwise).
	lmHeadFLOPs, lmHeadGEMM float64
}

// StepModel holds the per-deployment constants of Step, so that a caller
// stepping millions of times pays for them once. Build one with
// Deployment.Compile. It is immutable and safe for concurrent use.
type StepModel struct {
	p                 int
	weightBytes       float64 // streamed per rank
	kvPerToken        float64 // per rank
	projFLOPsPerToken float64 // all layers, per rank
	lmHeadFLOPsPerSeq float64 // per rank
	attnFLOPsPerPair  float64 // all layers, per rank
	payloadPerToken   float64 // H·e_a
	peakBandwidth     float64 // bytes/s
	peakFLOPS         float64 // FLOP/s
	invEffBandwidth   float64 // 1 / achieved bytes/s
	invEffFLOPS       float64 // 1 / achieved FLOP/s at the GEMM curve's max
	kvScale           float64 // weight-streaming over KV-read efficiency (1 for an Efficiency)
	attnScale         float64 // GEMM max over prefill-attention efficiency (1 for an Efficiency)
	gemmHalf          float64 // GEMM curve's half-efficiency tokens, at most the ridge (0: flat)
	perSeq            float64 // step overhead per sequence, s
	samplingPerSeq    float64 // sampling per sampled sequence, s
	invPeakBandwidth  float64
	invPeakFLOPS      float64
	overhead          float64
	allReduceCalls    float64 // 2L under TP, else 0
	busFactor         float64 // 2(p−1)/p
	tpAR              arCurve // τ(S) of vLLM's dispatch at p ranks, when comm is nil
	comm              AllReduce

	// Mixture of experts, MLA, sliding windows and attention data
	// parallelism; all 0 for a dense grouped-query model.
	moeBytes         float64 // all local routed experts of all MoE layers, per rank
	route            routing // the share of the experts a step touches
	dp               float64 // attention data-parallel groups (1 without)
	attnPrefillExtra float64 // MLA: prefill minus decode FLOPs per query-key pair
	slideKVPerToken  float64 // sliding-window layers' KV bytes per token, per rank
	window           float64 // sliding window, tokens
	attnSlidePerPair float64 // sliding layers' FLOPs per query-key pair
	dpCalls          float64 // MoE token exchanges per step across the DP groups
	dpBusFactor      float64 // 2(D−1)/D
	dpAlpha, dpByte  float64 // α–β of one exchange at D ranks

	// a2a prices the exchange as all-to-all kernels (alltoall.go), or nil.
	a2a *a2aStep

	// The routed experts' FLOPs per token on the roofline, per rank (0
	// when a fused entry prices them), part of projFLOPsPerToken.
	routedFLOPsPerToken float64

	// Routed experts priced by the profile's MoE entry (0 without one).
	fused fusedMoE
	// Routed experts on the roofline whose GEMMs run at another peak than
	// the rest (ModelSpec.ExpertGEMM): their FLOPs per token times
	// peak/expert peak − 1, what they add to the compute time at the
	// dense peak (0 otherwise).
	routedExtraPerToken float64
	// peak/expert peak − 1 for routed experts priced by a fused entry at
	// another peak than the rest (0 otherwise): what their FLOPs add to
	// MFU's peak-equivalent FLOPs per FLOP.
	fusedExtraRatio float64

	// Linear attention (0 without): the state bytes of one sequence and
	// the recurrent FLOPs of one token, per rank.
	statePerSeq, stateFLOPsPerToken float64
}

// Compile validates d and precomputes the constants of its step model.
func (d Deployment) Compile() (*StepModel, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	s := d.compile()
	return &s, nil
}

// compile builds the step model without validation; it does not allocate.
// It is the one place where the per-rank constants of a step are derived
// (through rankShare); StreamedWeightBytesPerRank and
// KVBytesPerTokenPerRank read them from here.
func (d *Deployment) compile() StepModel {
	m := &d.Model
	r := d.share()
	repl := m.replicatedParams()                  // MLA down-projections, routers: whole on every rank
	blocks := r.params(m.blockParams() - repl)    // every block's projections but routed experts
	lmHead := m.embeddingParams() / float64(r.tp) // the rank's vocab slice
	// routed experts: k per token, balanced over the ranks (docs/cost-model.md#mixture-of-experts)
	routed := float64(m.moeLayers()) * float64(m.ExpertsPerToken) * m.expertParams() / float64(r.tp)
	prof := d.profile()
	peak := d.peakFLOPS()
	var fused moeEfficiency
	if m.Experts > 0 {
		fused = prof.MoE.forPrecision(m.expertPrecision())
	}
	proj, routedProj := blocks+repl+routed, routed
	if !fused.IsZero() {
		proj, routedProj = blocks+repl, 0 // the routed experts are priced apart (fusedMoEStep)
	}
	s := StepModel{
		p:                   r.tp,
		weightBytes:         (blocks+lmHead)*m.WeightBytes + lmHead*(m.embeddingBytes()-m.WeightBytes) + repl*m.WeightBytes,
		kvPerToken:          r.kv(m.KVBytesPerToken()),
		projFLOPsPerToken:   matmulFLOPs(proj, 1),
		routedFLOPsPerToken: matmulFLOPs(routedProj, 1),
		lmHeadFLOPsPerSeq:   matmulFLOPs(lmHead, 1),
		// QKᵀ and PV: 2 multiply-adds per head_dim element, per head and
		// layer, for each query-key pair.
		attnFLOPsPerPair: 4 * float64(m.fullLayers()) * float64(r.headsPerRank) * float64(m.HeadDim),
		payloadPerToken:  m.AllReducePayload(1),
		peakBandwidth:    d.GPU.BandwidthBytesPerS,
		peakFLOPS:        peak,
		invEffBandwidth:  1 / (d.GPU.BandwidthBytesPerS * prof.Bandwidth),
		invEffFLOPS:      1 / (peak * prof.GEMM.Max),
		kvScale:          prof.Bandwidth / prof.Attention.Decode,
		attnScale:        prof.GEMM.Max / prof.Attention.Prefill,
		gemmHalf:         min(prof.GEMM.HalfTokens, gemmRidge(m.WeightBytes, peak, prof.GEMM.Max, d.GPU.BandwidthBytesPerS, prof.Bandwidth)),
		invPeakBandwidth: 1 / d.GPU.BandwidthBytesPerS,
		invPeakFLOPS:     1 / peak,
		overhead:         prof.StepOverhead.Base + prof.StepOverhead.PerLayer*float64(m.Layers),
		perSeq:           prof.StepOverhead.PerSeq,
		samplingPerSeq:   prof.SamplingPerVocab * float64(m.Vocab),
		comm:             d.Comm,
	}
	d.compileMoE(&s, &r)
	d.compileLinear(&s, &r)
	if expertPeak := d.expertPeakFLOPS(); expertPeak > 0 && expertPeak != peak {
		if fused.IsZero() {
			s.routedExtraPerToken = matmulFLOPs(routed, 1) * (peak/expertPeak - 1)
		} else {
			s.fusedExtraRatio = peak/expertPeak - 1
		}
	}
	if !fused.IsZero() {
		d.compileFusedMoE(&s, fused, s.moeBytes, matmulFLOPs(routed, 1))
		s.moeBytes = 0
	}
	if r.tp > 1 {
		s.allReduceCalls = m.allReducesPerStep()
		s.busFactor = busBytes(1, r.tp)
		if s.comm == nil {
			s.tpAR = d.GPU.tpAllReduce(r.tp)
		}
	}
	return s
}

// compileMoE fills the step model's constants for mixture of experts, MLA,
// sliding windows and attention data parallelism; it leaves them 0 for a
// dense grouped-query model.
func (d *Deployment) compileMoE(s *StepModel, r *rankShare) {
	m := &d.Model
	s.dp = r.dp
	if m.Experts > 0 {
		s.moeBytes = float64(m.moeLayers()) * r.experts * m.expertParams() / r.expertTP * m.expertBytes()
		s.route = m.routing()
	}
	heads := float64(m.Layers) * float64(r.headsPerRank)
	if m.mla() {
		// decode runs the absorbed form over the cached latent: scores over
		// r_kv + d_rope, values over r_kv; prefill decompresses K and V
		// (d_nope + d_rope, d_v), as vLLM's MLA backends do.
		decode := 2*float64(m.KVLoRARank+m.QKRopeHeadDim) + 2*float64(m.KVLoRARank)
		prefill := 2*float64(m.QKNopeHeadDim+m.QKRopeHeadDim) + 2*float64(m.VHeadDim)
		s.attnFLOPsPerPair = heads * decode
		s.attnPrefillExtra = heads * (prefill - decode)
	}
	if kv := m.slidingKVBytesPerToken(); kv > 0 {
		s.slideKVPerToken = r.kv(kv)
		s.window = float64(m.SlidingWindow)
		s.attnSlidePerPair = 4 * float64(m.SlidingLayers) * float64(r.headsPerRank) * float64(m.HeadDim)
	}
	if r.dp > 1 {
		dp := int(r.dp)
		s.dpCalls = float64(m.moeLayers())
		s.dpBusFactor = busBytes(1, dp)
		if s.a2a = d.a2aStep(); s.a2a == nil && d.Comm == nil {
			if ab, ok := d.GPU.AllReduce.Params(dp); ok {
				s.dpAlpha, s.dpByte = ab.coefficients(dp)
			} else {
				s.dpAlpha = math.Inf(1)
			}
		}
	}
}

// Peaks returns the per-rank peaks the model divides by for MBU and MFU:
// memory bandwidth in bytes/s and FLOP/s.
func (s *StepModel) Peaks() (bytesPerS, flopsPerS float64) { return s.peakBandwidth, s.peakFLOPS }

// Step predicts one step of batch b on d
// (docs/cost-model.md#step-time), per rank:
//
//	bytes   = streamed weights + (DecodeContext + PrefillContext) × KV/token
//	FLOPs   = 2·weights·T + LM head per sampling sequence + 4·head_dim·heads·L·pairs
//	time    = max(bytes/(BW·Eff.Bandwidth), FLOPs/(peak·Eff.FLOPs))
//	          + 2L·τ_AR(T·H·e_a, p) + Eff.StepOverhead
//
// With a Profile whose MoE entry covers the model's expert precision, the
// routed experts leave the roofline and add their own time, MoETime
// (moeEfficiency).
//
// An empty batch (T = 0) costs nothing. Step assumes d is valid (see
// Validate); on an invalid deployment the result is meaningless but Step
// does not panic. It is O(1) and does not allocate; Compile once and call
// StepModel.Step to skip recomputing the deployment's constants.
func (d Deployment) Step(b Batch) StepCost {
	s := d.compile()
	return s.Step(b)
}

// Step is Deployment.Step with the constants precomputed.
func (s *StepModel) Step(b Batch) StepCost {
	var c StepCost
	gemm, ok := s.shape(&c, &b)
	if !ok {
		return StepCost{}
	}
	s.context(&c, &b, gemm)
	return c
}

// shape sets the parts of c that depend only on b's token and sequence
// counts, not its contexts: tokens, weight bytes, KV write bytes,
// projection FLOPs, communication and overhead; it returns the GEMM
// curve's factor at T tokens, and false for an empty batch. Step is shape
// then context; each field gets the same operations in the same order as
// when they were one function.
func (s *StepModel) shape(c *StepCost, b *Batch) (gemm float64, ok bool) {
	tokens := b.DecodeSeqs + b.SpecTokens + b.PrefillTokens
	if tokens <= 0 {
		return 0, false
	}
	t := float64(tokens)
	// te: the tokens per group the MoE layers see, the D groups' tokens
	// over D (t when every group runs a batch like this one).
	te := t
	if b.DPTokens > 0 && s.dp > 1 {
		te = float64(b.DPTokens) / s.dp
	}
	c.Tokens = tokens
	c.WeightBytes = s.weightBytes
	c.KVWriteBytes = t * s.kvPerToken
	if s.moeBytes > 0 || s.slideKVPerToken > 0 || s.attnPrefillExtra != 0 {
		s.moeShape(c, t, te)
	}
	seqs := float64(b.DecodeSeqs + b.PrefillSeqs)
	// rows: the positions that sample, every verified draft token too.
	rows := seqs + float64(b.SpecTokens)
	c.ProjFLOPs = t*s.projFLOPsPerToken + rows*s.lmHeadFLOPsPerSeq
	if rows != t && rows > 0 && s.gemmHalf > 0 {
		// The LM head multiplies the last hidden state of each scheduled
		// sequence only (vLLM computes a partial chunk's logits too and
		// drops its token): a GEMM of seqs rows, at the curve's factor
		// there.
		c.lmHeadFLOPs, c.lmHeadGEMM = rows*s.lmHeadFLOPsPerSeq, gemmFactor(rows, s.gemmHalf)
	}
	if te != t {
		c.ProjFLOPs += (te - t) * s.routedFLOPsPerToken
	}
	if s.statePerSeq > 0 {
		s.stateShape(c, t, seqs)
	}
	if s.dp > 1 && s.gemmHalf > 0 && s.routedFLOPsPerToken > 0 {
		// The routed experts' GEMMs run on the tokens all groups gather,
		// D·te rows a rank (as TP·D ranks of one group would run the same
		// step), not on this group's T.
		c.routedFLOPs, c.routedGEMM = te*s.routedFLOPsPerToken, gemmFactor(te*s.dp, s.gemmHalf)
	}
	c.routedExtra = te * s.routedExtraPerToken
	if s.fused.flopsPerToken > 0 {
		s.fusedMoEStep(c, te)
	}
	if s.allReduceCalls > 0 {
		payload := t * s.payloadPerToken
		c.CommBytes = s.allReduceCalls * s.busFactor * payload
		var tau float64
		if s.comm != nil {
			tau = s.comm.Time(payload, s.p)
		} else {
			tau = s.tpAR.at(payload)
		}
		c.CommTime = s.allReduceCalls * tau
	}
	if s.dpCalls > 0 {
		s.dpExchange(c, te)
	}
	c.Overhead = s.overhead + s.perSeq*seqs + s.samplingPerSeq*rows
	return gemmFactor(t, s.gemmHalf), true
}

// context sets the parts of c that depend on b's contexts, after shape:
// KV read bytes, attention FLOPs, the totals, the roofline times, the step
// time, MBU and MFU.
//
// Profile application: KV reads at the decode-attention efficiency, the
// projections on the GEMM curve at T tokens (factor gemm), attention
// scores at the prefill-attention efficiency. For an Efficiency every
// factor is exactly 1 and the times are Bytes/(BW·η_bw) and
// FLOPs/(peak·η_fl).
//
// DecodeStep.Step computes Time, Bytes and FLOPs through the same helpers
// (reads, roofline, totals, stepTime) without the rest, so the two agree
// bit for bit.
func (s *StepModel) context(c *StepCost, b *Batch, gemm float64) {
	c.KVReadBytes, c.AttnFLOPs = s.reads(b)
	c.MemoryTime, c.ComputeTime = s.roofline(c, c.KVReadBytes, c.AttnFLOPs, gemm)
	c.Bytes, c.FLOPs = s.totals(c, c.KVReadBytes, c.AttnFLOPs)
	if s.fused.flopsPerToken > 0 {
		// The routed experts, priced apart (MoETime), count in the totals.
		c.WeightBytes += c.fusedBytes
		c.ProjFLOPs += c.fusedFLOPs
	}
	c.Bound = boundMemory
	if c.ComputeTime+c.fusedCompute >= c.MemoryTime+c.fusedMemory {
		c.Bound = boundCompute
	}
	c.Time = s.stepTime(c, c.MemoryTime, c.ComputeTime)
	if c.Time > 0 {
		inv := 1 / c.Time
		c.MBU = c.Bytes * inv * s.invPeakBandwidth
		c.MFU = (c.FLOPs + c.routedExtra + c.fusedFLOPs*s.fusedExtraRatio) * inv * s.invPeakFLOPS
	}
}

// reads returns batch b's KV read bytes and attention FLOPs, per rank.
func (s *StepModel) reads(b *Batch) (kvRead, attnFLOPs float64) {
	kvRead = (b.DecodeContext + b.PrefillContext) * s.kvPerToken
	attnFLOPs = (b.DecodeContext + b.PrefillPairs + b.SpecPairs) * s.attnFLOPsPerPair
	if s.moeBytes > 0 || s.slideKVPerToken > 0 || s.attnPrefillExtra != 0 {
		kvRead, attnFLOPs = s.moeContext(b, kvRead, attnFLOPs)
	}
	return kvRead, attnFLOPs
}

// roofline returns the memory and compute times, in seconds, of a step of
// shape sh (shape's fields, before context's totals) that reads kvRead KV
// bytes and runs attnFLOPs attention FLOPs, its projections at GEMM
// factor gemm.
func (s *StepModel) roofline(sh *StepCost, kvRead, attnFLOPs, gemm float64) (memory, compute float64) {
	memory = (sh.WeightBytes + kvRead*s.kvScale + sh.StateBytes) * s.invEffBandwidth
	if sh.routedGEMM == 0 && sh.lmHeadGEMM == 0 {
		return memory, ((sh.ProjFLOPs+sh.routedExtra)*gemm + attnFLOPs*s.attnScale) * s.invEffFLOPS
	}
	// Each GEMM at the factor of its own rows: the routed experts' at all
	// groups' tokens, the LM head's at the scheduled sequences.
	rest, parts := sh.ProjFLOPs, 0.0
	if sh.routedGEMM != 0 {
		rest -= sh.routedFLOPs
		parts += (sh.routedFLOPs + sh.routedExtra) * sh.routedGEMM
	} else {
		rest += sh.routedExtra
	}
	if sh.lmHeadGEMM != 0 {
		rest -= sh.lmHeadFLOPs
		parts += sh.lmHeadFLOPs * sh.lmHeadGEMM
	}
	return memory, (rest*gemm + parts + attnFLOPs*s.attnScale) * s.invEffFLOPS
}

// totals returns StepCost.Bytes and FLOPs of a step of shape sh (before
// context's totals) with kvRead KV bytes and attnFLOPs attention FLOPs:
// the routed experts a fused entry prices count in them.
func (s *StepModel) totals(sh *StepCost, kvRead, attnFLOPs float64) (bytes, flops float64) {
	bytes = sh.WeightBytes + kvRead + sh.StateBytes
	flops = sh.ProjFLOPs + attnFLOPs
	if s.fused.flopsPerToken > 0 {
		bytes += sh.fusedBytes
		flops += sh.fusedFLOPs
	}
	return bytes, flops
}

// stepTime returns StepCost.Time, in seconds, of a step of shape sh with
// memory and compute times memory and compute: the roofline's larger
// term plus the MoE, communication and overhead times.
func (s *StepModel) stepTime(sh *StepCost, memory, compute float64) float64 {
	roof := memory
	if compute >= memory {
		roof = compute
	}
	return roof + sh.MoETime + sh.CommTime + sh.Overhead
}

// A DecodeStep prices steps of a fixed number of decoding sequences and no
// prefill as their context grows, as a decode loop does: the parts of Step
// that depend only on the sequence count are computed once, and its Step
// returns only the parts of the cost an engine's step loop reads. They are
// exactly (bit for bit) what StepModel.Step returns for the same batch.
type DecodeStep struct {
	s     *StepModel
	seqs  int
	shape StepCost
	gemm  float64
	ok    bool
}

// Decode returns the DecodeStep of seqs decoding sequences.
func (s *StepModel) Decode(seqs int) DecodeStep {
	d := DecodeStep{s: s, seqs: seqs}
	d.gemm, d.ok = s.shape(&d.shape, &Batch{DecodeSeqs: seqs})
	return d
}

// Seqs returns the number of decoding sequences it prices.
func (d *DecodeStep) Seqs() int { return d.seqs }

// Step returns the Time (seconds), Bytes, FLOPs and CommTime (seconds)
// of StepModel.Step(Batch{DecodeSeqs: seqs, DecodeContext: context}), all
// 0 for 0 sequences. It builds no StepCost: a decode loop prices every
// step, and the whole cost is a large value to fill and copy.
func (d *DecodeStep) Step(context float64) (time, bytes, flops, commTime float64) {
	if !d.ok {
		return 0, 0, 0, 0
	}
	s, sh := d.s, &d.shape
	kv, attn := s.reads(&Batch{DecodeSeqs: d.seqs, DecodeContext: context})
	memory, compute := s.roofline(sh, kv, attn, d.gemm)
	bytes, flops = s.totals(sh, kv, attn)
	return s.stepTime(sh, memory, compute), bytes, flops, sh.CommTime
}

// moeShape adds to c what mixture of experts and sliding windows add to
// the shape of a step of t tokens (docs/cost-model.md#mixture-of-experts):
//
//   - the routed experts the step touches: of the E/EP experts of each MoE
//     layer held by the rank, the expected distinct ones touched by the
//     D·te tokens of all data-parallel groups (te per group; t each when
//     every group runs a batch like this one), (E/EP)·(1 − (1 − k/E)^(D·te))
//     under uniform routing;
//   - the sliding-window layers' KV writes.
func (s *StepModel) moeShape(c *StepCost, t, te float64) {
	if s.moeBytes > 0 {
		c.WeightBytes += s.moeBytes * s.route.touched(te*s.dp)
	}
	if s.slideKVPerToken > 0 {
		c.KVWriteBytes += t * s.slideKVPerToken
	}
}

// moeContext returns a step's KV read bytes kvRead and attention FLOPs
// attnFLOPs (per rank) with what MLA and sliding windows add to them:
//
//   - the sliding-window layers' KV reads, at most SlidingWindow entries per
//     sequence: min(DecodeContext, DecodeSeqs·W) + min(PrefillContext,
//     PrefillSeqs·W) entries, and their attention over min(DecodeContext,
//     DecodeSeqs·W) + min(PrefillPairs, PrefillTokens·W) pairs;
//   - MLA's prefill attention, which costs attnPrefillExtra per pair more
//     (or less) than decode.
func (s *StepModel) moeContext(b *Batch, kvRead, attnFLOPs float64) (float64, float64) {
	attnFLOPs += b.PrefillPairs * s.attnPrefillExtra
	if s.slideKVPerToken > 0 {
		decode := min(b.DecodeContext, float64(b.DecodeSeqs)*s.window)
		prefill := min(b.PrefillContext, float64(b.PrefillSeqs)*s.window)
		kvRead += (decode + prefill) * s.slideKVPerToken
		attnFLOPs += (decode + min(b.PrefillPairs, float64(b.PrefillTokens)*s.window)) * s.attnSlidePerPair
	}
	return kvRead, attnFLOPs
}

// dpExchange adds the MoE token exchange across D data-parallel groups to
// c: per MoE layer, an all-gather of every group's t·H activations before
// the experts and a reduce-scatter after them, which move what one
// all-reduce of D·t·H·e_a bytes over D ranks moves and are timed as one.
func (s *StepModel) dpExchange(c *StepCost, t float64) {
	if s.a2a != nil {
		s.a2a.exchange(c, s.dpCalls, t)
		return
	}
	payload := s.dp * t * s.payloadPerToken
	c.CommBytes += s.dpCalls * s.dpBusFactor * payload
	var tau float64
	if s.comm != nil {
		tau = s.comm.Time(payload, int(s.dp))
	} else {
		tau = s.dpAlpha + s.dpByte*payload
	}
	c.CommTime += s.dpCalls * tau
}
