package calibrate

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/vllmbench"
	"github.com/servesim/servesim/workload"
)

// ErrInvalid is matched (errors.Is) by every error of this package that
// rejects input: a malformed CSV row or result JSON, a point that cannot be
// simulated, bad fit options.
var ErrInvalid = errors.New("calibrate: invalid input")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Metrics are the mean latencies and the throughput of one run, as vLLM's
// benchmark reports them: seconds and output tokens per second. A zero
// field was not measured (or not predicted) and takes no part in a fit.
type Metrics struct {
	// TTFT, TPOT, ITL and E2E are means, seconds.
	TTFT, TPOT, ITL, E2E float64
	// OutputThroughput is output tokens per second over the run.
	OutputThroughput float64
}

// Metric names one field of Metrics.
type Metric string

// The metrics a calibration compares, in report order.
const (
	TTFT             Metric = "ttft"
	TPOT             Metric = "tpot"
	ITL              Metric = "itl"
	E2E              Metric = "e2e"
	OutputThroughput Metric = "output_throughput"
)

// AllMetrics lists every Metric in report order.
var AllMetrics = []Metric{TTFT, TPOT, ITL, E2E, OutputThroughput}

// Get returns the value of metric k.
func (m Metrics) Get(k Metric) float64 {
	switch k {
	case TTFT:
		return m.TTFT
	case TPOT:
		return m.TPOT
	case ITL:
		return m.ITL
	case E2E:
		return m.E2E
	case OutputThroughput:
		return m.OutputThroughput
	}
	return 0
}

// Point is one measured run and the setup it was measured under: what a
// calibration re-simulates and compares.
type Point struct {
	// ID identifies the run (the CSV's id, or the JSON file's name).
	ID string
	// Source names where the point comes from (a file).
	Source string
	// Model is the served model's Hugging Face id (Qwen/Qwen3-32B).
	Model string
	// GPU is the catalog GPU name (h100-sxm).
	GPU string
	// TP is the tensor-parallel degree.
	TP int
	// DP and EP are the attention data-parallel and expert-parallel
	// degrees of a mixture-of-experts deployment (cost.Deployment's DP and
	// EP; 0 or 1: none). With DP groups the clients spread evenly over them.
	DP, EP int
	// DPRouter is how the run's requests reached its data-parallel groups
	// (batching.Config.DPRouter; "": vLLM's balancer).
	DPRouter batching.DPRouter
	// Precision is the weight precision: "bf16" for dense 16-bit weights,
	// else what the source says (fp8, fp4, int4).
	Precision string
	// KVCache is the KV cache's precision as a cost.ParsePrecision name
	// (vLLM's --kv-cache-dtype), "" for the model's own 16-bit type.
	KVCache string
	// BackendVersion is the vLLM version, "" when unrecorded.
	BackendVersion string
	// Concurrency is the closed loop's client count; 0 for an open loop.
	Concurrency int
	// Rate is the open loop's request rate, requests/s (+Inf: all at
	// once); 0 for a closed loop.
	Rate float64
	// MaxConcurrency caps an open loop's requests in flight (0: none).
	MaxConcurrency int
	// Input and Output are the tokens of every request (fixed lengths, or
	// the run's means rounded).
	Input, Output int
	// NumPrompts is the run's measured request count (0: unknown). A
	// closed-loop point with one is re-simulated as its benchmark ran it,
	// from an idle engine (see Simulator).
	NumPrompts int
	// WarmupRepeats is how many of a closed-loop point's first measured
	// requests repeat the prompts of the benchmark's warm-up requests, in
	// order, which the engine served before the measured phase and whose
	// blocks its prefix cache still holds then (genai-perf: 2 ×
	// concurrency, perf_analyzer replaying its dataset from the start
	// after the warm-up; 0: none, every prompt distinct). The simulator
	// warms the engine's prefix cache with them (batching.Config.WarmPrompts).
	WarmupRepeats int
	// DatasetEntries is how many distinct prompts a closed-loop point's
	// benchmark cycled through, request i sending prompt i mod
	// DatasetEntries (genai-perf's --num-dataset-entries, perf_analyzer
	// replaying its dataset from the start after the warm-up; 0: every
	// prompt distinct). When NumPrompts exceeds it, the repeated prompts
	// find their blocks in the prefix cache as they did on the server.
	DatasetEntries int
	// Burstiness is the gamma shape of an open loop's arrival gaps, as
	// `vllm bench serve --burstiness` sets it: 1 (or 0) Poisson, < 1
	// burstier, +Inf constant gaps.
	Burstiness float64
	// IndependentGaps marks an open loop whose gaps were drawn
	// independently, as aiperf and genai-perf draw them, rather than
	// rescaled so that the last request is sent at n/Rate, as vllm bench
	// serve sends them.
	IndependentGaps bool
	// Arrivals and Lengths, when both are set, make the point a replayed
	// open loop: request i arrives Arrivals[i] seconds after the run's
	// start (non-decreasing, the first at 0) with Lengths[i] tokens, and
	// Rate, Concurrency, Input and Output are not used
	// (ReadLLMServingSimRun, and ReadVLLMResult for an open loop saved
	// with --save-detailed). Lengths alone are the requests' lengths in
	// the order they were sent, under the point's concurrency or rate
	// (ReadVLLMResult for a closed loop saved with --save-detailed); Input
	// and Output are then their means, rounded.
	Arrivals []float64
	Lengths  []workload.Pair
	// Engine, when set, is the engine the run was measured on, as the
	// caller knows it (servesim calibrate builds it from the flags of
	// servesim bench): it replaces the engine Simulator builds from Model,
	// GPU, TP, DP, EP, Precision, KVCache, KVBlocks and the scheduler
	// limits, all but its efficiency profile, which the simulator sets.
	Engine *batching.Config
	// KVBlocks is the engine's KV pool in 16-token blocks as the run
	// recorded it (vLLM's num_gpu_blocks); 0: computed from the GPU's
	// memory.
	KVBlocks int
	// MaxNumSeqs and MaxNumBatchedTokens are the engine's scheduler limits
	// when the source says them (0: vLLM's defaults for the GPU, see
	// VLLMSchedulerDefaults).
	MaxNumSeqs, MaxNumBatchedTokens int
	// Measured holds the run's metrics.
	Measured Metrics
}

