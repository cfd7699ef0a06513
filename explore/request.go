package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/dataset"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/hfmodels"
	"github.com/servesim/servesim/scenario"
)

// Loop modes of a Request.
const (
	// Open is an open loop: Poisson (or Gamma) arrivals at Rate.
	Open = "open"
	// Closed is vLLM's fixed-concurrency benchmark: every request queued
	// at time 0 and Clients in flight at once.
	Closed = "closed"
)

// Limits keep one request of the page bounded: every run the page asks
// for simulates at most MaxPrompts requests, and a search at most
// MaxReplications runs a probe.
const (
	MaxPrompts      = 20_000
	MaxReplications = 20
	MaxClients      = 4096
	MaxTP           = 8
	MaxReplicas     = 64
	// MaxSeed is the largest whole number a JavaScript number holds
	// exactly.
	MaxSeed = 1 << 53
)

// Request is the page's whole state: the deployment, the workload and the
// SLO. Its JSON names are the page's URL parameters. Rates are requests
// per second, latencies milliseconds, lengths tokens.
type Request struct {
	Model string `json:"model"`
	GPU   string `json:"gpu"`
	// TP is the tensor-parallel degree, Replicas the engines behind the
	// round-robin router.
	TP       int `json:"tp"`
	Replicas int `json:"replicas"`
	// MaxNumSeqs and MaxNumBatchedTokens are the engine's caps; 0 takes
	// vllm serve's default for the GPU (batching.ServeDefaults).
	MaxNumSeqs          int  `json:"max_num_seqs"`
	MaxNumBatchedTokens int  `json:"max_num_batched_tokens"`
	NoChunkedPrefill    bool `json:"no_chunked_prefill"`
	NoPrefixCaching     bool `json:"no_prefix_caching"`

	// Loop is Open or Closed. Rate is the open loop's rate (the first rate
	// the search probes), Clients the closed loop's concurrency.
	Loop       string  `json:"loop"`
	Rate       float64 `json:"rate"`
	Clients    int     `json:"clients"`
	Burstiness float64 `json:"burstiness"`
	// Dataset is RandomDataset (vLLM's random dataset: InputLen,
	// OutputLen, RangeRatio) or a Hugging Face dataset whose lengths ship
	// with servesim (Datasets: --dataset-name hf --dataset-path ID; every
	// request gets its published mean lengths).
	Dataset string `json:"dataset"`
	// InputLen, OutputLen and RangeRatio are vLLM's random dataset.
	InputLen   int     `json:"input_len"`
	OutputLen  int     `json:"output_len"`
	RangeRatio float64 `json:"range_ratio"`
	// Prompts is the requests of one run (--num-prompts), Warmups those
	// left out of every statistic.
	Prompts int    `json:"prompts"`
	Warmups int    `json:"warmups"`
	Seed    uint64 `json:"seed"`

	// TTFT, TPOT and E2EL bound each request (ms; 0: no bound); Target is
	// the attainment the SLO asks for, in (0, 1].
	TTFT   float64 `json:"ttft_ms"`
	TPOT   float64 `json:"tpot_ms"`
	E2EL   float64 `json:"e2el_ms"`
	Target float64 `json:"target"`

	// Replications, BoundaryReplications and Precision are the lambda*
	// search's (servesim capacity's flags of the same names).
	Replications         int     `json:"replications"`
	BoundaryReplications int     `json:"boundary_replications"`
	Precision            float64 `json:"precision"`

	// PlanRate is the target rate of the plan view, PlanGPUs the GPU
	// types it searches.
	PlanRate float64  `json:"plan_rate"`
	PlanGPUs []string `json:"plan_gpus"`
}

// Default returns the page's first state: llama-3.1-8b on one H100, 1024
// in and 128 out, an SLO of TTFT 2 s and TPOT 100 ms for 99% of
// requests, and a search small enough to answer within a second.
func Default() Request {
	return Request{
		Model: scenario.DefaultModel, GPU: scenario.DefaultGPU, TP: 1, Replicas: 1,
		Loop: Open, Rate: 20, Clients: 64, Burstiness: 1,
		Dataset: RandomDataset, InputLen: 1024, OutputLen: 128, Prompts: 300, Warmups: 30, Seed: 1,
		TTFT: 2000, TPOT: 100, Target: scenario.DefaultTarget,
		Replications: 1, BoundaryReplications: 2, Precision: 0.1,
		PlanRate: 20, PlanGPUs: []string{"h100-sxm", "l40s"},
	}
}

// Parse reads a JSON request over the defaults: fields it leaves out keep
// Default's values; unknown fields are an error.
func Parse(data []byte) (Request, error) {
	r := Default()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("explore: the request is not valid JSON for a Request: %w", err)
	}
	return r, r.Validate()
}

// fieldErr is the page's field error: the project's one field-error type
// (package fielderr), named by the Request's JSON field.
func fieldErr(field string, v any, why string) error {
	return fielderr.New(field, v, "%s", why)
}

