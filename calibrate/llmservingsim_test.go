package calibrate

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/workload"
)

// llmServingSimRuns reads the vLLM runs of LLMServingSim's bench/examples
// kept in testdata/llmservingsim (see its README).
func llmServingSimRuns(t testing.TB) []Point {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "llmservingsim", "*", "meta.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no runs in testdata/llmservingsim: %v", err)
	}
	var out []Point
	for _, m := range dirs {
		dir := filepath.Dir(m)
		meta, err := os.Open(m)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := os.Open(filepath.Join(dir, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadLLMServingSimRun(meta, reqs, filepath.Base(dir))
		meta.Close()
		reqs.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

const lssMetaOK = `{"model": "meta-llama/Llama-3.1-8B", "vllm_version": "0.19.0",
 "engine_kwargs": {"tensor_parallel_size": 1, "max_num_seqs": 256, "max_num_batched_tokens": 2048, "dtype": "bfloat16", "kv_cache_dtype": "auto"},
 "kv_cache": {"num_gpu_blocks": 2588, "block_size": 16, "enable_prefix_caching": true},
 "hardware": {"device_name": "NVIDIA GeForce RTX 4090"}}`

// Three requests, out of order, on the engine's clock (seconds).
const lssRequestsOK = `{"input_toks": 100, "output_toks": 11, "queued_ts": 10.5, "scheduled_ts": 10.5, "first_token_ts": 10.7, "last_token_ts": 11.7}
{"input_toks": 200, "output_toks": 1, "queued_ts": 10.0, "scheduled_ts": 10.0, "first_token_ts": 10.1, "last_token_ts": 10.1}

{"input_toks": 300, "output_toks": 5, "queued_ts": 12.0, "scheduled_ts": 12.0, "first_token_ts": 12.3, "last_token_ts": 12.7}
`

// TestReadLLMServingSimRun: a run reads as a replay in arrival order, with
// the means worked out by hand: TTFT (0.1 + 0.2 + 0.3)/3 = 0.2 s; TPOT over
// the two requests of more than one token, (1.0/10 + 0.4/4)/2 = 0.1 s; E2E
// (0.1 + 1.2 + 0.7)/3.
func TestReadLLMServingSimRun(t *testing.T) {
	t.Parallel()
	p, err := ReadLLMServingSimRun(strings.NewReader(lssMetaOK), strings.NewReader(lssRequestsOK), "run")
	if err != nil {
		t.Fatal(err)
	}
	if p.GPU != "rtx4090" || p.TP != 1 || p.MaxNumSeqs != 256 || p.MaxNumBatchedTokens != 2048 || p.KVBlocks != 2588 || p.KVCache != "" || p.Precision != "bf16" {
		t.Errorf("setup %+v", p)
	}
	if !slices.Equal(p.Arrivals, []float64{0, 0.5, 2}) {
		t.Errorf("arrivals %v, want 0, 0.5, 2", p.Arrivals)
	}
	if !slices.Equal(p.Lengths, []workload.Pair{{Input: 200, Output: 1}, {Input: 100, Output: 11}, {Input: 300, Output: 5}}) {
		t.Errorf("lengths %v", p.Lengths)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"ttft", p.Measured.TTFT, 0.2}, {"tpot", p.Measured.TPOT, 0.1}, {"e2e", p.Measured.E2E, 2.0 / 3}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	// It re-simulates: as many requests as the run, all measured.
	cfg, err := Simulator{}.Config(p, mustProfile(t, "h100-sxm"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Requests != 3 || cfg.Warmup != 0 {
		t.Errorf("requests %d, warm-up %d", cfg.Requests, cfg.Warmup)
	}
}

func TestReadLLMServingSimRunErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, meta, requests, want string
	}{
		{"not json", `{`, lssRequestsOK, "meta.json"},
		{"no model", strings.Replace(lssMetaOK, `"model": "meta-llama/Llama-3.1-8B",`, "", 1), lssRequestsOK, `model ""`},
		{"tp 0", strings.Replace(lssMetaOK, `"tensor_parallel_size": 1`, `"tensor_parallel_size": 0`, 1), lssRequestsOK, "tensor_parallel_size 0"},
		{"unknown device", strings.Replace(lssMetaOK, "GeForce RTX 4090", "Quadro K600", 1), lssRequestsOK, `device_name "NVIDIA Quadro K600"`},
		{"fp32", strings.Replace(lssMetaOK, `"dtype": "bfloat16"`, `"dtype": "float32"`, 1), lssRequestsOK, `dtype "float32"`},
		{"block size", strings.Replace(lssMetaOK, `"block_size": 16`, `"block_size": 32`, 1), lssRequestsOK, "block_size 32"},
		{"blocks 2^31", strings.Replace(lssMetaOK, `"num_gpu_blocks": 2588`, `"num_gpu_blocks": 2147483648`, 1), lssRequestsOK, "kv_cache.num_gpu_blocks 2147483648 must be from 0 to 2147483647"},
		{"blocks negative", strings.Replace(lssMetaOK, `"num_gpu_blocks": 2588`, `"num_gpu_blocks": -5`, 1), lssRequestsOK, "kv_cache.num_gpu_blocks -5"},
		{"no requests", lssMetaOK, "\n", "no request"},
		{"bad line", lssMetaOK, "{\"input_toks\": 1,\n", "line 1"},
		{"first token before queued", lssMetaOK, `{"input_toks": 1, "output_toks": 2, "queued_ts": 5, "first_token_ts": 4, "last_token_ts": 6}`, "queued_ts <= first_token_ts"},
		{"no output", lssMetaOK, `{"input_toks": 1, "output_toks": 0, "queued_ts": 5, "first_token_ts": 5, "last_token_ts": 6}`, "output_toks 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadLLMServingSimRun(strings.NewReader(tc.meta), strings.NewReader(tc.requests), "run")
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
}

// FuzzReadLLMServingSimRun: any input is read or refused, never a panic;
// what is read is a replay the simulator accepts.
func FuzzReadLLMServingSimRun(f *testing.F) {
	f.Add([]byte(lssMetaOK), []byte(lssRequestsOK))
	f.Add([]byte(strings.Replace(lssMetaOK, `"num_gpu_blocks": 2588`, `"num_gpu_blocks": 4294967296`, 1)), []byte(lssRequestsOK))
	f.Add([]byte(strings.Replace(lssMetaOK, `"tensor_parallel_size": 1`, `"tensor_parallel_size": 2, "data_parallel_size": 2, "enable_expert_parallel": true`, 1)), []byte(lssRequestsOK))
	f.Fuzz(func(t *testing.T, meta, requests []byte) {
		p, err := ReadLLMServingSimRun(bytes.NewReader(meta), bytes.NewReader(requests), "fuzz")
		if err != nil {
			return
		}
		if len(p.Arrivals) == 0 || len(p.Arrivals) != len(p.Lengths) || p.Arrivals[0] != 0 || !slices.IsSorted(p.Arrivals) {
			t.Fatalf("arrivals %v, %d lengths", p.Arrivals, len(p.Lengths))
		}
		if !(p.Measured.TTFT >= 0 && p.Measured.E2E >= p.Measured.TTFT && p.Measured.TPOT >= 0) {
			t.Fatalf("measured %+v", p.Measured)
		}
	})
}

func mustProfile(t testing.TB, gpu string) cost.Profile {
	t.Helper()
	p, err := catalogProfile(gpu)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