// Setup describes the point's setup in one line, e.g. "tp2 1024x128 c8"
// (the parallelism of its Engine when it has one; "mean 1000x200" when the
// requests have their own lengths; a burstiness other than 1 as "b0.5").
func (p Point) Setup() string {
	tp, dp, ep := p.TP, p.DP, p.EP
	if p.Engine != nil {
		tp, dp, ep = p.Engine.Deployment.TP, p.Engine.Deployment.DP, p.Engine.Deployment.EP
	}
	par := fmt.Sprintf("tp%d", tp)
	if dp > 1 {
		par += fmt.Sprintf(" dp%d", dp)
	}
	if ep > 1 {
		par += fmt.Sprintf(" ep%d", ep)
	}
	if len(p.Arrivals) > 0 {
		return fmt.Sprintf("%s replay of %d requests over %.0f s", par, len(p.Arrivals), p.Arrivals[len(p.Arrivals)-1])
	}
	load := fmt.Sprintf("c%d", p.Concurrency)
	if p.Concurrency == 0 {
		load = "rate " + strconv.FormatFloat(p.Rate, 'g', 4, 64)
		if p.Burstiness != 0 && p.Burstiness != 1 {
			load += " b" + strconv.FormatFloat(p.Burstiness, 'g', 3, 64)
		}
		if p.MaxConcurrency > 0 {
			load += fmt.Sprintf(" cap %d", p.MaxConcurrency)
		}
	}
	lengths := fmt.Sprintf("%dx%d", p.Input, p.Output)
	if len(p.Lengths) > 0 {
		lengths = "mean " + lengths
	}
	return fmt.Sprintf("%s %s %s", par, lengths, load)
}

// siliconGPUs maps the aiconfigurator system names to catalog GPUs.
var siliconGPUs = map[string]string{
	"h100_sxm": "h100-sxm", "h200_sxm": "h200", "b200_sxm": "b200", "b300_sxm": "b300", "a100_sxm": "a100-80gb",
}

// csvColumns reads cr's header and returns each column's index by name;
// it fails naming source and the first of need the header lacks.
func csvColumns(cr *csv.Reader, source string, need ...string) (map[string]int, error) {
	head, err := cr.Read()
	if err != nil {
		return nil, invalidf("%s: header: %v", source, err)
	}
	col := make(map[string]int, len(head))
	for i, h := range head {
		col[h] = i
	}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, invalidf("%s: column %q missing", source, n)
		}
	}
	return col, nil
}

