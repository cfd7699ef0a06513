package cost

import (
	"fmt"
	"math"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReferenceRooflineFloors: Qwen2.5-7B on an RTX 4090, average context
// 1152 tokens: 14.09, 14.55, 16.13 and 18.22 ms at C = 1, 8, 32, 64
// (docs/reference-numbers.md#roofline-floors).
func TestReferenceRooflineFloors(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	tests := []struct {
		c    int
		want string
	}{
		{1, "14.09"},
		{8, "14.55"},
		{32, "16.13"},
		{64, "18.22"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("C=%d", tt.c), func(t *testing.T) {
			t.Parallel()
			s := d.Step(DecodeBatch(tt.c, 1152))
			assert.Equal(t, tt.want, fmt.Sprintf("%.2f", s.Time*1e3))
			assert.Equal(t, boundMemory, s.Bound)
			assert.Equal(t, 14_140_571_648.0, s.WeightBytes)
			assert.Equal(t, float64(tt.c)*1152*57344, s.KVReadBytes)
			assert.Equal(t, float64(tt.c)*57344, s.KVWriteBytes, "reported, not charged")
			assert.InDelta(t, s.MemoryTime, s.Time, 1e-15)
			assert.InDelta(t, 1, s.MBU, 1e-12, "the floor runs at peak bandwidth")
		})
	}
}

// TestStepBreakdownDecode: Qwen2.5-7B on an RTX 4090 (1008 GB/s, 165.2
// TFLOP/s BF16), 8 requests at context 1000, half of peak on both roofs and
// 2 ms overhead:
//
//	bytes  = 14,140,571,648 (weights) + 8000 · 57,344 (KV) = 14,599,323,648
//	proj   = 2 · 8 tokens · 7,070,285,824 weights          = 113,124,573,184
//	attn   = 4 · 128 (head_dim) · 28 heads · 28 layers · 8000 pairs
//	       = 3,211,264,000
//	memory = 14,599,323,648 / (0.5 · 1008e9)               = 28.966912 ms
//
// The compute time (0.0139 s) is below the memory time, so the step is
// memory-bound: 28.966912 + 2 = 30.966912 ms.
func TestStepBreakdownDecode(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.Eff = Efficiency{Bandwidth: 0.5, FLOPs: 0.5, StepOverhead: 2e-3}
	s := d.Step(DecodeBatch(8, 1000))
	assert.Equal(t, 14_599_323_648.0, s.Bytes)
	assert.Equal(t, 113_124_573_184.0, s.ProjFLOPs)
	assert.Equal(t, 3_211_264_000.0, s.AttnFLOPs)
	assert.Equal(t, 113_124_573_184.0+3_211_264_000, s.FLOPs)
	assert.InEpsilon(t, 28.966912e-3, s.MemoryTime, 1e-12)
	assert.InEpsilon(t, (113_124_573_184.0+3_211_264_000)/(0.5*165.2e12), s.ComputeTime, 1e-12)
	assert.Equal(t, boundMemory, s.Bound)
	assert.Equal(t, 2e-3, s.Overhead)
	assert.Zero(t, s.CommTime)
	assert.Zero(t, s.CommBytes)
	assert.InEpsilon(t, 30.966912e-3, s.Time, 1e-12)
	assert.Equal(t, 8, s.Tokens)
	assert.InEpsilon(t, 14_599_323_648/30.966912e-3/1008e9, s.MBU, 1e-12)
	assert.InEpsilon(t, (113_124_573_184.0+3_211_264_000)/30.966912e-3/165.2e12, s.MFU, 1e-12)
}

// TestStepPrefillIsComputeBound: Llama-3.1-8B on an H100, a 4096-token
// prompt and a 2048-token chunk after 1024 cached tokens (weights as in
// TestWeightBytesPerRank):
//
//	proj  = 2 · 6,979,321,856 block weights · 6144 tokens
//	        + 2 · 525,336,576 LM head · 2 sampling sequences
//	      = 85,761,906,966,528 + 2,101,346,304 = 85,764,008,312,832
//	pairs = 4096·4097/2 + 2048·1024 + 2048·2049/2 = 12,585,984
//	attn  = 4 · 128 · 32 heads · 32 layers · 12,585,984 = 6,598,680,379,392
//	KV    = 1024 cached tokens · 131,072 B = 134,217,728 B read
//
// At the ideal floor a compute-bound step runs at peak: MFU 1.
func TestStepPrefillIsComputeBound(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 1)
	var b Batch
	b.AddPrefill(4096, 0)
	b.AddPrefill(2048, 1024)
	assert.Equal(t, Batch{PrefillTokens: 6144, PrefillSeqs: 2, PrefillContext: 1024, PrefillPairs: 12_585_984}, b)
	s := d.Step(b)
	assert.Equal(t, boundCompute, s.Bound)
	assert.Equal(t, 85_764_008_312_832.0, s.ProjFLOPs)
	assert.Equal(t, 6_598_680_379_392.0, s.AttnFLOPs)
	assert.Equal(t, 134_217_728.0, s.KVReadBytes)
	assert.InDelta(t, 1, s.MFU, 1e-12)
}

