package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimits: sizes beyond the documented limits, numbers that do not fit
// their fields and lengths no engine can serve are errors that name the
// field, the value and the limit.
func TestLimits(t *testing.T) {
	t.Parallel()
	const open = "workload:\n  arrival: {rate: 5}\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"records", "requests: 10000001\n" + open, "e.yaml:1: requests: 10000001 exceeds 10000000, the limit with every request's record kept"},
		{"summary", "requests: 1000000001\nsummary_only: true\n" + open, "e.yaml:1: requests: 1000000001 exceeds 1000000000, the limit in summary mode"},
		{"horizon", "requests: 0\nhorizon: 3e6\n" + open, "e.yaml:2: horizon: 3e+06 s at 5 requests/s brings about 1.5e+07 requests, more than 10000000"},
		{"replications", "replications: 100001\n" + open, "e.yaml:1: replications: 100001 exceeds 100000, the most jobs"},
		{"jobs", "replications: 40000\n" + open + "sweep: {param: requests, values: [10, 20, 30]}\n", "e.yaml:1: replications: 40000 replications × 3 sweep points = 120000 jobs exceed 100000"},
		{"fraction", "requests: 12.5\n" + open, "e.yaml:1: requests: 12.5 must be a whole number"},
		{"out of range", "seed: -1\n" + open, "e.yaml:1: seed: -1 must be a whole number in [0, 18446744073709551615]"},
		{"huge", "warmup: 1e19\n" + open, "e.yaml:1: warmup: 1e19 is out of range"},
		{"text for a float", "horizon: soon\n" + open, `e.yaml:1: horizon: "soon" is not a number`},
		{"seed sweep", open + "sweep: {param: seed, values: [1, 2]}\n", "e.yaml:3: sweep.param: seed cannot be swept: every point runs replication r with the seed derived from the top-level seed and r"},
		{"fraction in a sweep", open + "sweep: {param: requests, values: [100, 150.5]}\n", "sweep.values[1]: requests = 150.5: 150.5 must be a whole number"},
		{"length", open + "  lengths: {kind: fixed, input: 1073741825, output: 1}\n", "e.yaml:3: workload.lengths.input: 1073741825 exceeds 1073741824 tokens"},
		{"random length", open + "  lengths: {input: 600000000, output: 1}\n", "workload.lengths.input: 600000000 exceeds 536870912 tokens"},
		{"lognormal cap", open + "  lengths: {kind: lognormal, input: 100, output: 10, input_max: -1}\n", "workload.lengths.input_max: -1 must be in [0, 1073741824]"},
		{"empty prompt", open + "  lengths: {kind: fixed, input: 0, output: 4}\n", "workload.lengths.input: the shortest prompt has 0 tokens: the vLLM engine needs at least 1"},
		{"above max_model_len", open + "server: {max_model_len: 1000}\n", "workload.lengths.input: the shortest request has input 1024 + output 128 = 1152 tokens, more than max_model_len 1000: no request can run"},
		{"above the context", open + "  lengths: {kind: fixed, input: 131000, output: 100}\n", "more than max_model_len 131072 (llama-3.1-8b's context length, the default)"},
		{"above the pool", open + "  lengths: {kind: fixed, input: 20000, output: 100}\nserver: {kv_cache_memory: 1GiB}\n", "server.max_model_len: 131072 (llama-3.1-8b's context length, vLLM's default) exceeds the KV pool's 8192 tokens"},
		{"max_model_len above the context", open + "server: {max_model_len: 200000}\n", "e.yaml:3: server.max_model_len: 200000 exceeds llama-3.1-8b's context length 131072"},
		{"negative budget", open + "server: {max_num_batched_tokens: -1}\n", "server.max_num_batched_tokens: -1 must be >= 1 (or 0: vLLM's default)"},
		{"clients", "workload:\n  closed: {clients: 2000000000}\n", "e.yaml:2: workload.closed.clients: 2000000000 exceeds 1000000"},
		{"sweep values", open + "replications: 2\nsweep: {param: requests, values: [" + strings.Repeat("10, ", 50000) + "10]}\n", "e.yaml:3: replications: 2 replications × 50001 sweep points = 100002 jobs exceed 100000"},
		{"replicas", open + "server: {replicas: 1025}\n", "server.replicas: 1025 exceeds 1024, the most engine replicas"},
		{"servers", open + "server: {kind: fcfs, servers: 2147483647, service: exp:1}\n", "server.servers: 2147483647 exceeds 1000000, the most FCFS servers"},
		{"data parallel groups", open + "server: {model: gpt-oss-20b, data_parallel_size: 1025}\n", "server.data_parallel_size: 1025 exceeds 1024, the most data-parallel engines or groups"},
		{"negative data parallel", open + "server: {data_parallel_size: -1}\n", "server.data_parallel_size: -1 must be >= 1 (or 0: none)"},
		{"expert parallel, dense", open + "server: {enable_expert_parallel: true}\n", "server.enable_expert_parallel: needs a mixture-of-experts model; llama-3.1-8b is dense"},
		{"data parallel of an FCFS queue", open + "server: {kind: fcfs, data_parallel_size: 2, service: exp:1}\n", "server.data_parallel_size: does not apply to kind fcfs"},
		{"does not fit the card", open + "server: {kv_cache_memory: 1000GiB}\n", "server.kv_cache_memory: cost: llama-3.1-8b on 1×h100-sxm does not fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml), "e.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestVLLMDefaults: max_model_len 0 is the model's context length, and a
// zero token budget vllm serve's for the GPU (8192 on an h100-sxm, 2048 on
// an l40s or an a100), or max(max_model_len, that) without chunked
// prefill; zero max_num_seqs is 1024 on an h100-sxm and 256 on an l40s.
func TestVLLMDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		server                    string
		maxModelLen, budget, seqs int
	}{
		{"{}", 131072, 8192, 1024},
		{"{gpu: l40s}", 131072, 2048, 256},
		{"{gpu: a100-80gb}", 131072, 2048, 256},
		{"{model: mistral-7b}", 32768, 8192, 1024},
		{"{max_model_len: 4096, max_num_seqs: 64}", 4096, 8192, 64},
		{"{enable_chunked_prefill: false}", 131072, 131072, 1024},
		{"{enable_chunked_prefill: false, max_model_len: 1500}", 1500, 8192, 1024},
		{"{gpu: l40s, enable_chunked_prefill: false, max_model_len: 1500}", 1500, 2048, 256},
		{"{enable_chunked_prefill: false, max_model_len: 8192, max_num_batched_tokens: 9000}", 8192, 9000, 1024},
	}
	for _, tt := range tests {
		s, err := Parse([]byte("workload:\n  arrival: {rate: 5}\nserver: "+tt.server+"\n"), "d.yaml")
		if err != nil {
			t.Fatalf("%s: %v", tt.server, err)
		}
		e, err := s.Engine()
		if err != nil {
			t.Fatal(err)
		}
		if e.MaxModelLen != tt.maxModelLen || e.MaxNumBatchedTokens != tt.budget || e.MaxNumSeqs != tt.seqs {
			t.Errorf("server %s: max_model_len %d, max_num_batched_tokens %d, max_num_seqs %d; want %d, %d, %d",
				tt.server, e.MaxModelLen, e.MaxNumBatchedTokens, e.MaxNumSeqs, tt.maxModelLen, tt.budget, tt.seqs)
		}
	}
	if d := Default().Server; d.MaxModelLen != 0 || d.MaxNumBatchedTokens != 0 || d.MaxNumSeqs != 0 || d.GPUMemoryUtilization != 0.92 {
		t.Errorf("Default() server: max_model_len %d, max_num_batched_tokens %d, max_num_seqs %d, gpu_memory_utilization %v; want 0, 0, 0 (vLLM's defaults, resolved per model and GPU), 0.92",
			d.MaxModelLen, d.MaxNumBatchedTokens, d.MaxNumSeqs, d.GPUMemoryUtilization)
	}
}