// ReadSiliconCSV reads the rows of aiconfigurator's silicon measurements
// (shared/data/aiconfigurator_vllm_silicon.csv: closed-loop concurrency,
// fixed ISL/OSL, mean TTFT and TPOT in ms) as points. Every row is
// returned; a blank precision means 16-bit weights ("bf16"), and a system
// without a catalog GPU keeps its own name. E2E is derived as
// TTFT + (OSL−1)·TPOT, which holds for every request of a fixed-length run,
// and output throughput is not measured.
//
// The scheduler limits are those aiconfigurator's generator writes for a
// benchmarked aggregated vLLM worker (ai-dynamo/aiconfigurator@095f58a5,
// src/aiconfigurator/generator/rule_plugin/benchmark/vllm.rule):
// max_num_batched_tokens = batch size + ISL + 1500, with the row's
// batch_size_per_dp_rank (its concurrency) as the batch size, and
// max_num_seqs 512, or twice the batch size when that is 512 or more (the
// deployment plugin's rule, rule_plugin/vllm.rule, agg_decode
// max_batch_size). (That plugin first raises the batch size to 512, and
// its rules are evaluated in order, which would make the budget
// 512 + ISL + 1500; re-simulated that way the calibration rows' median
// |TTFT error| rises from 12.7% to 16.0%, so the benchmark plugin's is kept.)
// A mixture-of-experts row's attention_dp_size and moe_ep_size become DP
// and EP, and its requests all go to the first data-parallel group
// (batching.DPFirstGroup): the rows measure a deployment of D groups at c
// clients as fast as the same TP without data parallelism at c clients,
// not at c/D (docs/fidelity.md, "Data-parallel rows").
//
// A row whose linear layers are FP8 or NVFP4 (gemm_quant_mode fp8,
// fp8_block or nvfp4) runs an FP8 KV cache: aiconfigurator resolves a
// checkpoint quantized that way to kvcache_quant_mode fp8
// (aic-core/src/aiconfigurator_core/sdk/models/helpers.py,
// _infer_quant_modes_from_raw_config) and its generator deploys that mode
// as --kv-cache-dtype (generator/module_bridge.py,
// config/backend_config_mapping.yaml). The measurements agree: at TP 1 on
// B200, 64 clients of Llama-3.1-70B at 1024 + 8192 tokens need 193 GB of
// KV cache in 16 bits, more than the GPU's memory, yet their mean TTFT is
// 0.38 s, which no run that queues for memory shows.
//
// The benchmark is the one aiconfigurator's evaluation runs
// (src/aiconfigurator/eval/benchmarks/genai_perf_runner.py): genai-perf
// with --concurrency c, --warmup-request-count 2c and --request-count 10c,
// so NumPrompts is 10 × concurrency; perf_analyzer waits for the warm-up
// requests to finish before it starts the measured ones, all clients at
// once, which Simulator re-simulates from an idle engine. Its measured
// requests replay the dataset from its first entry, so the first 2c
// repeat the warm-up's prompts (WarmupRepeats), which vLLM's prefix
// cache, on by default, still holds.
func ReadSiliconCSV(r io.Reader, source string) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	col, err := csvColumns(cr, source, "id", "backend_version", "model_path", "system", "precision", "isl", "osl", "concurrency", "tp_size", "silicon_ttft_ms", "silicon_tpot_ms")
	if err != nil {
		return nil, err
	}
	var out []Point
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, invalidf("%s: %v", source, err)
		}
		get := func(k string) string { return strings.TrimSpace(rec[col[k]]) }
		ints := map[string]int{}
		for _, k := range []string{"isl", "osl", "concurrency", "tp_size"} {
			v, err := strconv.Atoi(get(k))
			if err != nil || v < 1 {
				return nil, invalidf("%s line %d: %s %q must be an integer >= 1", source, line, k, get(k))
			}
			ints[k] = v
		}
		ms := map[string]float64{}
		for _, k := range []string{"silicon_ttft_ms", "silicon_tpot_ms"} {
			v, err := strconv.ParseFloat(get(k), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, invalidf("%s line %d: %s %q must be a number > 0", source, line, k, get(k))
			}
			ms[k] = v / 1000
		}
		gpu := get("system")
		if g, ok := siliconGPUs[gpu]; ok {
			gpu = g
		}
		prec := get("precision")
		if prec == "" {
			prec = "bf16"
		}
		p := Point{ID: get("id"), Source: source, Model: get("model_path"), GPU: gpu, TP: ints["tp_size"],
			Precision: prec, BackendVersion: get("backend_version"), Concurrency: ints["concurrency"],
			Input: ints["isl"], Output: ints["osl"],
			Measured: Metrics{TTFT: ms["silicon_ttft_ms"], TPOT: ms["silicon_tpot_ms"]}}
		p.Measured.E2E = p.Measured.TTFT + float64(p.Output-1)*p.Measured.TPOT
		switch optionalString(rec, col, "gemm_quant_mode") {
		case "fp8", "fp8_block", "nvfp4":
			p.KVCache = "fp8"
		}
		batch := p.Concurrency
		if v := optionalInt(rec, col, "batch_size_per_dp_rank"); v > 0 {
			batch = v
		}
		p.MaxNumSeqs, p.MaxNumBatchedTokens = aicMaxNumSeqs, batch+p.Input+aicTokenMargin
		if batch >= aicMaxNumSeqs {
			p.MaxNumSeqs = 2 * batch
		}
		p.DP, p.EP = optionalInt(rec, col, "attention_dp_size"), optionalInt(rec, col, "moe_ep_size")
		if p.DP > 1 {
			p.DPRouter = batching.DPFirstGroup
		}
		p.NumPrompts = aicMeasuredRounds * p.Concurrency
		p.WarmupRepeats = aicWarmupRounds * p.Concurrency
		out = append(out, p)
	}
}