func TestPrefillPairs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 10.0, prefillPairs(4, 0), "causal triangle 1+2+3+4")
	assert.Equal(t, 4*100+10.0, prefillPairs(4, 100))
}

// TestAddDecodeDrafts: a decoder of context 100 verifying 3 drafts adds one
// decoding sequence, 3 spec tokens and the pairs its drafts attend beyond
// DecodeContext, counted one draft at a time: 101 + 102 + 103.
func TestAddDecodeDrafts(t *testing.T) {
	t.Parallel()
	var b Batch
	b.AddDecode(100, 3)
	b.AddDecode(50, 0)
	assert.Equal(t, Batch{DecodeSeqs: 2, DecodeContext: 150, SpecTokens: 3, SpecPairs: 101 + 102 + 103}, b)
}

// TestStepTensorParallel: Llama-3.1-70B at TP 4 on H100s, 32 decodes. Each
// of the 2·80 all-reduces sums a 32 · 8192 · 2 B = 524,288 B activation; the
// DGX H100 fit for 4 ranks is α = 30.61 µs, B = 379.5 GB/s, so
//
//	τ     = 30.61e-6 + 2·3/4 · 524,288 / 379.5e9 = 32.6823 µs
//	comm  = 160 · τ                           = 5.22917 ms
//	bytes = 160 · 1.5 · 524,288               = 125,829,120 per rank
//
// and the weights and KV split evenly 4 ways (8 KV heads, 2 per rank).
func TestStepTensorParallel(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	s := d.Step(DecodeBatch(32, 2048))
	// 160 all-reduces of 32·8192·2 B = 512 KiB: vLLM's two-shot kernel
	// (docs/cost-model.md#vllms-all-reduce).
	assert.InEpsilon(t, 160*(7.956e-6+1.5*524_288/292.4e9), s.CommTime, 1e-12)
	assert.InDelta(t, 1.70329e-3, s.CommTime, 0.000005e-3)
	assert.InEpsilon(t, 125_829_120.0, s.CommBytes, 1e-15)
	assert.InEpsilon(t, d.Model.MatmulWeightBytes()/4, s.WeightBytes, 1e-15)
	assert.Equal(t, 32*2048*81_920.0, s.KVReadBytes) // 2 · 80 · 2 heads · 128 · 2 B per token per rank
	assert.InEpsilon(t, s.MemoryTime+s.CommTime, s.Time, 1e-12)
}

// TestStepUsesMeasuredAllReduce: a Deployment with Comm set to an NCCL table
// charges the interpolated measured time.
func TestStepUsesMeasuredAllReduce(t *testing.T) {
	tab := loadNCCL(t, shareddata.Path(t, "h100_dgx_all_reduce.csv"))
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 8)
	d.Comm = tab
	require.NoError(t, d.Validate())
	s := d.Step(DecodeBatch(16, 1024))
	assert.InEpsilon(t, 160*tab.Time(16*8192*2, 8), s.CommTime, 1e-12)
	sm, err := d.Compile()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() { s = sm.Step(DecodeBatch(16, 1024)) })
	assert.Zero(t, allocs)
}

