package cost

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Llama 4 against Meta's published sizes (17B activated; 109B and 400B in
// total, each with its ~0.9B vision encoder, which the cost model does not
// count): Maverick's experts sit on every other layer
// (interleave_moe_layer_step 2), with dense MLPs of intermediate_size_mlp
// between; Scout's on every layer. Each MoE layer adds one shared expert of
// intermediate_size. Three layers in four attend within 8192-token chunks
// (attention_chunk_size), every fourth globally without RoPE. Parsed
// without those fields, Maverick counted 128 experts on all 48 layers
// (778B) and no chunking.
func TestHFLlama4(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file                        string
		total, active, tol          float64
		dense, sliding, ctx, expert int
	}{
		// Scout: the 0.9B vision encoder is 0.8% of 109B, so 2%
		{"meta-llama--Llama-4-Scout-17B-16E-Instruct", 109e9, 17e9, 0.02, 0, 36, 10485760, 16},
		{"meta-llama--Llama-4-Maverick-17B-128E-Instruct", 400e9, 17e9, 0.01, 24, 36, 1048576, 128},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			m := mustHFConfig(t, filepath.Join("testdata", "llama4", tt.file+".json"))
			assert.InEpsilon(t, tt.total, m.TotalParams(), tt.tol)
			assert.InEpsilon(t, tt.active, m.activeParams(), 0.02)
			assert.Equal(t, tt.expert, m.Experts)
			assert.Equal(t, 1, m.ExpertsPerToken)
			assert.Equal(t, tt.dense, m.DenseLayers)
			assert.Equal(t, 16384, m.Intermediate, "dense layers: intermediate_size_mlp")
			assert.Equal(t, 8192, m.ExpertIntermediate)
			assert.Equal(t, 8192, m.SharedIntermediate, "one shared expert of intermediate_size")
			assert.Equal(t, tt.sliding, m.SlidingLayers)
			assert.Equal(t, 8192, m.SlidingWindow)
			assert.Equal(t, tt.ctx, m.MaxContext)
		})
	}
}

// The Llama 4 fields in isolation: moe_layers overrides the interleave
// step, no_rope_layers picks the chunked layers ([] is the default), and a
// malformed list is an error naming the field.
func TestHFLlama4Fields(t *testing.T) {
	t.Parallel()
	base := `"model_type":"llama4_text","hidden_size":64,"num_hidden_layers":8,"num_attention_heads":4,"vocab_size":100,` +
		`"intermediate_size":32,"intermediate_size_mlp":128,"num_local_experts":4,"num_experts_per_tok":1,"attention_chunk_size":16`
	tests := []struct {
		name, extra    string
		dense, sliding int
		window         int
		wantErr        string
	}{
		{"defaults", ``, 0, 6, 16, ""},
		{"step 2", `,"interleave_moe_layer_step":2`, 4, 6, 16, ""},
		{"moe_layers", `,"interleave_moe_layer_step":2,"moe_layers":[0,7,7]`, 6, 6, 16, ""},
		{"no_rope_layers", `,"no_rope_layers":[1,1,0,0,1,1,1,0]`, 0, 5, 16, ""},
		{"empty no_rope_layers", `,"no_rope_layers":[]`, 0, 6, 16, ""},
		{"interval 2", `,"no_rope_layer_interval":2`, 0, 4, 16, ""},
		{"all global", `,"no_rope_layers":[0,0,0,0,0,0,0,0]`, 0, 0, 0, ""},
		{"short no_rope_layers", `,"no_rope_layers":[1,0]`, 0, 0, 0, "no_rope_layers"},
		{"moe_layers out of range", `,"moe_layers":[8]`, 0, 0, 0, "moe_layers"},
		{"moe_layers not a list", `,"moe_layers":3`, 0, 0, 0, "moe_layers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := ParseHFConfig([]byte("{"+base+tt.extra+"}"), "l4")
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidSpec)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.dense, m.DenseLayers)
			assert.Equal(t, tt.sliding, m.SlidingLayers)
			assert.Equal(t, tt.window, m.SlidingWindow)
			assert.Equal(t, 128, m.Intermediate)
			assert.Equal(t, 32, m.ExpertIntermediate)
		})
	}
}