// optionalString returns the text in column k of rec, trimmed and in lower
// case, or "" when the column is missing.
func optionalString(rec []string, col map[string]int, k string) string {
	c, ok := col[k]
	if !ok {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(rec[c]))
}

// optionalInt returns the integer in column k of rec, or 0 when the
// column is missing, blank or not a positive integer.
func optionalInt(rec []string, col map[string]int, k string) int {
	c, ok := col[k]
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(strings.TrimSpace(rec[c]))
	if err != nil || v < 1 {
		return 0
	}
	return v
}

// vllmResult holds the keys of `vllm bench serve --save-result` that a
// calibration reads (vLLM benchmarks/serve.py; docs/metrics.md#json-field-names),
// with the per-request lists --save-detailed adds, one entry per request
// sent, failed ones included.
type vllmResult struct {
	ModelID           string          `json:"model_id"`
	NumPrompts        int             `json:"num_prompts"`
	RequestRate       json.RawMessage `json:"request_rate"`
	Burstiness        json.RawMessage `json:"burstiness"`
	MaxConcurrency    *int            `json:"max_concurrency"`
	Completed         int             `json:"completed"`
	TotalInputTokens  int             `json:"total_input_tokens"`
	TotalOutputTokens int             `json:"total_output_tokens"`
	OutputThroughput  float64         `json:"output_throughput"`
	MeanTTFTms        fileNumber      `json:"mean_ttft_ms"`
	MeanTPOTms        fileNumber      `json:"mean_tpot_ms"`
	MeanITLms         fileNumber      `json:"mean_itl_ms"`
	MeanE2ELms        fileNumber      `json:"mean_e2el_ms"`
	InputLens         []*int          `json:"input_lens"`
	OutputLens        []*int          `json:"output_lens"`
	StartTimes        []*float64      `json:"start_times"`
	Errors            []*string       `json:"errors"`
	RampUpStrategy    *string         `json:"ramp_up_strategy"`
}

// fileNumber is a number of a result file that tells an explicit null
// (Python's NaN, after pyjson) from an absent field (0, not measured).
type fileNumber struct {
	v    float64
	null bool
}

func (n *fileNumber) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.null = true
		return nil
	}
	return json.Unmarshal(b, &n.v)
}

// aiconfigurator's vLLM scheduler rule (vllm.rule): max_num_seqs 512
// below 512 requests, max_num_tokens = max_batch_size + isl + 1500; and
// its benchmark's measured and warm-up requests per client
// (genai_perf_runner.py, --request-count 10 × and --warmup-request-count
// 2 × concurrency).
const (
	aicMaxNumSeqs     = 512
	aicTokenMargin    = 1500
	aicMeasuredRounds = 10
	aicWarmupRounds   = 2
)

