package cost

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSPECRooflineFloors: Qwen2.5-7B on an RTX 4090, average context 1152
// tokens: 14.09, 14.55, 16.13 and 18.22 ms at C = 1, 8, 32, 64 (SPEC §6).
func TestSPECRooflineFloors(t *testing.T) {
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
			s := d.Step(DecodeBatch(tt.c, 1152))
			assert.Equal(t, tt.want, fmt.Sprintf("%.2f", s.Time*1e3))
			assert.Equal(t, BoundMemory, s.Bound)
			assert.Equal(t, 14_140_571_648.0, s.WeightBytes)
			assert.Equal(t, float64(tt.c)*1152*57344, s.KVReadBytes)
			assert.Equal(t, float64(tt.c)*57344, s.KVWriteBytes, "reported, not charged")
			assert.InDelta(t, s.MemoryTime, s.Time, 1e-15)
			assert.InDelta(t, 1, s.MBU, 1e-12, "the floor runs at peak bandwidth")
		})
	}
}

func TestStepBreakdownDecode(t *testing.T) {
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.Eff = Efficiency{Bandwidth: 0.5, FLOPs: 0.5, StepOverhead: 2e-3}
	b := DecodeBatch(8, 1000)
	s := d.Step(b)
	m := d.Model
	proj := 2 * 8 * m.MatmulParams()
	attn := 4.0 * 28 * 128 * 28 * 8000
	assert.InEpsilon(t, proj, s.ProjFLOPs, 1e-12)
	assert.InEpsilon(t, attn, s.AttnFLOPs, 1e-12)
	assert.InEpsilon(t, proj+attn, s.FLOPs, 1e-12)
	assert.InEpsilon(t, s.Bytes/(0.5*1008e9), s.MemoryTime, 1e-12)
	assert.InEpsilon(t, s.FLOPs/(0.5*165.2e12), s.ComputeTime, 1e-12)
	assert.Equal(t, 2e-3, s.Overhead)
	assert.Zero(t, s.CommTime)
	assert.Zero(t, s.CommBytes)
	assert.InEpsilon(t, s.MemoryTime+2e-3, s.Time, 1e-12)
	assert.Equal(t, 8, s.Tokens)
	assert.InEpsilon(t, s.Bytes/s.Time/1008e9, s.MBU, 1e-12)
	assert.InEpsilon(t, s.FLOPs/s.Time/165.2e12, s.MFU, 1e-12)
}

func TestStepPrefillIsComputeBound(t *testing.T) {
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 1)
	var b Batch
	b.AddPrefill(4096, 0)
	b.AddPrefill(2048, 1024)
	assert.Equal(t, Batch{PrefillTokens: 6144, PrefillSeqs: 2, PrefillContext: 1024,
		PrefillPairs: PrefillPairs(4096, 0) + PrefillPairs(2048, 1024)}, b)
	s := d.Step(b)
	assert.Equal(t, BoundCompute, s.Bound)
	assert.InDelta(t, 1, s.MFU, 1e-12)
	m := d.Model
	wantProj := 2*6144*float64(m.Layers)*m.LayerMatmulParams() + 2*2*m.EmbeddingParams()
	assert.InEpsilon(t, wantProj, s.ProjFLOPs, 1e-12)
	assert.InEpsilon(t, 1024*m.KVBytesPerToken(), s.KVReadBytes, 1e-12)
}

func TestPrefillPairs(t *testing.T) {
	assert.Equal(t, 10.0, PrefillPairs(4, 0), "causal triangle 1+2+3+4")
	assert.Equal(t, 4*100+10.0, PrefillPairs(4, 100))
}

func TestStepTensorParallel(t *testing.T) {
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	s := d.Step(DecodeBatch(32, 2048))
	ab, ok := d.GPU.AllReduce.Params(4)
	require.True(t, ok)
	payload := 32 * 8192 * 2.0
	assert.InEpsilon(t, 160*ab.Time(payload, 4), s.CommTime, 1e-12)
	assert.InEpsilon(t, d.Model.TPStepTraffic(32, 4), s.CommBytes, 1e-12)
	assert.InEpsilon(t, d.Model.MatmulWeightBytes()/4, s.WeightBytes, 1e-12)
	assert.InEpsilon(t, 32*2048*d.Model.KVBytesPerToken()/4, s.KVReadBytes, 1e-12)
	assert.InEpsilon(t, s.MemoryTime+s.CommTime, s.Time, 1e-12)
}