// TestSummaryBacklogCap: a summary-mode run past MaxRecordedRequests stops
// at MaxInSystem requests in the system, the memory records would take,
// unless max_in_system is set; smaller runs keep sim's default.
func TestSummaryBacklogCap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		head string
		want int
	}{
		{"requests: 20000000\nsummary_only: true\n", MaxInSystem},
		{"requests: 20000000\nsummary_only: true\nmax_in_system: 500\n", 500},
		{"requests: 5000000\nsummary_only: true\n", 0},
	} {
		s, err := Parse([]byte(tt.head+"workload:\n  arrival: {rate: inf}\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := s.Config()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.MaxInSystem != tt.want {
			t.Errorf("%q: max_in_system %d, want %d", tt.head, cfg.MaxInSystem, tt.want)
		}
	}
}

// TestLoadSummaryOnly: LoadSummaryOnly runs every sweep point in summary
// mode, with summary mode's limits and backlog cap, whatever the file
// says; Load keeps the file's mode.
func TestLoadSummaryOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	src := "requests: 20000000\nworkload:\n  arrival: {rate: inf}\nsweep: {param: workload.arrival.rate, values: [5, inf]}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "set summary_only: true") {
		t.Fatalf("Load: %v, want the records limit", err)
	}
	s, err := LoadSummaryOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if !s.SummaryOnly {
		t.Error("LoadSummaryOnly: SummaryOnly false")
	}
	x, err := s.Experiment()
	if err != nil {
		t.Fatal(err)
	}
	for i, cfg := range x.Configs {
		if !cfg.SummaryOnly || cfg.MaxInSystem != MaxInSystem {
			t.Errorf("point %d: summary_only %v, max_in_system %d; want true, %d", i, cfg.SummaryOnly, cfg.MaxInSystem, MaxInSystem)
		}
	}
}
