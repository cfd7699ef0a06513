package explore

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/plan"
)

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// commonArgs are the flags every bench-style command takes for the
// request: model, server, lengths, seed and SLO. Flags at the CLI's
// defaults are written anyway, so a line reads alone.
func (r Request) commonArgs() []string {
	a := []string{"--model", r.Model, "--gpu", r.GPU, "--tensor-parallel-size", strconv.Itoa(r.TP)}
	if r.Replicas > 1 {
		a = append(a, "--replicas", strconv.Itoa(r.Replicas))
	}
	return append(a, r.engineArgs()...)
}

// engineArgs are commonArgs without the deployment (model, GPU, TP and
// replicas), for the commands that choose it.
func (r Request) engineArgs() []string {
	var a []string
	if r.MaxNumSeqs > 0 {
		a = append(a, "--max-num-seqs", strconv.Itoa(r.MaxNumSeqs))
	}
	if r.MaxNumBatchedTokens > 0 {
		a = append(a, "--max-num-batched-tokens", strconv.Itoa(r.MaxNumBatchedTokens))
	}
	if r.NoChunkedPrefill {
		a = append(a, "--no-enable-chunked-prefill")
	}
	if r.NoPrefixCaching {
		a = append(a, "--no-enable-prefix-caching")
	}
	if r.Dataset != RandomDataset {
		a = append(a, "--dataset-name", "hf", "--dataset-path", r.Dataset)
	} else {
		a = append(a, "--dataset-name", "random", "--random-input-len", strconv.Itoa(r.InputLen), "--random-output-len", strconv.Itoa(r.OutputLen))
		if r.RangeRatio > 0 {
			a = append(a, "--random-range-ratio", num(r.RangeRatio))
		}
	}
	a = append(a, "--num-prompts", strconv.Itoa(r.Prompts), "--seed", strconv.FormatUint(r.Seed, 10))
	return append(a, r.sloArgs()...)
}

func (r Request) sloArgs() []string {
	a := []string{"--goodput"}
	for _, b := range []struct {
		k string
		v float64
	}{{"ttft", r.TTFT}, {"tpot", r.TPOT}, {"e2el", r.E2EL}} {
		if b.v > 0 {
			a = append(a, b.k+":"+num(b.v))
		}
	}
	return append(a, "--slo-target", num(r.Target))
}

func (r Request) arrivalArgs(rate float64) []string {
	a := []string{"--request-rate", num(rate)}
	if r.Burstiness != 1 {
		a = append(a, "--burstiness", num(r.Burstiness))
	}
	return a
}

func (r Request) searchArgs() []string {
	return []string{"--num-warmups", strconv.Itoa(r.Warmups), "--replications", strconv.Itoa(r.Replications),
		"--boundary-replications", strconv.Itoa(r.BoundaryReplications), "--precision", num(r.Precision)}
}

func line(args ...[]string) string {
	var all []string
	for _, a := range args {
		all = append(all, a...)
	}
	return strings.Join(all, " ")
}

// BenchCommand is the `servesim bench` line of Bench(r, rate, clients).
func BenchCommand(r Request, rate float64, clients int) string {
	arr := r.arrivalArgs(rate)
	if clients > 0 {
		arr = []string{"--request-rate", "inf", "--max-concurrency", strconv.Itoa(clients)}
	}
	return line([]string{"servesim", "bench"}, r.commonArgs(), arr,
		[]string{"--percentile-metrics", "ttft,tpot,e2el", "--metric-percentiles", "50,90,99"})
}

// CapacityCommand is the `servesim capacity` line of Search(r); its JSON
// is Search's, field for field.
func CapacityCommand(r Request) string {
	return line([]string{"servesim", "capacity"}, r.commonArgs(), r.arrivalArgs(r.Rate), r.searchArgs(), []string{"--json"})
}

// TPCommand is the `servesim tp` line of TPvsReplicas(r).
func TPCommand(r Request) string {
	return line([]string{"servesim", "tp", "--model", r.Model, "--gpu", r.GPU}, r.engineArgs(), r.arrivalArgs(r.Rate), r.searchArgs(),
		[]string{"--candidates", versusCandidates(r)})
}

// PlanCommand is the `servesim plan` line of Plan(r); with --format json
// its JSON is Plan's.
func PlanCommand(r Request) string {
	tps := make([]string, len(planTP))
	for i, t := range planTP {
		tps[i] = strconv.Itoa(t)
	}
	return line([]string{"servesim", "plan", "--model", r.Model}, r.engineArgs(), r.arrivalArgs(r.PlanRate), []string{
		"--num-warmups", strconv.Itoa(r.Warmups), "--replications", strconv.Itoa(r.Replications),
		"--boundary-replications", strconv.Itoa(r.BoundaryReplications),
		"--gpus", strings.Join(r.PlanGPUs, ","), "--tp-degrees", strings.Join(tps, ","), "--precisions", "bf16",
		"--max-replicas", strconv.Itoa(planMaxReplicas), "--round", strconv.Itoa(planRound), "--format", "json"})
}

// VLLMCommands are the `vllm serve` and `vllm bench serve` lines that
// measure the request's server on real GPUs (plan.ServeCommand and
// plan.BenchCommand's conventions: the Hugging Face id, --ignore-eos).
func VLLMCommands(r Request) (serve, bench string, err error) {
	if err := r.Validate(); err != nil {
		return "", "", err
	}
	sc := r.scenario(true, r.Rate, 0)
	eng, err := sc.EngineTemplate()
	if err != nil {
		return "", "", err
	}
	w, err := sc.BuildWorkload()
	if err != nil {
		return "", "", err
	}
	id := plan.HFModelID(r.Model)
	rate := r.Rate
	if r.Loop == Closed {
		w.MaxConcurrency = r.Clients
		rate = math.Inf(1)
	}
	obj := plan.Objective{Workload: w, Rate: rate, Criteria: r.criteria()}
	serve = plan.ServeCommand(id, plan.Engine{Config: eng}, r.Replicas)
	// vLLM reads inf (Python's float("inf")); Go writes +Inf.
	bench = strings.Replace(plan.BenchCommand(id, obj, r.Prompts, 0), "--request-rate +Inf", "--request-rate inf", 1)
	if in, out, err := datasetLengths(r.Dataset); err == nil {
		// plan.BenchCommand writes fixed lengths as the random dataset's.
		bench = strings.Replace(bench, fmt.Sprintf("--dataset-name random --random-input-len %d --random-output-len %d", in, out), "--dataset-name hf --dataset-path "+r.Dataset, 1)
	}
	return serve, bench, nil
}