// TestStepUsesMeasuredAllReduce: a Deployment with Comm set to an NCCL table
// charges the interpolated measured time.
func TestStepUsesMeasuredAllReduce(t *testing.T) {
	tab, err := LoadNCCLTable(sharedData(t, "h100_dgx_all_reduce.csv"), NCCLOptions{})
	require.NoError(t, err)
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
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 2)
	assert.Equal(t, StepCost{}, d.Step(Batch{}))
}

func TestStepMatchesCompiled(t *testing.T) {
	d := deployment(t, "llama-3.1-8b", "a100-80gb", 2)
	d.Eff = DefaultEfficiency()
	sm, err := d.Compile()
	require.NoError(t, err)
	b := Batch{DecodeSeqs: 30, DecodeContext: 30 * 900, PrefillTokens: 512, PrefillSeqs: 1,
		PrefillContext: 256, PrefillPairs: PrefillPairs(512, 256)}
	assert.Equal(t, d.Step(b), sm.Step(b))
}

func TestCompileRejectsInvalid(t *testing.T) {
	_, err := Deployment{}.Compile()
	require.ErrorIs(t, err, ErrInvalidSpec)
}

// TestStepInvalidDeploymentDoesNotPanic: Step trusts its caller but must
// not crash on garbage.
func TestStepInvalidDeploymentDoesNotPanic(t *testing.T) {
	assert.NotPanics(t, func() { Deployment{}.Step(DecodeBatch(1, 1)) })
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 0)
	assert.NotPanics(t, func() { d.Step(DecodeBatch(4, 100)) })
}

// TestStepProperties: time is at least each roofline term, grows with
// context and batch, and utilisations stay in [0, 1].
func TestStepProperties(t *testing.T) {
	for _, name := range GPUNames() {
		d := Deployment{Model: mustModel(t, "llama-3.1-8b"), GPU: mustGPU(t, name), TP: 2, Eff: DefaultEfficiency()}
		prev := 0.0
		for _, b := range []Batch{DecodeBatch(1, 10), DecodeBatch(1, 1000), DecodeBatch(64, 1000),
			{DecodeSeqs: 64, DecodeContext: 64000, PrefillTokens: 2048, PrefillSeqs: 1, PrefillPairs: PrefillPairs(2048, 0)}} {
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
	require.NoError(t, DecodeBatch(3, 10).Validate())
	err := Batch{DecodeSeqs: -1, DecodeContext: math.NaN(), PrefillPairs: math.Inf(1)}.Validate()
	require.ErrorIs(t, err, ErrInvalidSpec)
	for _, msg := range []string{"decode_seqs -1", "decode_context NaN", "prefill_pairs +Inf"} {
		assert.Contains(t, err.Error(), msg)
	}
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
		PrefillContext: 1024, PrefillPairs: PrefillPairs(512, 1024)}
	b.Run("Deployment", func(b *testing.B) {
		b.ReportAllocs()
		var sink float64
		for b.Loop() {
			sink += d.Step(batch).Time
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		require.Positive(b, sink)
	})
	b.Run("Compiled", func(b *testing.B) {
		b.ReportAllocs()
		var sink float64
		for b.Loop() {
			sink += sm.Step(batch).Time
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		require.Positive(b, sink)
	})
}

// TestStepMirrorsPerRankHelpers: the inlined constants of Step agree with
// the exported per-rank helpers, replicated KV heads included.
func TestStepMirrorsPerRankHelpers(t *testing.T) {
	tests := []struct {
		model string
		tp    int
	}{
		{"llama-3.1-8b", 1}, {"llama-3.1-8b", 16}, {"qwen2.5-72b", 8}, {"qwen2.5-7b", 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/tp=%d", tt.model, tt.tp), func(t *testing.T) {
			d := deployment(t, tt.model, "h100-sxm", tt.tp)
			s := d.Step(DecodeBatch(1, 100))
			assert.InEpsilon(t, d.StreamedWeightBytesPerRank(), s.WeightBytes, 1e-12)
			assert.InEpsilon(t, 100*d.KVBytesPerTokenPerRank(), s.KVReadBytes, 1e-12)
			assert.InEpsilon(t, 2*d.StreamedWeightBytesPerRank()/d.Model.WeightBytes, s.ProjFLOPs, 1e-12)
		})
	}
}
