package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPD: servesim pd wires its flags to disagg.Spec (TestSpecBuild) and
// prints vllmbench.WritePDSummary (TestWritePDSummary); its own flags'
// refusals are its own.
func TestPD(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "pd", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--decode-gpu", "a100-80gb", "--prefill-instances", "2",
		"--num-prompts", "200", "--request-rate", "10", "--random-input-len", "2000", "--random-output-len", "100", "--max-model-len", "8192",
		"--goodput", "ttft:1000", "tpot:60", "--kv-link", "rdma-roce-200g")
	out := r.stdout
	for _, want := range []string{"Prefill pool:                            2 x h100-sxm TP 1", "Decode pool:                             1 x a100-80gb TP 1",
		"Successful requests:                     200", "transfer:", "rdma-roce-200g (18 GB/s per rank, 0.4 ms)", "SLO attainment (%):",
		"--max-num-seqs 256 --max-num-batched-tokens 2048 --max-model-len 8192", // the A100's serve defaults
		"python toy_proxy_server.py --port 8000 --prefiller-hosts localhost localhost"} {
		assert.Contains(t, out, want)
	}

	bad := servesim(t, "pd", "-pp", "2")
	assert.Equal(t, 2, bad.code)
	assert.Contains(t, bad.stderr, "pd: --pp: a P/D deployment's size is --prefill-instances and --decode-instances")
	bad = servesim(t, "pd", "--kv-link", "carrier-pigeon")
	assert.Equal(t, 2, bad.code)
	assert.Contains(t, bad.stderr, `unknown link "carrier-pigeon"`)
}

// --served-model-name goes into every vllm serve line pd prints, after
// the checkpoint; a name a shell would split is refused.
func TestPDServedModelName(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "pd", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--num-prompts", "20", "--request-rate", "5",
		"--random-input-len", "500", "--random-output-len", "20", "--max-model-len", "4096", "--served-model-name", "llama8")
	assert.Contains(t, r.stdout, "vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name llama8 --tensor-parallel-size 1")
	assert.Equal(t, 2, strings.Count(r.stdout, "--served-model-name llama8"), "one prefill and one decode instance")
	bad := servesim(t, "pd", "--model", "llama-3.1-8b", "--served-model-name", "my model")
	assert.NotEqual(t, 0, bad.code)
	assert.Contains(t, bad.stderr, `pd: --served-model-name: invalid plan: served_model_name "my model": the character ' ' cannot stand unquoted`)
}
