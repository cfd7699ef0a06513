package vllmbench

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/dataset"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
)

// Flags are the command line of `vllm bench serve` and of the `vllm
// serve` it runs against, as servesim's commands take it (bench,
// capacity, tp, plan, pd, calibrate): the Options, typed, and the flags
// only a command reads.
type Flags struct {
	Options
	// SaveResult and DisableTqdm are --save-result and --disable-tqdm;
	// Quiet is servesim's --quiet (no progress bar or notes).
	SaveResult, DisableTqdm, Quiet bool
	// Report is servesim's --report, an HTML report to write.
	Report string
	// ServedName is vllm serve's --served-model-name (plan.WithServedName).
	ServedName string

	cmd string // the command, the flag set's name
	// second names of one setting (-tp, -dp, -q,
	// --kv-cache-memory-bytes, --endpoint-type, --common-prefix-len),
	// folded into the first by Resolve
	tpAlias, dpAlias int
	kvBytesAlias     float64
	endpointType     string
	commonPrefixLen  int
	qAlias           string
}

// Define sets o to the defaults of the command fs is named for (vLLM's
// for "bench", a search's for the others: Defaults), defines vLLM's
// flags and servesim's beside them on fs, and returns their help groups.
// After fs.Parse, Resolve completes o.
func (o *Flags) Define(fs *flag.FlagSet) []cliflag.Group {
	o.cmd = fs.Name()
	o.Options = Defaults(o.cmd == "bench")
	o.dpAlias, o.tpAlias = 1, o.Server.TensorParallelSize

	rateHelp := "open-loop arrival `rate`, requests/s, or inf (every request at time 0)"
	if !o.Bench {
		rateHelp = "first arrival `rate` probed, requests/s (Poisson unless --burstiness says otherwise)"
	}
	fs.StringVar(&o.Model, "model", o.Model, "model: a catalog `name` (llama-3.1-8b, ...), a Hugging Face id of one (meta-llama/Llama-3.1-8B-Instruct), a directory with a config.json, or a model spec file (.json, .yaml)")
	fs.Var(rateValue{&o.RequestRate}, "request-rate", rateHelp)
	fs.Var(cliflag.PositiveFloat{P: &o.Burstiness, InfOK: true, Format: PyFloat}, "burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, < 1 burstier, > 1 more regular, inf constant")
	fs.Var(cliflag.Int{P: &o.MaxConcurrency, Min: math.MinInt32}, "max-concurrency", "cap on requests in flight; excess requests wait in the client (0: an error, as in vLLM; leave the flag out for no cap)")
	fs.Var(cliflag.Int{P: &o.NumPrompts, Min: -1, Max: scenario.MaxRequests, Why: "the most requests a run may have"}, "num-prompts", fmt.Sprintf("measured requests (custom: <= 0 takes every row); at most %d (%d with --summary-only)", scenario.MaxRecordedRequests, scenario.MaxRequests))
	fs.Var(cliflag.Int{P: &o.NumWarmups}, "num-warmups", "warm-up requests: bench sends copies of the first request before the run, as vLLM (no effect on the measured run); capacity and tp lead the arrival stream with them and leave them out of every statistic")
	fs.Var(cliflag.Seed{P: &o.Seed}, "seed", "random seed, a whole number >= 0: the same seed gives the same result")
	fs.StringVar(&o.DatasetName, "dataset-name", o.DatasetName, "dataset `name`: random, sharegpt, burstgpt, custom, prefix_repetition, spec_bench, timed_trace, hf, sonnet, random-mm, multi_turn (servesim: a file of vLLM's multi-turn benchmark) or trace (servesim: lengths from a CSV/JSONL trace)")
	fs.StringVar(&o.DatasetPath, "dataset-path", "", "dataset `file`: sharegpt JSON, burstgpt CSV, custom or spec_bench JSONL, timed_trace JSONL, sonnet text, multi_turn JSON, trace CSV/JSONL; hf: a Hugging Face id or a local .jsonl/.json file of its rows")
	fs.Var(cliflag.Int{P: &o.RandomInputLen}, "random-input-len", "input tokens per request (random dataset)")
	fs.Var(cliflag.Int{P: &o.RandomOutputLen}, "random-output-len", "output tokens per request (random dataset)")
	fs.StringVar(&o.RandomRangeRatio, "random-range-ratio", o.RandomRangeRatio, "lengths uniform on [floor(n(1-r)), ceil(n(1+r))], r in [0, 1); a JSON {\"input\": r1, \"output\": r2} sets them apart (random dataset)")
	fs.Var(cliflag.Int{P: &o.RandomPrefixLen}, "random-prefix-len", "tokens of one prefix shared by every random prompt, added to its input length")
	fs.Var(cliflag.Int{P: &o.InputLen}, "input-len", "input tokens: sets --random-input-len")
	fs.Var(cliflag.Int{P: &o.OutputLen}, "output-len", "output tokens: sets the output length of every dataset (--random-output-len, --sharegpt-output-len, --custom-output-len, ...)")
	fs.Var(cliflag.Int{P: &o.CustomOutputLen, Min: -1}, "custom-output-len", "custom dataset: output tokens per request; -1 takes each row's output_tokens")
	fs.Var(cliflag.Int{P: &o.ShareGPTOutputLen}, "sharegpt-output-len", "sharegpt dataset: output tokens per request (0: the length of each conversation's first reply)")
	fs.Var(cliflag.Int{P: &o.SpecBenchOutputLen, Min: 1}, "spec-bench-output-len", "spec_bench dataset: output tokens per request")
	fs.StringVar(&o.SpecBenchCategory, "spec-bench-category", "", "spec_bench dataset: keep only rows of this `category`")
	fs.BoolVar(&o.NoOversample, "no-oversample", false, "file datasets with fewer valid rows than --num-prompts run with fewer requests instead of drawing rows again")
	fs.BoolVar(&o.DisableShuffle, "disable-shuffle", false, "file datasets: take rows in file order instead of shuffled with the seed")
	fs.Var(cliflag.Int{P: &o.PrefixRepetition.PrefixLen}, "prefix-repetition-prefix-len", "prefix_repetition: tokens of each shared prefix")
	fs.Var(cliflag.Int{P: &o.PrefixRepetition.SuffixLen}, "prefix-repetition-suffix-len", "prefix_repetition: unique tokens after the prefix")
	fs.Var(cliflag.Int{P: &o.PrefixRepetition.NumPrefixes, Min: 1}, "prefix-repetition-num-prefixes", "prefix_repetition: distinct prefixes (at most --num-prompts)")
	fs.Var(cliflag.Int{P: &o.PrefixRepetition.OutputLen, Min: 1}, "prefix-repetition-output-len", "prefix_repetition: output tokens per request")
	fs.Var(cliflag.Int{P: &o.TimedTraceChunk, Min: 1}, "timed-trace-chunk-hash-size", "timed_trace: tokens each hash id stands for (a row's input is at most hash ids x this)")
	fs.Var(cliflag.PositiveFloat{P: &o.TimedTraceMultiplier, Format: PyFloat}, "timed-trace-sec-multiplier", "timed_trace: seconds per timestamp unit (0.001 for milliseconds)")
	fs.StringVar(&o.HF.Split, "hf-split", "", "hf dataset: the `split` (default "+dataset.HFDefaultSplit+", as vLLM sets for its hf datasets)")
	fs.StringVar(&o.HF.Subset, "hf-subset", "", "hf dataset: the `subset` (lengths are published per split only: a subset needs its rows as a local --dataset-path file)")
	fs.StringVar(&o.HF.Name, "hf-name", "", "hf dataset: the Hugging Face `id` of a local --dataset-path")
	fs.Var(cliflag.Int{P: &o.HF.OutputLen}, "hf-output-len", "hf dataset: output tokens per request (default: the dataset's, as vLLM's class sets it)")
	fs.Var(cliflag.Int{P: &o.MM.BaseItems}, "random-mm-base-items-per-request", "random-mm: images per request (the base of the range)")
	fs.Var(cliflag.NonNegativeFloat{P: &o.MM.RangeRatio}, "random-mm-num-mm-items-range-ratio", "random-mm: images per request uniform on [floor(n(1-r)), ceil(n(1+r))], r in [0, 1]")
	fs.StringVar(&o.MM.Limit, "random-mm-limit-mm-per-prompt", o.MM.Limit, "random-mm: `JSON` caps per request, {\"image\": n, \"video\": m}")
	fs.StringVar(&o.MM.Buckets, "random-mm-bucket-config", o.MM.Buckets, "random-mm: `dict` of (H, W, T) image shapes to probabilities; each image's tokens come from the model's vision config")
	fs.Var(cliflag.Int{P: &o.Sonnet.InputLen, Min: 1}, "sonnet-input-len", "sonnet dataset: the most input tokens of a prompt")
	fs.Var(cliflag.Int{P: &o.Sonnet.OutputLen, Min: 1}, "sonnet-output-len", "sonnet dataset: output tokens per request")
	fs.Var(cliflag.Int{P: &o.Sonnet.PrefixLen}, "sonnet-prefix-len", "sonnet dataset: tokens of the prefix every prompt shares (the file's first lines)")
	fs.Var(cliflag.TriState{P: &o.SelfTimed}, "self-timed", "timed_trace: replay the trace's timestamps (the default) instead of --request-rate")
	fs.Var(cliflag.TriNo{P: &o.SelfTimed}, "no-self-timed", "timed_trace: send at --request-rate instead of the trace's timestamps")
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer `name` or path (default --model); recorded as tokenizer_id; text datasets count tokens with the tokenizer.json at this path (a file or a directory; or in the --model directory), else with servesim's approximation (see docs/cli.md)")
	fs.BoolVar(&o.SkipTokenizerInit, "skip-tokenizer-init", false, "as vLLM without a client tokenizer: no TTFT/TPOT/ITL sections or token-throughput lines, tokenizer_id null")
	fs.Var(cliflag.NonNegativeFloat{P: &o.ProbeRequestRate}, "probe-request-rate", "probe requests per second sent beside the run (0: none; not simulated yet)")
	fs.Var(Goodput{SLO: &o.SLO}, "goodput", "SLO for goodput as `KEY:MS` pairs: --goodput ttft:800 tpot:50 (keys ttft, tpot, e2el)")
	fs.StringVar(&o.PercentileMetrics, "percentile-metrics", o.PercentileMetrics, "comma-separated `metrics` the summary and JSON show: ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue")
	fs.StringVar(&o.MetricPercentiles, "metric-percentiles", o.MetricPercentiles, "comma-separated `percentiles` to report, e.g. 50,90,99")
	fs.BoolVar(&o.SaveResult, "save-result", false, "write the result JSON to a file")
	fs.BoolVar(&o.SaveDetailed, "save-detailed", false, "add vLLM's per-request lists (input_lens, output_lens, ttfts, itls, start_times, generated_texts, errors) to the result JSON")
	fs.BoolVar(&o.AppendResult, "append-result", false, "append the result JSON to the file as one more line (also without --save-result)")
	fs.Var(cliflag.StringList{P: &o.Metadata}, "metadata", "`KEY=VALUE` pairs added to the result JSON as strings (several after one flag)")
	fs.StringVar(&o.ResultDir, "result-dir", "", "`directory` for the result JSON (default: the current one)")
	fs.StringVar(&o.ResultFilename, "result-filename", "", "result JSON `file` name (default {label}-{rate}qps[-concurrency{n}]-{model}-{date}.json)")
	fs.StringVar(&o.Label, "label", "", "label of the result (the JSON's label, the file name's prefix; default --backend)")
	fs.StringVar(&o.Backend, "backend", o.Backend, "`backend` the JSON and the file name record: openai, vllm, openai-chat, openai-audio, openai-responses (requests are simulated either way)")
	fs.StringVar(&o.RampStrategy, "ramp-up-strategy", "", "ramp the rate from --ramp-up-start-rps to --ramp-up-end-rps: linear or exponential")
	fs.Var(cliflag.Int{P: &o.RampStart}, "ramp-up-start-rps", "first rate of the ramp, whole requests/s")
	fs.Var(cliflag.Int{P: &o.RampEnd}, "ramp-up-end-rps", "last rate of the ramp, whole requests/s")
	fs.BoolVar(&o.DisableTqdm, "disable-tqdm", false, "no progress bar")
	fs.StringVar(&o.ServedName, "served-model-name", "", "the API `name` of the model, as vllm serve --served-model-name sets it: plan and pd print it in their vllm serve and vllm bench serve lines; a simulation runs --model (or the checkpoint --tokenizer names) whatever it is")
	DefineNoEffect(fs)
	// Old names seen in the wild.
	fs.StringVar(&o.endpointType, "endpoint-type", "", "old name of --backend (vLLM up to 0.10)")
	fs.Var(cliflag.Int{P: &o.commonPrefixLen}, "common-prefix-len", "old name of --random-prefix-len")

	// vllm serve
	fs.StringVar(&o.Server.GPU, "gpu", o.Server.GPU, "GPU: a catalog `name` (h100-sxm, a100-80gb, ...) or a path to a GPU spec file")
	fs.Var(cliflag.Int{P: &o.Server.TensorParallelSize, Min: 1}, "tensor-parallel-size", "tensor-parallel degree")
	fs.Var(cliflag.Int{P: &o.tpAlias, Min: 1}, "tp", "same as --tensor-parallel-size")
	fs.Var(cliflag.Int{P: &o.PipelineParallel, Min: 1}, "pipeline-parallel-size", "pipeline stages: the model's layers split over this many stages of --tensor-parallel-size GPUs, with vLLM's micro-batching (one replica)")
	fs.Var(cliflag.Int{P: &o.PipelineParallel, Min: 1}, "pp", "same as --pipeline-parallel-size")
	fs.Var(cliflag.Int{P: &o.Server.MaxNumSeqs, Min: 1}, "max-num-seqs", "cap on running requests (default: vllm serve's, 1024 on GPUs of >= 70 GiB other than A100, else 256)")
	fs.Var(cliflag.HumanInt{P: &o.Server.MaxNumBatchedTokens}, "max-num-batched-tokens", "token budget per engine step; 8k works (0: vllm serve's default, 8192 on GPUs of >= 70 GiB other than A100, else 2048; with chunked prefill off, max(--max-model-len, 2048))")
	fs.Var(cliflag.BoolTarget{P: &o.Server.EnableChunkedPrefill, Val: true}, "enable-chunked-prefill", "split long prompts across steps, mixed with decodes (default on)")
	fs.Var(cliflag.BoolTarget{P: &o.Server.EnableChunkedPrefill, Val: false}, "no-enable-chunked-prefill", "turn chunked prefill off (prefill-first scheduling)")
	fs.Var(cliflag.BoolTarget{P: &o.Server.EnablePrefixCaching, Val: true}, "enable-prefix-caching", "automatic prefix caching, as vLLM: full KV blocks kept by a hash of their prefix, hits skip prefill (default on)")
	fs.Var(cliflag.BoolTarget{P: &o.Server.EnablePrefixCaching, Val: false}, "no-enable-prefix-caching", "turn automatic prefix caching off")
	fs.Var(cliflag.BoolTarget{P: &o.Server.AsyncScheduling, Val: true}, "async-scheduling", "form each step while the one before it runs, as vLLM from v0.14 does by default: an arrival at a busy engine is scheduled a step later (default off, see docs/fidelity.md)")
	fs.Var(cliflag.BoolTarget{P: &o.Server.AsyncScheduling, Val: false}, "no-async-scheduling", "schedule each step after the one before it ends (the default)")
	fs.Var(cliflag.Int{P: &o.Server.BlockSize, Min: 1}, "block-size", "KV-cache block size, tokens")
	fs.Var(cliflag.Fraction{P: &o.Server.GPUMemoryUtilization}, "gpu-memory-utilization", "fraction of GPU memory the engine may use, in (0, 1]")
	fs.Var(bytesValue{(*float64)(&o.Server.KVCacheMemory)}, "kv-cache-memory", "KV-cache `bytes` per GPU (8GiB, 8G works); overrides --gpu-memory-utilization (0: derived from it)")
	fs.Var(bytesValue{&o.kvBytesAlias}, "kv-cache-memory-bytes", "same as --kv-cache-memory (vLLM's name; `bytes`)")
	fs.Var(cliflag.Int{P: &o.Server.NumGPUBlocksOverride}, "num-gpu-blocks-override", "KV-cache blocks per replica instead of those memory gives (0: from memory)")
	fs.Var(cliflag.HumanInt{P: &o.Server.MaxModelLen}, "max-model-len", "reject requests with more input+output tokens; 32k works (0: the model's context length, as vLLM)")
	fs.StringVar(&o.Server.DType, "dtype", o.Server.DType, "weight and activation `dtype`: auto (the model's), half, float16, bfloat16")
	fs.StringVar(&o.Server.KVCacheDType, "kv-cache-dtype", o.Server.KVCacheDType, "KV-cache `dtype`: auto (the model's), fp8 (fp8_e4m3, fp8_e5m2: half the bytes of bf16), nvfp4, bfloat16, float16")
	fs.StringVar(&o.Server.Quantization, "quantization", "", "weight `method`: fp8, awq, gptq, awq_marlin, gptq_marlin, bitsandbytes, compressed-tensors, mxfp4, modelopt_fp4, int8, ... (default: the checkpoint's)")
	fs.StringVar(&o.qAlias, "q", "", "same as --quantization")
	fs.Var(cliflag.Int{P: &o.Server.DataParallelSize, Min: 1}, "data-parallel-size", "data-parallel size D: for a mixture-of-experts model, D groups of --tensor-parallel-size GPUs that share the experts and step together, as vLLM runs them; for a dense model, D independent engines behind --router")
	fs.Var(cliflag.Int{P: &o.dpAlias, Min: 1}, "dp", "same as --data-parallel-size")
	fs.BoolVar(&o.Server.EnableExpertParallel, "enable-expert-parallel", false, "mixture-of-experts model: split the routed experts over the TP·DP GPUs (expert parallelism) instead of sharding each expert over them")
	cliflag.DefineKVOffload(fs, &o.Server.KVOffloadingSize, &o.Server.KVOffloadingBackend, &o.Server.PCIeBandwidth)
	fs.StringVar(&o.Server.Topology, "topology", "", "multi-node `layout` of the catalog (topology.Names, e.g. h100-ndr-xe9680; docs/disaggregation.md): --tensor-parallel-size above its GPUs per node spans nodes over its fitted inter-node all-reduce")
	fs.Var(cliflag.NonNegativeFloat{P: &o.CPUOffloadGB}, "cpu-offload-gb", "GiB of weights offloaded to the CPU per GPU (only 0: offloading is not modelled)")
	fs.Var(cliflag.Int{P: &o.MaxPartialPrefills, Min: 1}, "max-num-partial-prefills", "concurrent partial prefills (only 1 is modelled)")
	fs.StringVar(&o.SpeculativeConfig, "speculative-config", "", "speculative decoding `json`, as vLLM takes it (method, num_speculative_tokens, model, draft_tensor_parallel_size) plus the acceptance: acceptance_rates, acceptance_rate or acceptance_dataset (docs/speculative.md)")

	// servesim
	fs.StringVar(&o.Server.Kind, "server", o.Server.Kind, "simulated server: vllm (continuous-batching engine) or fcfs (FCFS queue)")
	fs.Var(cliflag.Int{P: &o.Servers, Min: 1}, "servers", "--server fcfs: number of servers c")
	fs.StringVar(&o.ServiceTime, "service-time", "", "--server fcfs: service-time `dist`ribution: "+scenario.DistSyntax+"; default: the cost model of --model on --gpu")
	fs.Var(cliflag.Int{P: &o.Server.Replicas, Min: 1}, "replicas", "independent copies of the deployment behind --router (separate vllm serve processes; with --data-parallel-size on a dense model, replicas × D engines)")
	fs.StringVar(&o.Server.Router, "router", o.Server.Router, "how replicas share requests: round-robin, least-outstanding, or prefix-aware (the longest cached prefix, against load)")
	fs.Var(cliflag.NonNegativeFloat{P: &o.Server.PrefixWeight, Zero: "the default, 1"}, "prefix-weight", "--router prefix-aware: weight of the blocks to prefill against the blocks a replica holds (0: the default, 1, as Dynamo's KV router)")
	fs.Var(cliflag.NonNegativeFloat{P: &o.Server.RequestOverheadMS}, "request-overhead-ms", "fixed per-request latency (tokenize, HTTP), ms, added to TTFT and E2E")
	fs.StringVar(&o.Server.Profile, "efficiency-profile", "", "efficiency profile `FILE` of the GPU (cost.Profile YAML, as servesim calibrate writes it), \"default\" for the GPU's built-in profile (what empty gives), or \"none\" for the cost model's three-number default efficiency. (vLLM's --profile starts its profiler and has no effect here)")
	fs.Float64Var(&o.SLO.Target, "slo-target", o.SLO.Target, "attainment target q for the --goodput SLO, in (0, 1]")
	normHelp := "rescale arrival times as vLLM does so the last lands at n/rate (bench: on; off: independent gaps)"
	fs.Var(cliflag.BoolTarget{P: &o.Normalize, Val: true}, "normalize-arrivals", normHelp)
	fs.Var(cliflag.BoolTarget{P: &o.Normalize, Val: false}, "no-normalize-arrivals", "independent arrival gaps, not rescaled to end at n/rate")
	fs.BoolVar(&o.TraceTimestamps, "trace-timestamps", false, "--dataset-name trace: replay the trace's arrival times instead of --request-rate")
	fs.Var(cliflag.PositiveFloat{P: &o.TraceSpeedup, Format: PyFloat}, "trace-speedup", "--trace-timestamps: replay this many times faster")
	fs.StringVar(&o.Report, "report", "", "also write a self-contained HTML report (charts, tables; as servesim report draws it) to `FILE`")
	fs.BoolVar(&o.SummaryOnly, "summary-only", false, o.summaryOnlyHelp())
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar or notes on stderr")

	groups := []cliflag.Group{
		{Title: "vllm bench serve flags", Names: []string{"model", "request-rate", "burstiness", "max-concurrency", "num-prompts", "num-warmups", "seed",
			"dataset-name", "dataset-path", "random-input-len", "random-output-len", "random-range-ratio", "random-prefix-len", "input-len", "output-len",
			"custom-output-len", "sharegpt-output-len", "spec-bench-output-len", "spec-bench-category", "no-oversample", "disable-shuffle",
			"prefix-repetition-prefix-len", "prefix-repetition-suffix-len", "prefix-repetition-num-prefixes", "prefix-repetition-output-len",
			"timed-trace-chunk-hash-size", "timed-trace-sec-multiplier", "self-timed", "no-self-timed",
			"hf-split", "hf-subset", "hf-name", "hf-output-len", "sonnet-input-len", "sonnet-output-len", "sonnet-prefix-len",
			"random-mm-base-items-per-request", "random-mm-num-mm-items-range-ratio", "random-mm-limit-mm-per-prompt", "random-mm-bucket-config",
			"tokenizer", "skip-tokenizer-init", "probe-request-rate", "goodput",
			"percentile-metrics", "metric-percentiles", "save-result", "save-detailed", "append-result", "metadata", "result-dir", "result-filename", "label", "backend", "served-model-name",
			"ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps", "disable-tqdm", "endpoint-type", "common-prefix-len"}},
		{Title: "vllm bench serve flags accepted with no effect in a simulation (a note on stderr names them)", Names: NoEffectNames()},
		{Title: "vllm serve (engine) flags", Names: []string{"gpu", "tensor-parallel-size", "tp", "pipeline-parallel-size", "pp", "max-num-seqs", "max-num-batched-tokens",
			"enable-chunked-prefill", "no-enable-chunked-prefill", "enable-prefix-caching", "no-enable-prefix-caching", "async-scheduling", "no-async-scheduling", "block-size", "gpu-memory-utilization", "kv-cache-memory",
			"kv-cache-memory-bytes", "num-gpu-blocks-override", "max-model-len", "dtype", "kv-cache-dtype", "quantization", "q", "data-parallel-size", "dp",
			"enable-expert-parallel", "cpu-offload-gb", "max-num-partial-prefills", "speculative-config", "kv-offloading-size", "kv-offloading-backend"}},
		{Title: "servesim flags", Names: []string{"server", "servers", "service-time", "replicas", "router", "prefix-weight", "request-overhead-ms",
			"slo-target", "normalize-arrivals", "no-normalize-arrivals", "trace-timestamps", "trace-speedup", "summary-only", "efficiency-profile", "report", "quiet", "pcie-bandwidth", "topology"}},
	}
	return groups
}

