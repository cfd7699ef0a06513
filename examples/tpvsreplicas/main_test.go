package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTPVsReplicas runs the example as shipped. Llama-3.1-70B has 64
// attention heads, 8 KV heads and 70.6 billion parameters: 141.1 GB =
// 131.4 GiB of BF16 weights, which do not fit one 80 GB card, and split
// over p ranks as 64/p heads and 8/p KV heads per rank. The verdict must
// name TP=2, the smallest TP that fits, and the table the candidates'
// shapes.
func TestTPVsReplicas(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b, 3000, 1))
	out := b.String()
	t.Log("\n" + out)
	for _, line := range []string{
		"TP=1 x4      4  does not fit: weights 131.4 GiB",
		"TP=2 x2      4  32 heads, 4 kv; weights 65.7",
		"TP=4 x1      4  16 heads, 2 kv; weights 32.9",
		"TP=8 x1      8  8 heads, 1 kv; weights 16.4",
		"verdict: the model does not fit one GPU; the smallest TP that fits and meets the SLO is 2",
	} {
		assert.Contains(t, out, line)
	}
}
