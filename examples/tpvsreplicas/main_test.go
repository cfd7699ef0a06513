package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTPVsReplicas(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b, 3000, 1))
	out := b.String()
	t.Log("\n" + out)
	assert.Contains(t, out, "TP=1 x4      4  does not fit")
	for _, c := range []string{"TP=2 x2", "TP=4 x1", "TP=8 x1"} {
		assert.Regexp(t, c+`\s+\d+\s+\d+ heads`, out)
	}
	assert.Contains(t, out, "verdict: the model does not fit one GPU")
}