// ReadVLLMResult reads one result JSON written by `vllm bench serve
// --save-result` (or `servesim bench --save-result`) as a point: the
// request rate ("inf" or a number), burstiness and max_concurrency give
// the load; the lengths are total_input_tokens and total_output_tokens
// over completed, rounded; the metrics are mean_ttft_ms, mean_tpot_ms,
// mean_itl_ms, mean_e2el_ms and output_throughput. A run at rate inf with
// a max_concurrency is the closed loop vLLM's benchmark runs then: that
// many clients, started together, NumPrompts requests measured. The
// deployment (GPU, TP, precision) is not in the file: the caller fills in
// GPU and TP, and Precision defaults to bf16.
//
// A file saved with --save-detailed also lists every request's input_lens
// and output_lens (with errors, and in newer vLLM start_times). The
// completed requests' lengths, in the order they were sent, then replace
// the means (Point.Lengths); an open loop without max_concurrency whose
// file has start_times is replayed as it arrived (Point.Arrivals: each
// completed request at its start time less the first one's). With a
// max_concurrency the start times are when the client's semaphore let a
// request go, which depends on the measured server, so they are not
// replayed. Failed requests (a non-empty error, or an output length of 0
// where the file has no errors) are left out, as vLLM leaves them out of
// its means, and the run re-simulated is the completed requests
// (NumPrompts is their count). A ramp-up run (ramp_up_strategy) is
// re-simulated only by replaying its start times; without them it is an
// error, not a run at the file's request_rate, inf. Lists of different lengths, a completed count that differs
// from the requests without an error, or a length outside [0, MaxTokens]
// (outputs from 1) are errors naming the field and the request.
func ReadVLLMResult(r io.Reader, source string) (Point, error) {
	pts, err := ReadVLLMResults(r, source)
	if err != nil {
		return Point{}, err
	}
	if len(pts) > 1 {
		return Point{}, invalidf("%s holds %d results (written with --append-result): read them with ReadVLLMResults", source, len(pts))
	}
	return pts[0], nil
}

// nonFiniteConcurrency finds a bare NaN or infinity given as a result's
// max_concurrency.
var nonFiniteConcurrency = regexp.MustCompile(`"max_concurrency"\s*:\s*-?(NaN|Infinity)`)

