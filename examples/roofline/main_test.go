package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputHoldsReferenceNumbers checks the roofline floors of
// docs/reference-numbers.md#roofline-floors and KV-pool arithmetic in the
// program's output.
func TestOutputHoldsReferenceNumbers(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	for _, line := range []string{
		"average context (1024+1280)/2 = 1152 tokens",
		"matmul parameters 7.07e+09 (BF16: 14.14 GB streamed per step); KV 57344 bytes (56 KiB) per token",
		" 1    14.21 GB  14.09 ms   memory",
		" 8    14.67 GB  14.55 ms   memory",
		"32    16.25 GB  16.13 ms   memory",
		"64    18.37 GB  18.22 ms   memory",
		"6.41 GiB / 56 KiB per token = 120025 tokens ≈ 93.8 requests of 1280 tokens",
		"= 6.41 GiB",
		"120112 tokens ≈ 93.8 requests",
	} {
		assert.Contains(t, out.String(), line)
	}
}