// Resolve completes o after fs, on which Define defined o's flags, is
// parsed: it records the flags given (Given), sends notes to stderr
// unless --quiet (Notes), and folds each second name of a setting (-tp,
// -dp, -q, -pp, --kv-cache-memory-bytes, --endpoint-type,
// --common-prefix-len) into the first. Both names given with different
// values is an error naming both. Old names get a note on stderr.
func (o *Flags) Resolve(fs *flag.FlagSet, stderr io.Writer) error {
	o.Given = cliflag.Given(fs)
	if !o.Quiet {
		o.Notes = stderr
	}
	for _, a := range [][2]string{{"tensor-parallel-size", "tp"}, {"kv-cache-memory", "kv-cache-memory-bytes"},
		{"data-parallel-size", "dp"}, {"backend", "endpoint-type"},
		{"random-prefix-len", "common-prefix-len"}, {"quantization", "q"}, {"pipeline-parallel-size", "pp"}} {
		if !o.Given[a[0]] || !o.Given[a[1]] {
			continue
		}
		if v0, v1 := fs.Lookup(a[0]).Value.String(), fs.Lookup(a[1]).Value.String(); v0 != v1 {
			return fmt.Errorf("%s %s and %s %s set the same thing to different values: give one", flagSpelling(a[0]), v0, flagSpelling(a[1]), v1)
		}
	}
	if o.Given["tp"] {
		o.Server.TensorParallelSize = o.tpAlias
	}
	if o.Given["kv-cache-memory-bytes"] {
		o.Server.KVCacheMemory = scenario.Bytes(o.kvBytesAlias)
	}
	if o.Given["dp"] {
		o.Server.DataParallelSize = o.dpAlias
	}
	if o.Given["q"] {
		o.Server.Quantization = o.qAlias
	}
	if o.Given["endpoint-type"] {
		o.Backend = o.endpointType
	}
	if o.Given["common-prefix-len"] {
		o.RandomPrefixLen = o.commonPrefixLen
	}
	var old []string
	for _, a := range [][2]string{{"endpoint-type", "backend"}, {"common-prefix-len", "random-prefix-len"}} {
		if o.Given[a[0]] {
			old = append(old, fmt.Sprintf("--%s is the old name of --%s", a[0], a[1]))
		}
	}
	if len(old) > 0 && !o.Quiet {
		fmt.Fprintf(stderr, "servesim: note: %s (current vLLM rejects the old name)\n", strings.Join(old, "; "))
	}
	return nil
}

