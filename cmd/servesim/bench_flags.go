package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/scenario"
)

// Defaults of `servesim bench` that differ from `vllm bench serve` or that
// vLLM does not have.
const (
	// benchRate is the default --request-rate: Poisson arrivals at 20
	// req/s keep llama-3.1-8b on one h100-sxm (1024 in, 128 out) at about
	// 60% of its capacity, a steady state worth looking at. vLLM's default
	// is inf (every request at time 0); pass --request-rate inf for it.
	benchRate = 20.0
)

// benchOptions are the parsed flags of `servesim bench`. Rates are
// requests per second, SLO bounds milliseconds.
type benchOptions struct {
	// vllm bench serve
	model, label                           string
	requestRate, burstiness                float64
	maxConcurrency, numPrompts, numWarmups int
	seed                                   uint64
	datasetName, datasetPath               string
	randomInputLen, randomOutputLen        int
	randomRangeRatio                       float64
	slo                                    scenario.SLO
	percentileMetrics, metricPercentiles   string
	saveResult, saveDetailed               bool
	resultDir, resultFilename              string
	rampStrategy                           string
	rampStart, rampEnd                     float64
	quiet                                  bool

	// vllm serve and servesim
	server                     scenario.Server
	servers                    int
	serviceTime                string
	normalize, traceTimestamps bool
	traceSpeedup               float64
	summaryOnly                bool

	// second names of one setting (-tp, --replicas, --kv-cache-memory-bytes,
	// --disable-tqdm), merged by mergeAliases
	tpAlias, replicasAlias int
	kvBytesAlias           float64
	disableTqdm            bool

	// derived
	percentiles  []float64       // from metricPercentiles
	metrics      []string        // from percentileMetrics
	set          map[string]bool // flags given on the command line
	goodputGiven bool            // an SLO bound is set
}