func TestStepEmptyBatchCostsNothing(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 2)
	assert.Equal(t, StepCost{}, d.Step(Batch{}))
}

func TestStepMatchesCompiled(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-8b", "a100-80gb", 2)
	d.Eff = DefaultEfficiency()
	sm, err := d.Compile()
	require.NoError(t, err)
	b := Batch{DecodeSeqs: 30, DecodeContext: 30 * 900, PrefillTokens: 512, PrefillSeqs: 1,
		PrefillContext: 256, PrefillPairs: prefillPairs(512, 256)}
	assert.Equal(t, d.Step(b), sm.Step(b))
}

func TestCompileRejectsInvalid(t *testing.T) {
	t.Parallel()
	_, err := Deployment{}.Compile()
	require.ErrorIs(t, err, ErrInvalidSpec)
}

// TestStepInvalidDeploymentDoesNotPanic: Step trusts its caller but must
// not crash on garbage.
func TestStepInvalidDeploymentDoesNotPanic(t *testing.T) {
	t.Parallel()
	assert.NotPanics(t, func() { Deployment{}.Step(DecodeBatch(1, 1)) })
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 0)
	assert.NotPanics(t, func() { d.Step(DecodeBatch(4, 100)) })
}

// TestStepProperties: time is at least each roofline term, grows with
// context and batch, and utilisations stay in [0, 1].
func TestStepProperties(t *testing.T) {
	t.Parallel()
	for _, name := range GPUNames() {
		g := mustGPU(t, name)
		tp := 2
		if len(g.AllReduce) == 0 { // no all-reduce source: one GPU
			tp = 1
		}
		d := Deployment{Model: mustModel(t, "llama-3.1-8b"), GPU: g, TP: tp, Eff: DefaultEfficiency()}
		prev := 0.0
		for _, b := range []Batch{DecodeBatch(1, 10), DecodeBatch(1, 1000), DecodeBatch(64, 1000),
			{DecodeSeqs: 64, DecodeContext: 64000, PrefillTokens: 2048, PrefillSeqs: 1, PrefillPairs: prefillPairs(2048, 0)}} {
			s := d.Step(b)
			assert.GreaterOrEqual(t, s.Time, s.MemoryTime+s.CommTime+s.Overhead, name)
			assert.GreaterOrEqual(t, s.Time, s.ComputeTime+s.CommTime+s.Overhead, name)
			assert.Greater(t, s.Time, prev, name)
			assert.True(t, s.MBU > 0 && s.MBU <= 1 && s.MFU > 0 && s.MFU <= 1, "%s: MBU %v MFU %v", name, s.MBU, s.MFU)
			prev = s.Time
		}
	}
}

func TestBatchValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, DecodeBatch(3, 10).validate())
	err := Batch{DecodeSeqs: -1, DecodeContext: math.NaN(), PrefillPairs: math.Inf(1)}.validate()
	requireProblem(t, err, "decode_seqs", -1, "must be a finite number >= 0")
	requireProblem(t, err, "decode_context", math.NaN(), "must be a finite number >= 0")
	requireProblem(t, err, "prefill_pairs", math.Inf(1), "must be a finite number >= 0")
	assert.Len(t, fieldProblems(err), 3)
}

func TestStepDoesNotAllocate(t *testing.T) {
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	d.Eff = DefaultEfficiency()
	b := DecodeBatch(64, 2000)
	var sink float64
	assert.Zero(t, testing.AllocsPerRun(1000, func() { sink += d.Step(b).Time }))
	sm, err := d.Compile()
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { sink += sm.Step(b).Time }))
	assert.Positive(t, sink)
}

