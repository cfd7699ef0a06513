package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputHoldsReferenceNumbers checks the lines of
// docs/reference-numbers.md#tp-cost-model the program must print, and the
// screen's verdicts.
func TestOutputHoldsReferenceNumbers(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	for _, line := range []string{
		"all-reduce payload at T=32: 524288 bytes (512 KiB)",
		"per-step bus traffic per rank at p=4, T=32: 125829120 bytes (120 MiB) over 160 all-reduces",
		"T   TP=2   TP=4   TP=8\n" +
			"1   0.61x  0.72x  0.79x\n" +
			"4   1.26x  1.81x  2.31x\n" +
			"8   1.53x  2.42x  3.42x\n" +
			"16  1.71x  2.91x  4.51x\n" +
			"32  1.82x  3.25x  5.35x\n",
		"p=2: T* = 2.31 tokens",
		"p=4: T* = 1.54 tokens",
		"p=8: T* = 1.32 tokens",
		"no T helps",
		"TP=1\n  shape: ok",
		"does not fit",
		"KV pool/rank: 34672 tokens",
		"KV pool/rank: 1430592 tokens",
		`tp: 8 must divide heads 28 of model "qwen2.5-7b"`,
		"replicated ×2",
	} {
		assert.Contains(t, out.String(), line)
	}
	assert.Equal(t, 3, strings.Count(out.String(), ": fits\n"), "TP=2, 4, 8 fit")
	assert.Equal(t, 4, strings.Count(out.String(), "batch 32 "), "decode predictions for every p")
}