// Validate checks every field against its range and names the first one
// out of it.
func (r Request) Validate() error {
	if _, err := cost.Model(r.Model); err != nil {
		e, herr := hfmodels.Lookup(r.Model)
		if herr == nil {
			_, herr = e.Model()
		}
		switch {
		case herr != nil:
			return fieldErr("model", fmt.Sprintf("%q", r.Model), "is neither a catalog model nor a registry id (servesim models lists them): "+herr.Error())
		case e.ID != r.Model:
			return fieldErr("model", fmt.Sprintf("%q", r.Model), "is not spelled as the registry spells it: use "+e.ID)
		}
	}
	if _, err := cost.GPU(r.GPU); err != nil {
		return fieldErr("gpu", fmt.Sprintf("%q", r.GPU), "is not in the catalog (one of "+strings.Join(cost.GPUNames(), ", ")+")")
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case r.TP < 1 || r.TP > MaxTP:
		return fieldErr("tp", r.TP, fmt.Sprintf("must be in [1, %d]", MaxTP))
	case r.Replicas < 1 || r.Replicas > MaxReplicas:
		return fieldErr("replicas", r.Replicas, fmt.Sprintf("must be in [1, %d]", MaxReplicas))
	case r.MaxNumSeqs < 0 || r.MaxNumSeqs > 1<<16:
		return fieldErr("max_num_seqs", r.MaxNumSeqs, "must be in [0, 65536] (0: vllm serve's default)")
	case r.MaxNumBatchedTokens < 0 || r.MaxNumBatchedTokens > 1<<20:
		return fieldErr("max_num_batched_tokens", r.MaxNumBatchedTokens, "must be in [0, 1048576] (0: vllm serve's default)")
	case r.Loop != Open && r.Loop != Closed:
		return fieldErr("loop", fmt.Sprintf("%q", r.Loop), `must be "open" or "closed"`)
	case !finite(r.Rate) || r.Rate <= 0 || r.Rate > 1e5:
		return fieldErr("rate", r.Rate, "must be a rate in (0, 100000] requests/s")
	case r.Clients < 1 || r.Clients > MaxClients:
		return fieldErr("clients", r.Clients, fmt.Sprintf("must be in [1, %d]", MaxClients))
	case !finite(r.Burstiness) || r.Burstiness <= 0 || r.Burstiness > 100:
		return fieldErr("burstiness", r.Burstiness, "must be in (0, 100] (1: Poisson)")
	case r.InputLen < 1 || r.InputLen > 1<<20:
		return fieldErr("input_len", r.InputLen, "must be in [1, 1048576] tokens")
	case r.OutputLen < 1 || r.OutputLen > 1<<20:
		return fieldErr("output_len", r.OutputLen, "must be in [1, 1048576] tokens")
	case !finite(r.RangeRatio) || r.RangeRatio < 0 || r.RangeRatio >= 1:
		return fieldErr("range_ratio", r.RangeRatio, "must be in [0, 1)")
	case r.Prompts < 1 || r.Prompts > MaxPrompts:
		return fieldErr("prompts", r.Prompts, fmt.Sprintf("must be in [1, %d] (the page runs many simulations; use the CLI for longer runs)", MaxPrompts))
	case r.Warmups < 0 || r.Warmups >= r.Prompts:
		return fieldErr("warmups", r.Warmups, fmt.Sprintf("must be in [0, prompts %d)", r.Prompts))
	case r.Seed > MaxSeed:
		return fieldErr("seed", r.Seed, "must be at most 2^53 (the page holds it as a JavaScript number)")
	case !finite(r.TTFT) || r.TTFT < 0:
		return fieldErr("ttft_ms", r.TTFT, "must be a finite number >= 0 ms (0: no bound)")
	case !finite(r.TPOT) || r.TPOT < 0:
		return fieldErr("tpot_ms", r.TPOT, "must be a finite number >= 0 ms (0: no bound)")
	case !finite(r.E2EL) || r.E2EL < 0:
		return fieldErr("e2el_ms", r.E2EL, "must be a finite number >= 0 ms (0: no bound)")
	case r.TTFT == 0 && r.TPOT == 0 && r.E2EL == 0:
		return fielderr.New("ttft_ms", 0, "with tpot_ms and e2el_ms 0 leaves no SLO bound; set one of them above 0")
	case !finite(r.Target) || r.Target <= 0 || r.Target > 1:
		return fieldErr("target", r.Target, "must be in (0, 1]")
	case r.Replications < 1 || r.Replications > MaxReplications:
		return fieldErr("replications", r.Replications, fmt.Sprintf("must be in [1, %d]", MaxReplications))
	case r.BoundaryReplications < r.Replications || r.BoundaryReplications > 2*MaxReplications:
		return fieldErr("boundary_replications", r.BoundaryReplications, fmt.Sprintf("must be in [replications %d, %d]", r.Replications, 2*MaxReplications))
	case !finite(r.Precision) || r.Precision < 0.01 || r.Precision > 1:
		return fieldErr("precision", r.Precision, "must be in [0.01, 1]")
	case !finite(r.PlanRate) || r.PlanRate <= 0 || r.PlanRate > 1e5:
		return fieldErr("plan_rate", r.PlanRate, "must be a rate in (0, 100000] requests/s")
	case len(r.PlanGPUs) == 0 || len(r.PlanGPUs) > 8:
		return fieldErr("plan_gpus", len(r.PlanGPUs), "GPU types: give 1 to 8")
	}
	if r.Dataset != RandomDataset {
		if _, _, err := datasetLengths(r.Dataset); err != nil {
			return fieldErr("dataset", fmt.Sprintf("%q", r.Dataset), "is not "+RandomDataset+" or a dataset with published lengths (one of "+strings.Join(Datasets(), ", ")+"): "+err.Error())
		}
	}
	for _, g := range r.PlanGPUs {
		if _, err := cost.GPU(g); err != nil || strings.Contains(g, ",") {
			return fieldErr("plan_gpus", fmt.Sprintf("%q", g), "is not a catalog GPU")
		}
	}
	if slices.Contains(r.PlanGPUs, "") {
		return fieldErr("plan_gpus", `""`, "is not a catalog GPU")
	}
	return nil
}