func BenchmarkStep(b *testing.B) {
	d := deployment(b, "llama-3.1-70b", "h100-sxm", 4)
	d.Eff = DefaultEfficiency()
	sm, err := d.Compile()
	require.NoError(b, err)
	batch := Batch{DecodeSeqs: 63, DecodeContext: 63 * 1500, PrefillTokens: 512, PrefillSeqs: 1,
		PrefillContext: 1024, PrefillPairs: prefillPairs(512, 1024)}
	b.Run("Deployment", func(b *testing.B) { benchSteps(b, d.Step, batch) })
	b.Run("Compiled", func(b *testing.B) { benchSteps(b, sm.Step, batch) })
	// Qwen3-30B-A3B on its catalog profile (fused MoE entry): uniform
	// routing against the power law, whose touched experts cost a closed
	// form of a few powers per step.
	for _, skew := range []float64{0, 1.2} {
		m := qwen30B()
		m.RoutingSkew = skew
		moe := Deployment{Model: m, GPU: mustGPU(b, "h100-sxm"), TP: 1}
		prof, err := embeddedProfile("h100-sxm")
		require.NoError(b, err)
		moe.Profile = &prof
		sm, err := moe.Compile()
		require.NoError(b, err)
		b.Run(fmt.Sprintf("MoE/skew=%v", skew), func(b *testing.B) { benchSteps(b, sm.Step, batch) })
	}
}

// benchSteps times step on batch and reports steps/s.
func benchSteps(b *testing.B, step func(Batch) StepCost, batch Batch) {
	b.ReportAllocs()
	var sink float64
	for b.Loop() {
		sink += step(batch).Time
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
	require.Positive(b, sink)
}

// TestStepReplicatedKV: Llama-3.1-8B at TP 16 keeps one of its 8 KV heads
// per rank (see TestWeightBytesPerRank). One decode at context 100:
//
//	weights read = 971,636,736 B (its streamed weights)
//	KV read      = 100 · 2 · 32 layers · 1 head · 128 · 2 B = 1,638,400 B
//	proj FLOPs   = 2 · (452,984,832 block weights + 32,833,536 LM head)
//	             = 971,636,736
//	attn FLOPs   = 4 · 128 · 2 heads · 32 layers · 100 pairs = 3,276,800
func TestStepReplicatedKV(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 16)
	s := d.Step(DecodeBatch(1, 100))
	assert.Equal(t, 971_636_736.0, s.WeightBytes)
	assert.Equal(t, 1_638_400.0, s.KVReadBytes)
	assert.Equal(t, 971_636_736.0, s.ProjFLOPs)
	assert.Equal(t, 3_276_800.0, s.AttnFLOPs)
}

// instant is an interconnect whose all-reduces take no time.
type instant struct{}

func (instant) Time(float64, int) float64 { return 0 }

// TestStepLimitCases: a batch of one token at no context costs the
// streamed weights and two FLOPs per streamed weight; with an instant
// interconnect, TP p divides an evenly split step exactly p ways.
func TestStepLimitCases(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 1)
	one := d.Step(DecodeBatch(1, 0))
	assert.Equal(t, d.Model.MatmulWeightBytes(), one.Bytes)
	assert.Equal(t, 2*d.Model.MatmulParams(), one.FLOPs)
	assert.Zero(t, one.KVReadBytes)

	b := Batch{DecodeSeqs: 8, DecodeContext: 8 * 4000, PrefillTokens: 1000, PrefillSeqs: 1, PrefillPairs: prefillPairs(1000, 0)}
	whole := d.Step(b)
	for _, p := range []int{2, 4, 8} {
		dp := d
		dp.TP = p
		dp.Comm = instant{}
		part := dp.Step(b)
		assert.InEpsilon(t, whole.Bytes/float64(p), part.Bytes, 1e-12, "p=%d", p)
		assert.InEpsilon(t, whole.FLOPs/float64(p), part.FLOPs, 1e-12, "p=%d", p)
		assert.Zero(t, part.CommTime, "p=%d", p)
		assert.InEpsilon(t, whole.Time/float64(p), part.Time, 1e-12, "p=%d", p)
	}
}
