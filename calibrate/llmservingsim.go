package calibrate

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/workload"
)

// lssMeta holds the keys of an LLMServingSim benchmark run's meta.json
// (casys-kaist/LLMServingSim, bench/core/recorder.py) that a re-simulation
// needs.
type lssMeta struct {
	Model        string `json:"model"`
	VLLMVersion  string `json:"vllm_version"`
	EngineKwargs struct {
		TP                  int    `json:"tensor_parallel_size"`
		DP                  int    `json:"data_parallel_size"`
		ExpertParallel      bool   `json:"enable_expert_parallel"`
		MaxNumSeqs          int    `json:"max_num_seqs"`
		MaxNumBatchedTokens int    `json:"max_num_batched_tokens"`
		DType               string `json:"dtype"`
		KVCacheDType        string `json:"kv_cache_dtype"`
	} `json:"engine_kwargs"`
	KVCache *struct {
		NumGPUBlocks int  `json:"num_gpu_blocks"`
		BlockSize    int  `json:"block_size"`
		PrefixCache  bool `json:"enable_prefix_caching"`
	} `json:"kv_cache"`
	Hardware struct {
		DeviceName string `json:"device_name"`
	} `json:"hardware"`
}

// lssRequest is one line of the run's requests.jsonl: the token counts and
// vLLM's per-request timestamps (RequestStateStats, the engine's monotonic
// clock, seconds).
type lssRequest struct {
	Input      int     `json:"input_toks"`
	Output     int     `json:"output_toks"`
	Queued     float64 `json:"queued_ts"`
	FirstToken float64 `json:"first_token_ts"`
	LastToken  float64 `json:"last_token_ts"`
}

// lssGPUs maps device names, as torch reports them, to catalog GPUs.
var lssGPUs = []struct{ contains, gpu string }{
	{"rtx 4090", "rtx4090"}, {"rtx pro 6000", "rtxpro6000"}, {"rtx 5090", "rtx5090"},
	{"h100", "h100-sxm"}, {"h200", "h200"}, {"a100", "a100-80gb"}, {"l40s", "l40s"}, {"b200", "b200"},
}

