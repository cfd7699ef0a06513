package plan

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// A Replica is what the planner simulates for a candidate: the server of
// n ≥ 1 identical replicas fed by one arrival stream (for an LLM engine, a
// batching.Cluster behind its router). Servers(1) is one replica alone,
// whose λ* the capacity search finds. Engine is the Replica of LLM
// candidates; any sim.ServerConfig family can be planned over.
type Replica interface {
	Servers(n int) sim.ServerConfig
}

// ReplicaFunc adapts a function to a Replica.
type ReplicaFunc func(n int) sim.ServerConfig

// Servers returns f(n).
func (f ReplicaFunc) Servers(n int) sim.ServerConfig { return f(n) }

// A Screener is a Replica that can judge itself before any simulation:
// rule itself out (it does not fit, its latency floor misses the SLO) and
// bound a replica's sustainable rate from above. The planner prunes with
// those bounds; a Replica that is not a Screener is simulated whatever it
// costs.
type Screener interface {
	Screen(d Demand) Screening
}

// Demand is what a Screener sees of the traffic: the acceptance criteria
// and a fixed sample of request lengths (the same for every candidate).
type Demand struct {
	Criteria capacity.Criteria
	// Lengths are (input, output) token counts drawn from the workload's
	// length distribution with a fixed seed.
	Lengths []Lengths
	// MeanInput and MeanOutput are the distribution's means, tokens.
	MeanInput, MeanOutput float64
}

// Lengths is one request's token counts.
type Lengths struct{ Input, Output int }

// Screening is a Screener's verdict.
type Screening struct {
	// Reason is NoReason when the candidate may be simulated, else why it
	// cannot serve the traffic (Invalid, DoesNotFit, Unreachable); Why
	// says so in a sentence.
	Reason Reason
	Why    string
	// MaxRate bounds the rate one replica sustains from above, requests
	// per second, whatever the SLO: every replica count k serves at most
	// k·MaxRate. 0 or +Inf means no bound is known.
	MaxRate float64
}

// Settings are an LLM candidate's engine settings, as `vllm serve` takes
// them; the zero value describes a candidate that is not an LLM engine.
type Settings struct {
	GPU string `json:"gpu"`
	TP  int    `json:"tensor_parallel_size,omitempty"`
	// DP is vLLM's --data-parallel-size of a mixture-of-experts engine: DP
	// attention data-parallel groups of TP GPUs stepping together (0 or 1:
	// none); EP its --enable-expert-parallel.
	DP int  `json:"data_parallel_size,omitempty"`
	EP bool `json:"enable_expert_parallel,omitempty"`
	// PP is --pipeline-parallel-size (0 or 1: none).
	PP                  int            `json:"pipeline_parallel_size,omitempty"`
	MaxNumSeqs          int            `json:"max_num_seqs,omitempty"`
	MaxNumBatchedTokens int            `json:"max_num_batched_tokens,omitempty"`
	ChunkedPrefill      bool           `json:"enable_chunked_prefill"`
	Precision           cost.Precision `json:"precision"`
	MaxModelLen         int            `json:"max_model_len,omitempty"`

	// SpecK is num_speculative_tokens when the space searches it
	// (Space.SpecK; 0: off).
	SpecK int `json:"num_speculative_tokens,omitempty"`
}

// String is a short label: "h100-sxm tp4 seqs256 mnbt2048 chunked bf16"
// ("tp2 dp4 ep" with data and expert parallelism).
func (s Settings) String() string {
	if s.TP == 0 {
		return s.GPU
	}
	chunk := "chunked"
	if !s.ChunkedPrefill {
		chunk = "no-chunk"
	}
	return fmt.Sprintf("%s %s seqs%d mnbt%d %s %s", s.GPU, s.parallel(), s.MaxNumSeqs, s.MaxNumBatchedTokens, chunk, s.Precision)
}

// parallel writes the parallel sizes: "tp4", "tp2 dp4 ep".
func (s Settings) parallel() string {
	out := fmt.Sprintf("tp%d", s.TP)
	if s.DP > 1 {
		out += fmt.Sprintf(" dp%d", s.DP)
	}
	if s.EP {
		out += " ep"
	}
	if s.PP > 1 {
		out += fmt.Sprintf(" pp%d", s.PP)
	}
	return out
}

// Candidate is one deployment option: a replica, how many GPUs it takes,
// and what a GPU costs.
type Candidate struct {
	// Index is the candidate's position in the list the planner was given.
	Index int `json:"index"`
	// Name labels the candidate in reports; Settings.String() when empty.
	Name string `json:"name"`
	// Settings are the engine settings of an LLM candidate.
	Settings Settings `json:"settings"`
	// GPUs is the GPU count of one replica (≥ 1).
	GPUs int `json:"gpus_per_replica"`
	// PricePerGPUHour is the price of one GPU, dollars an hour (≥ 0).
	PricePerGPUHour float64 `json:"price_per_gpu_hour"`
	// Replica builds the servers.
	Replica Replica `json:"-"`
	// Disagg describes a disaggregated candidate (Space.Disaggregated);
	// nil for a colocated one.
	Disagg *PDSettings `json:"disaggregated,omitempty"`
}

// label returns Name, or the settings' label.
func (c Candidate) label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Settings.String()
}

// CostPerHour returns the hourly price of n replicas, dollars.
func (c Candidate) CostPerHour(n int) float64 { return float64(n*c.GPUs) * c.PricePerGPUHour }

func (c Candidate) validate() error {
	switch {
	case c.Replica == nil:
		return fmt.Errorf("%w: candidate %d (%s) has no replica", ErrInvalid, c.Index, c.label())
	case c.GPUs < 1:
		return fmt.Errorf("%w: candidate %d (%s) gpus %d must be >= 1", ErrInvalid, c.Index, c.label(), c.GPUs)
	case !(c.PricePerGPUHour >= 0) || math.IsInf(c.PricePerGPUHour, 1):
		return fmt.Errorf("%w: candidate %d (%s) price_per_gpu_hour %v must be a finite number >= 0", ErrInvalid, c.Index, c.label(), c.PricePerGPUHour)
	}
	return nil
}

// NewDemand returns the demand a plan screens its candidates against: the
// criteria and 4,096 lengths drawn from l (stream "plan-lengths" of seed
// 0), so every plan over the same lengths screens the same requests.
func NewDemand(c capacity.Criteria, l workload.Lengths) Demand {
	r := event.NewStream(0, "plan-lengths")
	d := Demand{Criteria: c, Lengths: make([]Lengths, screenSample)}
	for i := range d.Lengths {
		in, out := l.Sample(r, i)
		d.Lengths[i] = Lengths{in, out}
	}
	d.MeanInput, d.MeanOutput = l.Mean()
	return d
}

// MaxLen returns the longest input+output among n draws of l (stream
// "plan-lengths" of seed 0), rounded up to a multiple of 1024 tokens: the
// max-model-len a plan gives its engines when none is set. With 100,000
// draws, a run of a few thousand requests exceeds it (and has a request
// rejected) with a probability of the order of 10^-2 or less even for a
// heavy-tailed distribution, and never for a bounded one that the draws
// reach (Random, tables).
func MaxLen(l workload.Lengths, n int) int {
	r := event.NewStream(0, "plan-lengths")
	longest := 0
	for i := range n {
		in, out := l.Sample(r, i)
		longest = max(longest, in+out)
	}
	return (longest + 1023) / 1024 * 1024
}