// flagSpelling writes a flag as vLLM spells it: its short names (-tp, -dp,
// -pp, -q) with one dash, the others with two.
func flagSpelling(name string) string {
	if len(name) <= 2 {
		return "-" + name
	}
	return "--" + name
}

// SummaryOnlyHelp says what --summary-only does, in the same words for
// every command that takes it: what it keeps (as says how it is set),
// and (after the colon) what that does to memory.
func SummaryOnlyHelp(as string) string {
	return "keep quantile sketches (percentiles within 0.5%) instead of every request's record" + as +
		": memory follows the requests in flight, not the requests run, for runs of up to " + fmt.Sprint(scenario.MaxRequests) + " requests"
}

// summaryOnlyHelp is --summary-only's help for the command: capacity and
// tp report verdicts, which count requests and so do not change.
func (o *Flags) summaryOnlyHelp() string {
	switch o.cmd {
	case "capacity":
		return SummaryOnlyHelp("") + "; the verdicts count requests, so they do not change (--grid always runs so)"
	case "tp":
		return SummaryOnlyHelp("") + "; the verdicts count requests, so they do not change (--common-rate always runs so)"
	}
	return SummaryOnlyHelp("")
}

// FileScenario returns the scenario of servesim capacity and plan: the
// one file in files, or without one the scenario the flags build. A file
// brings the workload, server and SLO, so only the command's own flags
// (own), the seed (which overrides the file's), summary mode, --report
// and the progress switches may be given with it.
func (o *Flags) FileScenario(files []string, own cliflag.Group) (*scenario.Scenario, error) {
	switch len(files) {
	case 0:
		return o.Scenario()
	case 1:
		open := map[string]bool{"quiet": true, "disable-tqdm": true, "seed": true, "report": true, "summary-only": true}
		for _, name := range own.Names {
			open[name] = true
		}
		for name := range o.Given {
			if !open[name] {
				return nil, fmt.Errorf("--%s: with a scenario file, the workload, server and SLO come from the file", name)
			}
		}
		load := scenario.Load
		if o.SummaryOnly {
			load = scenario.LoadSummaryOnly
		}
		sc, err := load(files[0])
		if err != nil {
			return nil, err
		}
		if o.Given["seed"] {
			sc.Seed = o.Seed
		}
		return sc, nil
	default:
		return nil, fmt.Errorf("one scenario file at most, got %d arguments", len(files))
	}
}