// ReadLLMServingSimRun reads one vLLM benchmark run as LLMServingSim's
// bench tool records it (casys-kaist/LLMServingSim, bench/examples/<gpu>/
// <model>/vllm/: meta.json and requests.jsonl) as a point. The runner
// submits each request to vLLM's AsyncLLM at its trace arrival time, in
// process (no HTTP server); so the point is an open loop replayed as it
// arrived: request i at its queued_ts less the first one's, with its
// input_toks and output_toks (Arrivals, Lengths). The measured means are
// LLMServingSim's own definitions (bench/core/validate.py): TTFT =
// first_token_ts − queued_ts, TPOT = (last_token_ts − first_token_ts) /
// (output_toks − 1) over requests of two or more tokens, E2E =
// last_token_ts − queued_ts. The engine is engine_kwargs' (TP,
// max_num_seqs, max_num_batched_tokens), with kv_cache.num_gpu_blocks as
// the measured KV pool when recorded, and the GPU named by
// hardware.device_name (GPU "" when the file records none, for the caller
// to fill in); data_parallel_size and enable_expert_parallel
// become DP and EP (EP = TP·DP, as vLLM's flag sets it). source names the
// run.
func ReadLLMServingSimRun(meta, requests io.Reader, source string) (Point, error) {
	var m lssMeta
	if err := json.NewDecoder(meta).Decode(&m); err != nil {
		return Point{}, invalidf("%s: meta.json: %v", source, err)
	}
	k := m.EngineKwargs
	if m.Model == "" || k.TP < 1 || k.MaxNumSeqs < 1 || k.MaxNumBatchedTokens < 1 {
		return Point{}, invalidf("%s: meta.json: model %q, tensor_parallel_size %d, max_num_seqs %d and max_num_batched_tokens %d must be set (>= 1)",
			source, m.Model, k.TP, k.MaxNumSeqs, k.MaxNumBatchedTokens)
	}
	gpu := ""
	name := strings.ToLower(m.Hardware.DeviceName)
	for _, g := range lssGPUs {
		if strings.Contains(name, g.contains) {
			gpu = g.gpu
			break
		}
	}
	if gpu == "" && name != "" {
		return Point{}, invalidf("%s: meta.json: hardware.device_name %q names no catalog GPU", source, m.Hardware.DeviceName)
	}
	precision := "bf16"
	if d := strings.ToLower(k.DType); d != "" && d != "bfloat16" && d != "auto" && d != "float16" {
		return Point{}, invalidf("%s: meta.json: dtype %q is not modelled (bfloat16, float16 or auto)", source, k.DType)
	}
	p := Point{ID: source, Source: source, Model: m.Model, GPU: gpu, TP: k.TP, Precision: precision,
		BackendVersion: m.VLLMVersion, MaxNumSeqs: k.MaxNumSeqs, MaxNumBatchedTokens: k.MaxNumBatchedTokens}
	if k.DP > 1 {
		p.DP = k.DP
	}
	if k.ExpertParallel {
		p.EP = k.TP * max(k.DP, 1)
	}
	if kv := strings.ToLower(k.KVCacheDType); kv != "" && kv != "auto" {
		p.KVCache = kv
	}
	if m.KVCache != nil && (m.KVCache.NumGPUBlocks < 0 || m.KVCache.NumGPUBlocks > batching.MaxKVBlocks) {
		return Point{}, invalidf("%s: meta.json: kv_cache.num_gpu_blocks %d must be from 0 to %d (no GPU holds more blocks)", source, m.KVCache.NumGPUBlocks, batching.MaxKVBlocks)
	}
	if m.KVCache != nil && m.KVCache.NumGPUBlocks > 0 {
		if m.KVCache.BlockSize != 16 {
			return Point{}, invalidf("%s: meta.json: kv_cache.block_size %d: only 16 is modelled", source, m.KVCache.BlockSize)
		}
		p.KVBlocks = m.KVCache.NumGPUBlocks
	}

	reqs, err := readLSSRequests(requests, source)
	if err != nil {
		return Point{}, err
	}
	t0 := reqs[0].Queued
	var ttft, tpot, e2e float64
	tpotN := 0
	for _, r := range reqs {
		p.Arrivals = append(p.Arrivals, r.Queued-t0)
		p.Lengths = append(p.Lengths, workload.Pair{Input: r.Input, Output: r.Output})
		ttft += r.FirstToken - r.Queued
		e2e += r.LastToken - r.Queued
		if r.Output > 1 {
			tpot += (r.LastToken - r.FirstToken) / float64(r.Output-1)
			tpotN++
		}
	}
	n := float64(len(reqs))
	p.Measured = Metrics{TTFT: ttft / n, E2E: e2e / n}
	if tpotN > 0 {
		p.Measured.TPOT = tpot / float64(tpotN)
	}
	p.NumPrompts = len(reqs)
	return p, nil
}

// readLSSRequests reads a run's requests.jsonl (one lssRequest a line;
// source names the run in errors), checks each request's counts and
// timestamps, bounds them by maxReplayRequests, and returns them in
// queued_ts order, the order the run submitted them. It fails, matching
// ErrInvalid, on a bad line or an empty file.
func readLSSRequests(requests io.Reader, source string) ([]lssRequest, error) {
	var reqs []lssRequest
	sc := bufio.NewScanner(requests)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r lssRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, invalidf("%s: requests.jsonl line %d: %v", source, line, err)
		}
		ok := r.Input >= 1 && r.Output >= 1 && r.Queued > 0 && r.FirstToken >= r.Queued && r.LastToken >= r.FirstToken
		for _, v := range []float64{r.Queued, r.FirstToken, r.LastToken} {
			ok = ok && !math.IsInf(v, 0) && !math.IsNaN(v)
		}
		if !ok {
			return nil, invalidf("%s: requests.jsonl line %d: input_toks %d, output_toks %d must be >= 1 and queued_ts <= first_token_ts <= last_token_ts (%v, %v, %v)",
				source, line, r.Input, r.Output, r.Queued, r.FirstToken, r.LastToken)
		}
		reqs = append(reqs, r)
		if len(reqs) > maxReplayRequests {
			return nil, invalidf("%s: requests.jsonl holds more than %d requests, the most a point replays", source, maxReplayRequests)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, invalidf("%s: requests.jsonl: %v", source, err)
	}
	if len(reqs) == 0 {
		return nil, invalidf("%s: requests.jsonl holds no request", source)
	}
	slices.SortStableFunc(reqs, func(a, b lssRequest) int { return cmp.Compare(a.Queued, b.Queued) })
	return reqs, nil
}

// maxReplayRequests bounds a replayed point's requests (its arrivals and
// lengths are kept in memory, 24 bytes each).
const maxReplayRequests = 1_000_000