// ReadVLLMResults reads every result of a file written by `vllm bench
// serve --save-result`, one JSON object, or several, one a line, when
// --append-result added runs to it (a sweep over the rate or the
// concurrency), each as ReadVLLMResult reads one; the k-th of several is
// named source#k. Python's bare Infinity (--burstiness inf) reads as
// "inf"; a bare NaN reads as absent only for mean_tpot_ms and mean_itl_ms
// of a run whose outputs are all one token (vLLM's NaN there), and is an
// error elsewhere, as are a missing request_rate, a negative mean, and
// counts past MaxPointRequests. An empty file, or one whose
// k-th object is not a result, is an error naming it.
func ReadVLLMResults(r io.Reader, source string) ([]Point, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, invalidf("%s: %v", source, err)
	}
	// pyjson reads a bare NaN as null, which for max_concurrency means no
	// cap: a NaN there would turn a closed loop open without a word.
	if m := nonFiniteConcurrency.Find(data); m != nil {
		return nil, invalidf("%s: %s: max_concurrency must be a whole number of clients, or null for none, as vllm bench serve writes it; fix the file", source, m)
	}
	raws, err := vllmbench.DecodeResults(data)
	if err != nil {
		return nil, invalidf("%s: result %d: %v", source, len(raws)+1, err)
	}
	if len(raws) == 0 {
		return nil, invalidf("%s: empty: no result", source)
	}
	out := make([]Point, 0, len(raws))
	for k, raw := range raws {
		id := source
		if len(raws) > 1 {
			id = fmt.Sprintf("%s#%d", source, k+1)
		}
		p, err := vllmResultPoint(raw, id, source)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// vllmResultPoint reads one result object as a point named id.
func vllmResultPoint(raw json.RawMessage, id, source string) (Point, error) {
	var v vllmResult
	if err := json.Unmarshal(raw, &v); err != nil {
		return Point{}, invalidf("%s: %v", id, err)
	}
	if v.Completed < 1 || v.TotalInputTokens < 0 || v.TotalOutputTokens < v.Completed {
		return Point{}, invalidf("%s: completed %d, total_input_tokens %d, total_output_tokens %d: need completed >= 1 and >= 1 output token each",
			id, v.Completed, v.TotalInputTokens, v.TotalOutputTokens)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"num_prompts", v.NumPrompts}, {"completed", v.Completed}} {
		if err := countField(id, c.name, c.n); err != nil {
			return Point{}, err
		}
	}
	if v.NumPrompts > 0 && v.Completed > v.NumPrompts {
		return Point{}, invalidf("%s: completed %d exceeds num_prompts %d: a run completes at most the requests it sends", id, v.Completed, v.NumPrompts)
	}
	if len(v.RequestRate) == 0 || string(v.RequestRate) == "null" {
		return Point{}, invalidf("%s: request_rate is missing, null or NaN: want \"inf\" or the rate in requests/s the run was sent at", id)
	}
	rate, err := rateField(v.RequestRate, "request_rate", false)
	if err != nil {
		return Point{}, invalidf("%s: %v", id, err)
	}
	if rate < workload.MinRate {
		return Point{}, invalidf("%s: request_rate %v is below %v requests/s (workload.MinRate)", id, rate, workload.MinRate)
	}
	means := map[string]float64{}
	for _, m := range []struct {
		name string
		v    fileNumber
	}{{"mean_ttft_ms", v.MeanTTFTms}, {"mean_tpot_ms", v.MeanTPOTms}, {"mean_itl_ms", v.MeanITLms}, {"mean_e2el_ms", v.MeanE2ELms}} {
		// vLLM's TPOT and ITL are NaN when every output is one token
		// (no gap to average); any other NaN mean is not a measurement.
		perToken := m.name == "mean_tpot_ms" || m.name == "mean_itl_ms"
		switch {
		case m.v.null && perToken && v.TotalOutputTokens == v.Completed:
		case m.v.null:
			return Point{}, invalidf("%s: %s is null or NaN with completed %d and %d output tokens: a run that completed requests has a mean; drop the field if it was not measured", id, m.name, v.Completed, v.TotalOutputTokens)
		case !(m.v.v >= 0) || m.v.v > 1e12:
			return Point{}, invalidf("%s: %s %v must be a finite time >= 0 ms", id, m.name, m.v.v)
		}
		means[m.name] = m.v.v
	}
	if !(v.OutputThroughput >= 0) || math.IsInf(v.OutputThroughput, 0) {
		return Point{}, invalidf("%s: output_throughput %v must be a finite number >= 0", id, v.OutputThroughput)
	}
	burst, err := rateField(v.Burstiness, "burstiness", true)
	if err != nil {
		return Point{}, invalidf("%s: %v", id, err)
	}
	p := Point{ID: id, Source: source, Model: v.ModelID, Precision: "bf16",
		Input:      int(math.Round(float64(v.TotalInputTokens) / float64(v.Completed))),
		Output:     int(math.Round(float64(v.TotalOutputTokens) / float64(v.Completed))),
		NumPrompts: max(v.NumPrompts, v.Completed),
		Measured: Metrics{TTFT: means["mean_ttft_ms"] / 1000, TPOT: means["mean_tpot_ms"] / 1000, ITL: means["mean_itl_ms"] / 1000,
			E2E: means["mean_e2el_ms"] / 1000, OutputThroughput: v.OutputThroughput}}
	if v.MaxConcurrency != nil && (*v.MaxConcurrency < 0 || *v.MaxConcurrency > MaxPointRequests) {
		return Point{}, invalidf("%s: max_concurrency %d must be from 0 to %d", id, *v.MaxConcurrency, MaxPointRequests)
	}
	switch {
	case math.IsInf(rate, 1) && v.MaxConcurrency != nil && *v.MaxConcurrency > 0:
		p.Concurrency = *v.MaxConcurrency
	default:
		p.Rate, p.Burstiness = rate, burst
		if v.MaxConcurrency != nil {
			p.MaxConcurrency = *v.MaxConcurrency
		}
	}
	pairs, starts, err := v.completedRequests()
	if err != nil {
		return Point{}, invalidf("%s: %v", id, err)
	}
	replayed := starts != nil && p.Concurrency == 0 && p.MaxConcurrency == 0
	if ramp := v.RampUpStrategy; ramp != nil && *ramp != "" && !replayed {
		return Point{}, invalidf("%s: ramp_up_strategy %s: a ramp-up run is re-simulated from its start_times (--save-detailed, without --max-concurrency); this file has none to replay", id, *ramp)
	}
	if pairs == nil {
		return p, nil
	}
	// The completed requests are the run: the failed ones' lengths are
	// not known.
	p.Lengths, p.NumPrompts = pairs, len(pairs)
	if replayed {
		p.Arrivals, p.Lengths = replay(starts, pairs)
		if last := p.Arrivals[len(p.Arrivals)-1]; math.IsInf(last, 0) {
			return Point{}, invalidf("%s: start_times span %v s: the times must differ by a finite number of seconds", id, last)
		}
	}
	return p, nil
}