// benchFlags defines the flags of `servesim bench` on a new flag set
// named for the subcommand (capacity and tp take them too).
func benchFlags(name string, o *benchOptions) (*flag.FlagSet, []flagGroup) {
	fs := newFlagSet(name)
	d := scenario.Default()
	o.server = d.Server
	o.slo = scenario.SLO{Target: scenario.DefaultTarget}
	o.requestRate, o.burstiness = benchRate, 1
	o.numPrompts, o.randomInputLen, o.randomOutputLen, o.traceSpeedup = 1000, 1024, 128, 1
	o.servers, o.server.Replicas, o.replicasAlias, o.tpAlias = 1, 1, 1, d.Server.TensorParallelSize

	fs.StringVar(&o.model, "model", scenario.DefaultModel, "model: a catalog `name` (llama-3.1-8b, qwen2.5-7b, ...) or a path to a model spec file (.json, .yaml)")
	fs.Var(rateValue{&o.requestRate}, "request-rate", "open-loop arrival `rate`, requests/s, or inf (all at time 0; vLLM's default)")
	fs.Var(positiveFloat{&o.burstiness, true}, "burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, < 1 burstier, > 1 more regular, inf constant")
	fs.Var(intValue{p: &o.maxConcurrency}, "max-concurrency", "cap on requests in flight; excess requests wait in the client (0: none)")
	fs.Var(intValue{p: &o.numPrompts, min: 1, max: scenario.MaxRequests, why: "the most requests a run may have"}, "num-prompts", fmt.Sprintf("measured requests; with --num-warmups at most %d (%d with --summary-only)", scenario.MaxRecordedRequests, scenario.MaxRequests))
	fs.Var(intValue{p: &o.numWarmups}, "num-warmups", "warm-up requests sent first and left out of every statistic")
	fs.Var(seedValue{&o.seed}, "seed", "random seed, a whole number >= 0: the same seed gives the same result")
	fs.StringVar(&o.datasetName, "dataset-name", "random", "dataset `name`: random (vLLM's random lengths) or trace (lengths from --dataset-path)")
	fs.StringVar(&o.datasetPath, "dataset-path", "", "trace `file` (CSV or JSONL with input and output lengths) for --dataset-name trace")
	fs.Var(intValue{p: &o.randomInputLen, min: 1}, "random-input-len", "input tokens per request (random dataset)")
	fs.Var(intValue{p: &o.randomOutputLen, min: 1}, "random-output-len", "output tokens per request (random dataset)")
	fs.Float64Var(&o.randomRangeRatio, "random-range-ratio", 0, "lengths drawn uniformly from [n(1-r), n(1+r)] (random dataset)")
	fs.Var(goodputValue{&o.slo}, "goodput", "SLO for goodput as `KEY:MS` pairs: --goodput ttft:800 tpot:50 (keys ttft, tpot, e2el)")
	fs.StringVar(&o.percentileMetrics, "percentile-metrics", "ttft,tpot,itl", "comma-separated `metrics` the summary shows: ttft, tpot, itl, e2el")
	fs.StringVar(&o.metricPercentiles, "metric-percentiles", "99", "comma-separated `percentiles` to report, e.g. 50,90,99")
	fs.BoolVar(&o.saveResult, "save-result", false, "write the result JSON to a file")
	fs.BoolVar(&o.saveDetailed, "save-detailed", false, "add per-request arrays (input_lens, output_lens, ttfts, ...) to the result JSON")
	fs.StringVar(&o.resultDir, "result-dir", "", "`directory` for the result JSON (default: the current one)")
	fs.StringVar(&o.resultFilename, "result-filename", "", "result JSON `file` name (default {label}-{rate}qps[-concurrency{n}]-{model}-{date}.json)")
	fs.StringVar(&o.label, "label", "", "label (file-name prefix) of the result; default servesim")
	fs.StringVar(&o.rampStrategy, "ramp-up-strategy", "", "ramp the rate from --ramp-up-start-rps to --ramp-up-end-rps: linear or exponential")
	fs.Float64Var(&o.rampStart, "ramp-up-start-rps", 0, "first rate of the ramp, requests/s")
	fs.Float64Var(&o.rampEnd, "ramp-up-end-rps", 0, "last rate of the ramp, requests/s")
	fs.BoolVar(&o.disableTqdm, "disable-tqdm", false, "no progress bar (same as --quiet)")
	for _, name := range []string{"backend", "base-url", "host", "port", "endpoint", "tokenizer", "tokenizer-mode", "served-model-name", "request-id-prefix", "ready-check-timeout-sec", "temperature", "top-p", "top-k", "min-p"} {
		fs.Var(ignored{}, name, "accepted for compatibility; no effect in a simulation")
	}
	for _, name := range []string{"ignore-eos", "trust-remote-code"} {
		fs.Var(ignored{isBool: true}, name, "accepted for compatibility; no effect (requests always run to their output length)")
	}

	// vllm serve
	fs.StringVar(&o.server.GPU, "gpu", scenario.DefaultGPU, "GPU: a catalog `name` (h100-sxm, a100-80gb, ...) or a path to a GPU spec file")
	fs.Var(intValue{p: &o.server.TensorParallelSize, min: 1}, "tensor-parallel-size", "tensor-parallel degree")
	fs.Var(intValue{p: &o.tpAlias, min: 1}, "tp", "same as --tensor-parallel-size")
	fs.Var(intValue{p: &o.server.MaxNumSeqs, min: 1}, "max-num-seqs", "cap on running requests")
	fs.Var(intValue{p: &o.server.MaxNumBatchedTokens}, "max-num-batched-tokens", "token budget per engine step (0: vLLM's default: 2048, or max(--max-model-len, 2048) with chunked prefill off)")
	fs.Var(boolTarget{&o.server.EnableChunkedPrefill, true}, "enable-chunked-prefill", "split long prompts across steps, mixed with decodes (default on)")
	fs.Var(boolTarget{&o.server.EnableChunkedPrefill, false}, "no-enable-chunked-prefill", "turn chunked prefill off (prefill-first scheduling)")
	fs.Var(intValue{p: &o.server.BlockSize, min: 1}, "block-size", "KV-cache block size, tokens")
	fs.Float64Var(&o.server.GPUMemoryUtilization, "gpu-memory-utilization", d.Server.GPUMemoryUtilization, "fraction of GPU memory the engine may use")
	fs.Var(bytesValue{(*float64)(&o.server.KVCacheMemory)}, "kv-cache-memory", "KV-cache `bytes` per GPU (8GiB works); overrides --gpu-memory-utilization (0: derived from it)")
	fs.Var(bytesValue{&o.kvBytesAlias}, "kv-cache-memory-bytes", "same as --kv-cache-memory (vLLM's name; `bytes`)")
	fs.Var(intValue{p: &o.server.MaxModelLen}, "max-model-len", "reject requests with more input+output tokens (0: the model's context length, as vLLM; no limit when its spec gives none)")
	fs.Var(intValue{p: &o.server.Replicas, min: 1}, "data-parallel-size", "engine replicas behind the router (same as --replicas)")

	// servesim
	fs.StringVar(&o.server.Kind, "server", scenario.KindVLLM, "simulated server: vllm (continuous-batching engine) or fcfs (FCFS queue)")
	fs.Var(intValue{p: &o.servers, min: 1}, "servers", "--server fcfs: number of servers c")
	fs.StringVar(&o.serviceTime, "service-time", "", "--server fcfs: service-time `dist`ribution: "+scenario.DistSyntax+"; default: the cost model of --model on --gpu")
	fs.Var(intValue{p: &o.replicasAlias, min: 1}, "replicas", "engine replicas behind the router (same as --data-parallel-size)")
	fs.StringVar(&o.server.Router, "router", d.Server.Router, "how replicas share requests: round-robin or least-outstanding")
	fs.Var(nonNegativeFloat{p: &o.server.RequestOverheadMS}, "request-overhead-ms", "fixed per-request latency (tokenize, HTTP), ms, added to TTFT and E2E")
	fs.Float64Var(&o.slo.Target, "slo-target", scenario.DefaultTarget, "attainment target q for the --goodput SLO, in (0, 1]")
	fs.BoolVar(&o.normalize, "normalize-arrivals", false, "rescale arrival times as vLLM does so the last lands at n/rate (off: independent gaps)")
	fs.BoolVar(&o.traceTimestamps, "trace-timestamps", false, "--dataset-name trace: replay the trace's arrival times instead of --request-rate")
	fs.Var(positiveFloat{p: &o.traceSpeedup}, "trace-speedup", "--trace-timestamps: replay this many times faster")
	fs.BoolVar(&o.summaryOnly, "summary-only", false, "keep quantile sketches (percentiles within 0.5%) instead of every request's record: memory follows the requests in flight, for runs of up to "+fmt.Sprint(scenario.MaxRequests)+" requests")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar or notes on stderr")

	groups := []flagGroup{
		{"vllm bench serve flags", []string{"model", "request-rate", "burstiness", "max-concurrency", "num-prompts", "num-warmups", "seed",
			"dataset-name", "dataset-path", "random-input-len", "random-output-len", "random-range-ratio", "goodput",
			"percentile-metrics", "metric-percentiles", "save-result", "save-detailed", "result-dir", "result-filename", "label",
			"ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps", "disable-tqdm"}},
		{"vllm serve (engine) flags", []string{"gpu", "tensor-parallel-size", "tp", "max-num-seqs", "max-num-batched-tokens",
			"enable-chunked-prefill", "no-enable-chunked-prefill", "block-size", "gpu-memory-utilization", "kv-cache-memory",
			"kv-cache-memory-bytes", "max-model-len", "data-parallel-size"}},
		{"servesim flags", []string{"server", "servers", "service-time", "replicas", "router", "request-overhead-ms",
			"slo-target", "normalize-arrivals", "trace-timestamps", "trace-speedup", "summary-only", "quiet"}},
	}
	return fs, groups
}

