package cost

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustModel(t testing.TB, name string) ModelSpec {
	t.Helper()
	m, err := Model(name)
	require.NoError(t, err)
	return m
}

func mustGPU(t testing.TB, name string) GPUSpec {
	t.Helper()
	g, err := GPU(name)
	require.NoError(t, err)
	return g
}

// TestPublishedParameterCounts checks derived totals against the counts the
// model cards publish.
func TestPublishedParameterCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model     string
		total     float64 // published, rounded as published
		tolerance float64 // relative: half a unit of the published rounding
	}{
		{"llama-3.1-8b", 8.03e9, 0.0007},
		{"llama-3.1-70b", 70.6e9, 0.0008},
		{"llama-3.1-405b", 405.9e9, 0.0002},
		{"qwen2.5-7b", 7.61e9, 0.0013},
		{"qwen2.5-72b", 72.7e9, 0.0007},
		{"mistral-7b", 7.25e9, 0.0007},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			m := mustModel(t, tt.model)
			assert.InEpsilon(t, tt.total, m.TotalParams(), tt.tolerance)
		})
	}
}

func TestQwen7BDerivedValues(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "qwen2.5-7b")
	assert.Equal(t, 7_615_616_512.0, m.TotalParams(), "7.62e9 with Q/K/V biases and norms")
	assert.Equal(t, 7_070_285_824.0, m.MatmulParams(), "7.07e9: blocks + untied LM head, no embedding lookup")
	assert.InDelta(t, 6.53e9, m.nonEmbeddingParams(), 0.005e9, "model card: 6.53B non-embedding")
	assert.InDelta(t, 14.1406e9, m.MatmulWeightBytes(), 0.00005e9, "docs/reference-numbers.md: 14.14 GB of BF16 weights streamed")
	assert.Equal(t, 56.0*1024, m.KVBytesPerToken(), "56 KiB of KV per token")
	assert.Equal(t, 7_615_616_512.0*2, m.WeightBytesTotal())
}

func TestLlama8BDerivedValues(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-8b")
	assert.Equal(t, 8_030_261_248.0, m.TotalParams())
	assert.Equal(t, 128.0*1024, m.KVBytesPerToken(), "2·32·8·128·2 bytes")
}

// TestTiedEmbeddings: tying removes one vocab×hidden matrix from the count
// but not from the bytes streamed per step (the LM head is still read).
func TestTiedEmbeddings(t *testing.T) {
	t.Parallel()
	untied := mustModel(t, "llama-3.1-8b")
	tied := untied
	tied.TiedEmbeddings = true
	assert.Equal(t, untied.TotalParams()-untied.embeddingParams(), tied.TotalParams())
	assert.Equal(t, untied.MatmulParams(), tied.MatmulParams())
}

func TestProjectionFLOPsMatchFormula(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-70b")
	h, i, hkv, tok := 8192.0, 28672.0, 1024.0, 32.0
	want := 4*tok*(h*h+h*hkv) + 6*tok*h*i
	assert.Equal(t, want, m.ProjectionFLOPsPerLayer(tok))
}

func TestModelValidateNamesField(t *testing.T) {
	t.Parallel()
	good := mustModel(t, "llama-3.1-8b")
	tests := []struct {
		name  string
		edit  func(*ModelSpec)
		field string
		value any
		limit string
	}{
		{"zero hidden", func(m *ModelSpec) { m.Hidden = 0 }, "hidden", 0, "must be >= 1"},
		{"negative intermediate", func(m *ModelSpec) { m.Intermediate = -1 }, "intermediate", -1, "must be >= 1"},
		{"zero layers", func(m *ModelSpec) { m.Layers = 0 }, "layers", 0, "must be >= 1"},
		{"zero heads", func(m *ModelSpec) { m.Heads = 0 }, "heads", 0, "must be >= 1"},
		{"zero kv heads", func(m *ModelSpec) { m.KVHeads = 0 }, "kv_heads", 0, "must be >= 1"},
		{"kv heads do not divide heads", func(m *ModelSpec) { m.KVHeads = 3 }, "kv_heads", 3, "must divide heads 32"},
		{"zero head dim", func(m *ModelSpec) { m.HeadDim = 0 }, "head_dim", 0, "must be >= 1"},
		{"negative vocab", func(m *ModelSpec) { m.Vocab = -5 }, "vocab", -5, "must be >= 1"},
		{"NaN weight bytes", func(m *ModelSpec) { m.WeightBytes = math.NaN() }, "weight_bytes", math.NaN(), "must be a finite number > 0"},
		{"zero kv bytes", func(m *ModelSpec) { m.KVBytes = 0 }, "kv_bytes", 0, "must be a finite number > 0"},
		{"infinite act bytes", func(m *ModelSpec) { m.ActBytes = math.Inf(1) }, "act_bytes", math.Inf(1), "must be a finite number > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := good
			tt.edit(&m)
			err := m.Validate()
			fe := requireProblem(t, err, tt.field, tt.value, tt.limit)
			assert.Same(t, fe, fielderr.Of(err), "errors.As finds the one problem")
		})
	}
}

func TestModelValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	err := ModelSpec{Name: "empty"}.Validate()
	require.ErrorIs(t, err, ErrInvalidSpec)
	for _, field := range []string{"hidden", "intermediate", "layers", "heads", "kv_heads", "head_dim", "vocab", "weight_bytes", "kv_bytes", "act_bytes"} {
		assert.Contains(t, err.Error(), field)
	}
}

func TestShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		p     int
		want  Shape
	}{
		{"llama-3.1-70b", 1, Shape{TP: 1, HeadsPerRank: 64, KVHeadsPerRank: 8, KVReplication: 1, IntermediatePerRank: 28672}},
		{"llama-3.1-70b", 8, Shape{TP: 8, HeadsPerRank: 8, KVHeadsPerRank: 1, KVReplication: 1, IntermediatePerRank: 3584}},
		{"llama-3.1-8b", 16, Shape{TP: 16, HeadsPerRank: 2, KVHeadsPerRank: 1, KVReplication: 2, IntermediatePerRank: 896}},
		{"qwen2.5-7b", 4, Shape{TP: 4, HeadsPerRank: 7, KVHeadsPerRank: 1, KVReplication: 1, IntermediatePerRank: 4736}},
	}
	for _, tt := range tests {
		t.Run(tt.want.String(), func(t *testing.T) {
			got, err := mustModel(t, tt.model).Shape(tt.p)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestShapeReportsReplicatedKV(t *testing.T) {
	t.Parallel()
	s, err := mustModel(t, "llama-3.1-8b").Shape(16)
	require.NoError(t, err)
	assert.Equal(t, 2, s.KVReplication, "16 ranks over 8 kv heads")
	assert.Equal(t, "tp=16: 2 heads, 1 kv head (replicated ×2), 896 MLP columns per rank", s.String())
}

func TestShapeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		p     int
		limit string
	}{
		{"qwen2.5-7b", 8, `must divide heads 28 of model "qwen2.5-7b"`},
		{"qwen2.5-7b", 0, "must be >= 1"},
		{"llama-3.1-8b", -2, "must be >= 1"},
		{"llama-3.1-8b", 3, "must divide heads 32"},
		{"qwen2.5-7b", 7, "must divide, or be a multiple of, kv_heads 4"},
	}
	for _, tt := range tests {
		t.Run(tt.limit, func(t *testing.T) {
			_, err := mustModel(t, tt.model).Shape(tt.p)
			var found bool
			for _, fe := range fieldProblems(err) {
				assert.Equal(t, "tp", fe.Field)
				assert.Equal(t, tt.p, fe.Value)
				found = found || strings.Contains(fe.Limit, tt.limit)
			}
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.True(t, found, "no problem says %q: %v", tt.limit, err)
		})
	}
}

func TestShapeIntermediateMustDivide(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-8b")
	m.Intermediate = 14338
	_, err := m.Shape(4)
	require.ErrorIs(t, err, ErrInvalidSpec)
	requireProblem(t, err, "tp", 4, "must divide intermediate 14338")
	assert.False(t, errors.Is(err, ErrDoesNotFit))
}
