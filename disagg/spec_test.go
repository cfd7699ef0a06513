package disagg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost/topology"
)

// TestSpecBuild: the decode pool is the prefill engine moved to its own
// GPU and TP; on another GPU its limits become vLLM serve's defaults for
// that GPU (an A100: 256 sequences, 2048 tokens) unless they were given;
// names that are not in the catalog, and sizes Validate refuses, are
// errors naming what to fix.
func TestSpecBuild(t *testing.T) {
	t.Parallel()
	pre := llama8b(t, "h100-sxm", 1)
	pre.MaxNumSeqs, pre.MaxNumBatchedTokens = 1024, 8192
	tests := []struct {
		name                   string
		spec                   Spec
		gpu                    string
		tp, maxSeqs, maxTokens int
		errHas                 string
	}{
		{"same GPU", Spec{Prefill: 2, Decode: 1, Link: topology.DefaultLinkName}, "h100-sxm", 1, 1024, 8192, ""},
		{"decode on an A100", Spec{Prefill: 1, Decode: 1, DecodeGPU: "a100-80gb", Link: "rdma-roce-200g"}, "a100-80gb", 1, 256, 2048, ""},
		{"given limits kept", Spec{Prefill: 1, Decode: 1, DecodeGPU: "a100-80gb", Link: "rdma-roce-200g", KeepMaxNumSeqs: true, KeepMaxNumBatchedTokens: true}, "a100-80gb", 1, 1024, 8192, ""},
		{"decode TP", Spec{Prefill: 1, Decode: 2, DecodeTP: 2, Link: topology.DefaultLinkName}, "h100-sxm", 2, 1024, 8192, ""},
		{"unknown GPU", Spec{Prefill: 1, Decode: 1, DecodeGPU: "abacus", Link: topology.DefaultLinkName}, "", 0, 0, 0, "--decode-gpu: "},
		{"unknown link", Spec{Prefill: 1, Decode: 1, Link: "carrier-pigeon"}, "", 0, 0, 0, `--kv-link: cost: unknown link "carrier-pigeon"`},
		{"no decode instance", Spec{Prefill: 1, Decode: 0, Link: topology.DefaultLinkName}, "", 0, 0, 0, "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := tt.spec.Build(pre, batching.RoundRobin)
			if tt.errHas != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errHas)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, pre, c.Prefill.Engine, "the prefill pool runs the engine given")
			assert.Equal(t, tt.spec.Prefill, c.Prefill.Instances)
			assert.Equal(t, tt.spec.Decode, c.Decode.Instances)
			d := c.Decode.Engine
			assert.Equal(t, tt.gpu, d.Deployment.GPU.Name)
			require.NotNil(t, d.Deployment.Profile)
			assert.Equal(t, tt.tp, d.Deployment.TP)
			assert.Equal(t, tt.maxSeqs, d.MaxNumSeqs)
			assert.Equal(t, tt.maxTokens, d.MaxNumBatchedTokens)
			assert.Equal(t, tt.spec.Link, c.Link.Name)
			assert.Equal(t, batching.RoundRobin, c.Router)
		})
	}
}