const benchUsage = `Usage: servesim bench [flags]

Simulates 'vllm bench serve' against a simulated 'vllm serve': the same flags,
the same summary on stdout and, with --save-result, the same result JSON
(plus servesim's own fields). With no flags it runs 1000 requests of
1024 input and 128 output tokens, Poisson arrivals at 20 req/s, against
llama-3.1-8b on one h100-sxm with vLLM's engine defaults.

Accepted and ignored (no meaning in a simulation): --backend, --base-url,
--host, --port, --endpoint, --tokenizer, --tokenizer-mode, --served-model-name,
--request-id-prefix, --ready-check-timeout-sec, --temperature, --top-p, --top-k,
--min-p, --ignore-eos, --trust-remote-code.
`

// engineOnlyFlags configure the vLLM engine and mean nothing to an FCFS
// queue.
var engineOnlyFlags = []string{"max-num-seqs", "max-num-batched-tokens", "enable-chunked-prefill", "no-enable-chunked-prefill",
	"block-size", "gpu-memory-utilization", "kv-cache-memory", "kv-cache-memory-bytes", "max-model-len", "data-parallel-size",
	"replicas", "router"}

// flagOfPath names the bench flag behind each scenario field.
var flagOfPath = map[string]string{
	"workload.arrival.rate":         "--request-rate",
	"workload.arrival.burstiness":   "--burstiness",
	"workload.arrival.start":        "--ramp-up-start-rps",
	"workload.arrival.end":          "--ramp-up-end-rps",
	"workload.arrival.strategy":     "--ramp-up-strategy",
	"workload.arrival.path":         "--dataset-path",
	"workload.arrival.speedup":      "--trace-speedup",
	"workload.max_concurrency":      "--max-concurrency",
	"workload.lengths.input":        "--random-input-len",
	"workload.lengths.output":       "--random-output-len",
	"workload.lengths.range_ratio":  "--random-range-ratio",
	"workload.lengths.path":         "--dataset-path",
	"requests":                      "--num-prompts",
	"warmup":                        "--num-warmups",
	"percentiles":                   "--metric-percentiles",
	"server.model":                  "--model",
	"server.gpu":                    "--gpu",
	"server.kind":                   "--server",
	"server.tensor_parallel_size":   "--tensor-parallel-size",
	"server.max_num_seqs":           "--max-num-seqs",
	"server.max_num_batched_tokens": "--max-num-batched-tokens",
	"server.block_size":             "--block-size",
	"server.gpu_memory_utilization": "--gpu-memory-utilization",
	"server.kv_cache_memory":        "--kv-cache-memory",
	"server.max_model_len":          "--max-model-len",
	"server.request_overhead_ms":    "--request-overhead-ms",
	"server.replicas":               "--data-parallel-size",
	"server.router":                 "--router",
	"server.servers":                "--servers",
	"server.service":                "--service-time",
	"slo.target":                    "--slo-target",
	"slo.ttft_ms":                   "--goodput",
	"slo.tpot_ms":                   "--goodput",
	"slo.e2el_ms":                   "--goodput",
}

// flagOfField names the engine flag behind each field name that engine
// messages quote ("max_num_batched_tokens 100 must be >= max_num_seqs 256").
var flagOfField = strings.NewReplacer(
	"max_num_batched_tokens", "--max-num-batched-tokens",
	"max_num_seqs", "--max-num-seqs",
	"max_model_len", "--max-model-len",
	"block_size", "--block-size",
	"gpu_memory_utilization", "--gpu-memory-utilization",
	"kv_cache_memory", "--kv-cache-memory",
	"tensor_parallel_size", "--tensor-parallel-size",
)

// benchFieldError names the flag behind a scenario field error, and the
// flags behind the engine fields its message quotes.
func benchFieldError(err error) string {
	var fe *scenario.FieldError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	msg := fe.Err.Error()
	if strings.HasPrefix(fe.Path, "server") || strings.HasPrefix(fe.Path, "workload.lengths") {
		msg = flagOfField.Replace(msg)
	}
	if f, ok := flagOfPath[fe.Path]; ok {
		if strings.HasPrefix(msg, f+" ") {
			return msg
		}
		return f + ": " + msg
	}
	if fe.Path != "" {
		return fe.Path + ": " + msg
	}
	return msg
}
