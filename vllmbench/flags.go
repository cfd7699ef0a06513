package vllmbench

import (
	"fmt"
	"strings"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/workload"
)

// engineOnlyFlags configure the vLLM engine and mean nothing to an FCFS
// queue.
var engineOnlyFlags = []string{"max-num-seqs", "max-num-batched-tokens", "enable-chunked-prefill", "no-enable-chunked-prefill",
	"enable-prefix-caching", "no-enable-prefix-caching", "async-scheduling", "no-async-scheduling", "prefix-weight",
	"block-size", "gpu-memory-utilization", "kv-cache-memory", "kv-cache-memory-bytes", "max-model-len", "data-parallel-size", "dp",
	"enable-expert-parallel", "replicas", "router", "num-gpu-blocks-override", "kv-cache-dtype",
	"kv-offloading-size", "kv-offloading-backend", "pcie-bandwidth", "topology"}

// FlagOfPath names the flag behind each scenario field (a field
// error of a scenario built by Options.Scenario names the flag).
var FlagOfPath = map[string]string{
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
	"workload.lengths.prefix":       "--random-prefix-len",
	"workload.lengths.path":         "--dataset-path",
	"requests":                      "--num-prompts",
	"warmup":                        "--num-warmups",
	"percentiles":                   "--metric-percentiles",
	"server.model":                  "--model",
	"server.gpu":                    "--gpu",
	"server.kind":                   "--server",
	"server.tensor_parallel_size":   "--tensor-parallel-size",
	"server.pipeline_parallel_size": "--pipeline-parallel-size",
	"server.max_num_seqs":           "--max-num-seqs",
	"server.max_num_batched_tokens": "--max-num-batched-tokens",
	"server.block_size":             "--block-size",
	"server.gpu_memory_utilization": "--gpu-memory-utilization",
	"server.kv_cache_memory":        "--kv-cache-memory",
	"server.max_model_len":          "--max-model-len",
	"server.dtype":                  "--dtype",
	"server.kv_cache_dtype":         "--kv-cache-dtype",
	"server.quantization":           "--quantization",
	"server.request_overhead_ms":    "--request-overhead-ms",
	"server.profile":                "--efficiency-profile",
	"server.replicas":               "--replicas",
	"server.data_parallel_size":     "--data-parallel-size",
	"server.enable_expert_parallel": "--enable-expert-parallel",
	"server.router":                 "--router",
	"server.topology":               "--topology",
	"server.prefix_weight":          "--prefix-weight",
	"server.kv_offloading_size":     "--kv-offloading-size",
	"server.kv_offloading_backend":  "--kv-offloading-backend",
	"server.pcie_bandwidth":         "--pcie-bandwidth",
	"server.servers":                "--servers",
	"server.service":                "--service-time",
	"slo.target":                    "--slo-target",
	"slo.ttft_ms":                   "--goodput",
	"slo.tpot_ms":                   "--goodput",
	"slo.e2el_ms":                   "--goodput",
}

// FailureReason says why sc's server rejects requests: the limits it
// rejects them by, in flag names (flags: FlagOfPath) or in the
// scenario's field names, and how long the lengths get.
func FailureReason(sc *scenario.Scenario, flags bool) string {
	name, lengths := func(path string) string { return path }, "the workload's"
	if flags {
		name, lengths = func(path string) string { return FlagOfPath[path] }, "the dataset's"
	}
	why := "the server rejected them"
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS {
		var limits []string
		if eng.MaxModelLen > 0 {
			limits = append(limits, fmt.Sprintf("input+output above %s %d", name("server.max_model_len"), eng.MaxModelLen))
		}
		if pool, err := eng.Pool(); err == nil {
			limits = append(limits, fmt.Sprintf("a KV footprint (input+output-1) above the pool's %d tokens", pool.Tokens))
		}
		if !eng.EnableChunkedPrefill {
			limits = append(limits, fmt.Sprintf("input+output-1 above %s %d (chunked prefill off)", name("server.max_num_batched_tokens"), eng.MaxNumBatchedTokens))
		}
		why = "the engine rejects requests with " + strings.Join(limits, ", or ")
		if w, err := sc.BuildWorkload(); err == nil {
			if b, ok := w.Lengths.(workload.Bounded); ok {
				_, inHi, _, outHi := b.Bounds()
				why += fmt.Sprintf("; %s lengths reach input %d + output %d = %d tokens", lengths, inHi, outHi, inHi+outHi)
			}
		}
	}
	return why
}

// FlagFieldError writes a field error of a scenario that Options.Scenario
// built in the words of the command line: the field becomes the flag that
// sets it (FlagOfPath, a table of the typed field, never a rewrite of the
// message), and no file or line is named (the scenario comes from flags);
// a field no flag sets keeps its path. Errors that name no field read as
// they are.
func FlagFieldError(err error) string {
	fe := fielderr.Of(err)
	if fe == nil {
		return err.Error()
	}
	cp := *fe
	cp.File, cp.Line = "", 0
	if f, ok := FlagOfPath[fe.Field]; ok {
		cp.Field = f
	}
	return cp.Error()
}
