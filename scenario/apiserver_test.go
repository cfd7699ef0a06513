package scenario

import (
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIServerField(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte("workload: {arrival: {rate: 1}}\nserver:\n  model: qwen2.5-7b\n  api_server:\n    per_request_s: 0.004\n    per_output_token_s: 1e-4\n"), "e.yaml")
	require.NoError(t, err)
	cfg, err := s.Config()
	require.NoError(t, err)
	eng, ok := cfg.Server.(batching.Config)
	require.True(t, ok, "server %T", cfg.Server)
	assert.Equal(t, batching.APIServer{PerRequest: 0.004, PerOutputToken: 1e-4}, eng.APIServer)

	_, err = Parse([]byte("workload: {arrival: {rate: 1}}\nserver:\n  api_server:\n    per_request_s: -1\n"), "e.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "server.api_server.per_request_s: -1 must be a finite number of seconds >= 0")
	_, err = Parse([]byte("workload: {arrival: {rate: 1}}\nserver:\n  api_server:\n    per_reqest_s: 1\n"), "e.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "per_reqest_s"`)
}