// scenario builds the scenario the CLI builds from the same flags
// (cmd/servesim's bench options): bench true as `servesim bench` does
// (warm-ups outside the stream, vLLM's normalised arrivals), false as
// capacity, tp and plan do (warm-ups leading the stream, independent
// gaps). rate is the open loop's rate, inf for a closed loop with
// clients in flight.
func (r Request) scenario(bench bool, rate float64, clients int) *scenario.Scenario {
	sc := scenario.Default()
	sc.Name = "bench"
	sc.Seed = r.Seed
	sc.Percentiles = []float64{99}
	sc.SLO = scenario.SLO{TTFTms: r.TTFT, TPOTms: r.TPOT, E2ELms: r.E2EL, Target: r.Target}
	sc.Server.Model = r.Model
	sc.Server.GPU = r.GPU
	sc.Server.TensorParallelSize = r.TP
	sc.Server.Replicas = r.Replicas
	sc.Server.MaxNumSeqs = r.MaxNumSeqs
	sc.Server.MaxNumBatchedTokens = r.MaxNumBatchedTokens
	sc.Server.EnableChunkedPrefill = !r.NoChunkedPrefill
	sc.Server.EnablePrefixCaching = !r.NoPrefixCaching
	sc.Server.GPUMemoryUtilization = batching.VLLMCurrent.GPUMemoryUtilization()
	sc.Server.Servers = 1
	if clients > 0 {
		sc.Workload.MaxConcurrency = clients
	}
	var out *float64
	sc.Workload.Lengths = scenario.Lengths{Kind: "random", Input: r.InputLen, Output: r.OutputLen, RangeRatio: r.RangeRatio, OutputRangeRatio: out}
	if r.Dataset != RandomDataset {
		in, out, _ := datasetLengths(r.Dataset) // Validate checked it
		sc.Workload.Lengths = scenario.Lengths{Kind: "fixed", Input: in, Output: out}
	}
	sc.Requests = r.Prompts
	a := &scenario.Arrival{Normalize: bench}
	switch {
	case math.IsInf(rate, 1) || r.Burstiness == 1:
		a.Process, a.Rate = "poisson", scenario.Rate(rate)
		a.Normalize = a.Normalize && !math.IsInf(rate, 1)
	default:
		a.Process, a.Rate, a.Burstiness = "gamma", scenario.Rate(rate), r.Burstiness
	}
	if !bench {
		sc.Warmup = r.Warmups
		sc.Requests += r.Warmups
	}
	sc.Workload.Arrival = a
	if gpu, err := sc.GPU(); err == nil {
		seqs, tokens := batching.ServeDefaults(gpu)
		if sc.Server.MaxNumSeqs == 0 {
			sc.Server.MaxNumSeqs = seqs
		}
		if sc.Server.MaxNumBatchedTokens == 0 && sc.Server.EnableChunkedPrefill {
			sc.Server.MaxNumBatchedTokens = tokens
		}
	}
	return &sc
}

// RandomDataset is Request.Dataset for vLLM's random dataset.
const RandomDataset = "random"

// Datasets lists the Hugging Face datasets a Request may name: those
// whose token lengths servesim ships (dataset.HFLengthTable, split
// train), which `servesim bench --dataset-name hf --dataset-path ID` reads.
func Datasets() []string {
	var ids []string
	for _, l := range dataset.HFLengthTable() {
		if l.Split == dataset.HFDefaultSplit && !slices.Contains(ids, l.ID) {
			ids = append(ids, l.ID)
		}
	}
	return ids
}

// datasetLengths returns the input and output tokens every request of
// the Hugging Face dataset id gets, as `--dataset-name hf` gives them
// (its published means; no row is drawn), or why it has none.
func datasetLengths(id string) (in, out int, err error) {
	if !slices.Contains(Datasets(), id) {
		return 0, 0, errors.New("no published lengths")
	}
	pairs, _, err := dataset.HF(dataset.HFOptions{Path: id}, dataset.Options{NumPrompts: 1, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		return 0, 0, err
	}
	return pairs[0].Input, pairs[0].Output, nil
}