// rateField reads request_rate or burstiness: a number > 0, "inf", or
// (burstiness only, which older files leave out) absent or null for 1.
func rateField(raw json.RawMessage, name string, defaultOne bool) (float64, error) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	switch strings.ToLower(s) {
	case "", "null":
		if defaultOne {
			return 1, nil
		}
		return math.Inf(1), nil
	case "inf", "infinity":
		return math.Inf(1), nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s %s must be \"inf\" or a number > 0", name, s)
	}
	return x, nil
}

// completedRequests returns the lengths of the completed requests of a
// --save-detailed file, in the file's order, and their start times when
// the file has them; nil without per-request lists.
func (v *vllmResult) completedRequests() ([]workload.Pair, []float64, error) {
	n := len(v.InputLens)
	if v.InputLens == nil && v.OutputLens == nil {
		return nil, nil, nil
	}
	if n > MaxPointRequests {
		return nil, nil, fmt.Errorf("input_lens lists %d requests, more than %d (MaxPointRequests, the most a point re-simulates)", n, MaxPointRequests)
	}
	for _, l := range []struct {
		name string
		n    int
		set  bool
	}{{"output_lens", len(v.OutputLens), true}, {"errors", len(v.Errors), v.Errors != nil}, {"start_times", len(v.StartTimes), v.StartTimes != nil}} {
		if l.set && l.n != n {
			return nil, nil, fmt.Errorf("input_lens has %d entries and %s %d: a --save-detailed file lists every request in each", n, l.name, l.n)
		}
	}
	var pairs []workload.Pair
	var starts []float64
	for i := range n {
		switch {
		case v.InputLens[i] == nil:
			return nil, nil, fmt.Errorf("input_lens[%d] is null: every request has a prompt length", i)
		case v.OutputLens[i] == nil:
			return nil, nil, fmt.Errorf("output_lens[%d] is null: every request has an output length (0 when it failed)", i)
		}
		in, out := *v.InputLens[i], *v.OutputLens[i]
		failed := out == 0
		if v.Errors != nil {
			failed = v.Errors[i] != nil && *v.Errors[i] != ""
		}
		if failed {
			continue
		}
		switch {
		case in < 0 || in > workload.MaxTokens:
			return nil, nil, fmt.Errorf("input_lens[%d] %d must be in [0, %d]", i, in, workload.MaxTokens)
		case out < 1 || out > workload.MaxTokens:
			return nil, nil, fmt.Errorf("output_lens[%d] %d of a completed request must be in [1, %d]", i, out, workload.MaxTokens)
		}
		pairs = append(pairs, workload.Pair{Input: in, Output: out})
		if v.StartTimes != nil {
			if v.StartTimes[i] == nil {
				return nil, nil, fmt.Errorf("start_times[%d] is null (NaN): a completed request has a start time", i)
			}
			starts = append(starts, *v.StartTimes[i])
		}
	}
	if len(pairs) != v.Completed {
		return nil, nil, fmt.Errorf("completed %d, but %d of the %d requests in input_lens completed (no error, output tokens > 0)", v.Completed, len(pairs), n)
	}
	return pairs, starts, nil
}

// replay orders the completed requests by start time (ties in file order) and returns
// each one's arrival, its start less the first start, with its lengths.
func replay(starts []float64, pairs []workload.Pair) ([]float64, []workload.Pair) {
	idx := make([]int, len(starts))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		if sa, sb := starts[idx[a]], starts[idx[b]]; sa != sb {
			return sa < sb
		}
		return idx[a] < idx[b] // ties in file order
	})
	times := make([]float64, len(idx))
	ordered := make([]workload.Pair, len(idx))
	for k, i := range idx {
		times[k] = starts[i] - starts[idx[0]]
		ordered[k] = pairs[i]
	}
	return times, ordered
}
