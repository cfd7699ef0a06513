package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/hfmodels"
	"github.com/servesim/servesim/workload"
)

// HFModelID returns the Hugging Face id of a catalog model's instruct
// checkpoint, as servesim's registry records it (hfmodels.ForCatalog:
// "llama-3.1-70b" → "meta-llama/Llama-3.1-70B-Instruct"), or name itself
// when it has none.
func HFModelID(name string) string {
	if id, ok := hfmodels.ForCatalog(name); ok {
		return id
	}
	return name
}

// ServeCommand returns the `vllm serve` command line of replicas engines
// like e. For a dense model with several, one process with
// --data-parallel-size replicas (vLLM balances requests over them; on more
// GPUs than one node holds, run one process per replica behind a router
// instead). For a mixture-of-experts model vLLM's --data-parallel-size
// makes one deployment whose groups share the experts and step together:
// it is the engine's own (Deployment.DP, with --enable-expert-parallel
// when its experts are split), and several replicas are separate
// processes: the command is one replica's, and a trailing comment says to
// run replicas of it behind a router. Flags at vLLM's defaults are left out, except the scheduler's
// and max-model-len.
func ServeCommand(model string, e Engine, replicas int) string {
	c := e.Config
	d := c.Deployment
	args := []string{"vllm", "serve", model, "--tensor-parallel-size", strconv.Itoa(d.TP)}
	separate := replicas > 1 && d.Model.Experts > 0
	switch {
	case d.DP > 1:
		args = append(args, "--data-parallel-size", strconv.Itoa(d.DP))
	case replicas > 1 && !separate:
		args = append(args, "--data-parallel-size", strconv.Itoa(replicas))
	}
	if d.EP > 1 {
		args = append(args, "--enable-expert-parallel")
	}

	args = append(args, "--max-num-seqs", strconv.Itoa(c.MaxNumSeqs),
		"--max-num-batched-tokens", strconv.Itoa(c.MaxNumBatchedTokens))
	if c.MaxModelLen > 0 {
		args = append(args, "--max-model-len", strconv.Itoa(c.MaxModelLen))
	}
	if !c.EnableChunkedPrefill {
		args = append(args, "--no-enable-chunked-prefill")
	}
	args = append(args, e.ServeArgs...)
	if c.Speculative != nil {
		args = append(args, "--speculative-config", "'"+c.Speculative.VLLMJSON()+"'")
	}
	if c.BlockSize != batching.DefaultBlockSize {
		args = append(args, "--block-size", strconv.Itoa(c.BlockSize))
	}
	switch {
	case d.KVCacheMemory > 0:
		args = append(args, "--kv-cache-memory-bytes", strconv.FormatFloat(d.KVCacheMemory, 'f', 0, 64))
	case d.GPUMemoryUtilization > 0 && d.GPUMemoryUtilization != batching.VLLMCurrent.GPUMemoryUtilization(): // vllm serve's own default goes unsaid
		args = append(args, "--gpu-memory-utilization", strconv.FormatFloat(d.GPUMemoryUtilization, 'g', -1, 64))
	}
	if c.KVOffload != nil {
		args = append(args, OffloadArgs(c.KVOffload)...)
	}
	if m, ok := d.Comm.(topology.MultiNode); ok && d.TP > m.GPUsPerNode {
		// vLLM runs TP across nodes on a Ray cluster, launched on its head
		// node with the total GPUs as --tensor-parallel-size
		// (docs.vllm.ai/en/latest/serving/parallelism_scaling.html).
		nodes := (d.TP + m.GPUsPerNode - 1) / m.GPUsPerNode
		args = append(args, "--distributed-executor-backend", "ray",
			fmt.Sprintf("# on the head node of a Ray cluster of %d nodes × %d GPUs (ray start --head; ray start --address=HEAD:6379 on the others)", nodes, m.GPUsPerNode))
	}
	if separate {
		args = append(args, "# one of "+strconv.Itoa(replicas)+" such processes behind a router")
	}
	return strings.Join(args, " ")
}

// OffloadArgs returns the `vllm serve` flags of KV offloading o:
// --kv-offloading-size GiB, and --kv-offloading-backend unless it is
// vLLM's default, native (the link's bandwidth and latency are
// servesim's, not vLLM's).
func OffloadArgs(o *batching.KVOffload) []string {
	args := []string{"--kv-offloading-size", strconv.FormatFloat(o.Size, 'g', -1, 64)}
	if o.Backend != "" && o.Backend != batching.OffloadBackendNative {
		args = append(args, "--kv-offloading-backend", o.Backend)
	}
	return args
}

// BenchCommand returns the `vllm bench serve` command line that checks a
// deployment against the objective on real hardware: numPrompts requests
// (numWarmups of them warm-up) of vLLM's random dataset at the target rate,
// with the SLO as --goodput. A workload.Random workload is reproduced
// exactly; any other length distribution by its rounded means, which a
// trace run (--dataset-name custom) reproduces better. --ignore-eos makes
// every response its full length, as servesim simulates it.
func BenchCommand(model string, obj Objective, numPrompts, numWarmups int) string {
	w := obj.Workload
	in, out := w.Lengths.Mean()
	args := []string{"vllm", "bench", "serve", "--model", model, "--dataset-name", "random"}
	if r, ok := w.Lengths.(workload.Random); ok {
		args = append(args, "--random-input-len", strconv.Itoa(r.InputLen), "--random-output-len", strconv.Itoa(r.OutputLen))
		if r.RangeRatio > 0 {
			args = append(args, "--random-range-ratio", strconv.FormatFloat(r.RangeRatio, 'g', -1, 64))
		}
	} else {
		args = append(args, "--random-input-len", strconv.Itoa(int(math.Round(in))), "--random-output-len", strconv.Itoa(int(math.Round(out))))
	}
	args = append(args, "--ignore-eos", "--request-rate", strconv.FormatFloat(obj.Rate, 'g', -1, 64))
	if g, ok := w.Arrivals.(workload.GammaGaps); ok && g.GammaShape() != 1 && g.GammaShape() > 0 {
		args = append(args, "--burstiness", strconv.FormatFloat(g.GammaShape(), 'g', -1, 64))
	}
	if w.MaxConcurrency > 0 {
		args = append(args, "--max-concurrency", strconv.Itoa(w.MaxConcurrency))
	}
	args = append(args, "--num-prompts", strconv.Itoa(numPrompts))
	if numWarmups > 0 {
		args = append(args, "--num-warmups", strconv.Itoa(numWarmups))
	}
	slo := obj.Criteria.SLO
	var goodput []string
	for _, b := range []struct {
		name string
		v    float64
	}{{"ttft", slo.TTFT}, {"tpot", slo.TPOT}, {"e2el", slo.E2E}} {
		if b.v > 0 {
			goodput = append(goodput, fmt.Sprintf("%s:%s", b.name, strconv.FormatFloat(1000*b.v, 'g', -1, 64)))
		}
	}
	if len(goodput) > 0 {
		args = append(args, "--goodput")
		args = append(args, goodput...)
	}
	args = append(args, "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99")
	return strings.Join(args, " ")
}
