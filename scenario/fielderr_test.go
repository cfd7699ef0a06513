package scenario

import (
	"errors"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineErrorsPlaced: an engine error the batching package returns
// comes out as a FieldError at the server field that set the value
// (serverFieldOf), with the file's line, the typed value where batching
// gave one, and ErrInvalid; no message is parsed on the way.
func TestEngineErrorsPlaced(t *testing.T) {
	t.Parallel()
	const open = "workload: {arrival: {rate: 1}}\n"
	for _, tt := range []struct {
		name, yaml, field string
		value             any
		line              int
	}{
		{"budget below seqs", open + "server: {max_num_batched_tokens: 100}\n", "server.max_num_batched_tokens", 100, 2},
		{"tp shape", open + "server:\n  tensor_parallel_size: 3\n", "server.tensor_parallel_size", 3, 3},
		{"kv cache above the card", open + "server: {kv_cache_memory: 1000GiB}\n", "server.kv_cache_memory", nil, 2},
		{"expert parallel", open + "server: {model: gpt-oss-20b, data_parallel_size: 3, enable_expert_parallel: true}\n", "server.enable_expert_parallel", nil, 2},
		{"pool below max_model_len", open + "server: {kv_cache_memory: 1GiB}\n", "server.max_model_len", 131072, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(tt.yaml), "e.yaml")
			if err == nil {
				_, err = sc.Config()
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "%v", err)
			assert.Equal(t, tt.field, fe.Field, "%v", err)
			assert.Equal(t, tt.value, fe.Value, "%v", err)
			assert.Equal(t, "e.yaml", fe.File)
			assert.Equal(t, tt.line, fe.Line, "%v", err)
		})
	}
}
