package scenario

import (
	"fmt"
	"math"

	"github.com/servesim/servesim/batching"
)

// Plan is a scenario's `plan:` block: the search space and settings of
// `servesim plan SCENARIO.yaml`, which takes the model, engine template,
// workload and SLO from the rest of the file (see package plan). Every
// list left empty keeps the plan's default: GPUs with a built-in price,
// TP 1, 2, 4 and 8, no data or expert parallelism, the server's scheduler
// settings, bf16 and fp8.
//
//	plan:
//	  rate: 20                       # target req/s (default: the arrival rate)
//	  gpus: [h100-sxm, a100-80gb, l40s]
//	  prices: {h100-sxm: 2.99}       # dollars per GPU-hour, over the built-in list
//	  tp: [1, 2, 4, 8]
//	  data_parallel: [1, 2, 4]       # mixture-of-experts models: vllm serve --data-parallel-size
//	  expert_parallel: [false, true] # mixture-of-experts models: --enable-expert-parallel
//	  max_num_seqs: [128, 256]
//	  max_num_batched_tokens: [2048, 8192]
//	  chunked_prefill: [true, false]
//	  precisions: [bf16, fp8]
//	  max_replicas: 64
//	  frontier: 0.5                  # also keep deployments within 1.5x the cheapest
//	  budget: 100                    # dollars an hour; 0: none
//	  no_prune: false
type Plan struct {
	Rate                float64            `yaml:"rate"`
	GPUs                []string           `yaml:"gpus"`
	Prices              map[string]float64 `yaml:"prices"`
	TP                  []int              `yaml:"tp"`
	DataParallel        []int              `yaml:"data_parallel"`
	ExpertParallel      []bool             `yaml:"expert_parallel"`
	MaxNumSeqs          []int              `yaml:"max_num_seqs"`
	MaxNumBatchedTokens []int              `yaml:"max_num_batched_tokens"`
	ChunkedPrefill      []bool             `yaml:"chunked_prefill"`
	Precisions          []string           `yaml:"precisions"`
	MaxReplicas         int                `yaml:"max_replicas"`
	Frontier            float64            `yaml:"frontier"`
	Budget              float64            `yaml:"budget"`
	NoPrune             bool               `yaml:"no_prune"`
}

// The largest TP degree, max_num_seqs and max_num_batched_tokens a plan
// searches (a plan: block's lists and servesim plan's flags alike).
const (
	MaxPlanTP     = 1024
	MaxPlanSeqs   = 1 << 20
	MaxPlanTokens = 1 << 30
)

// check validates the block's numbers; names (GPUs, precisions) are
// checked where the plan is built.
func (p *Plan) check() error {
	nonNeg := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 1) {
			return valueErr("plan."+name, v, "must be a finite number >= 0")
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"rate", p.Rate}, {"frontier", p.Frontier}, {"budget", p.Budget}} {
		if err := nonNeg(f.name, f.v); err != nil {
			return err
		}
	}
	for gpu, price := range p.Prices {
		if err := nonNeg("prices."+gpu, price); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		name string
		vs   []int
		max  int
	}{{"tp", p.TP, MaxPlanTP}, {"data_parallel", p.DataParallel, batching.MaxDataParallel}, {"max_num_seqs", p.MaxNumSeqs, MaxPlanSeqs},
		{"max_num_batched_tokens", p.MaxNumBatchedTokens, MaxPlanTokens}} {
		for i, v := range l.vs {
			switch {
			case v < 1:
				return valueErr(fmt.Sprintf("plan.%s[%d]", l.name, i), v, "must be >= 1")
			case v > l.max:
				return valueErr(fmt.Sprintf("plan.%s[%d]", l.name, i), v, "is not a whole number in [1, %d]", l.max)
			}
		}
	}
	if p.MaxReplicas < 0 {
		return valueErr("plan.max_replicas", p.MaxReplicas, "must be >= 1 (0: the default, 64)")
	}
	if len(p.GPUs) == 0 && p.GPUs != nil {
		return fieldErr("plan.gpus", "is empty: list GPUs or leave the field out")
	}
	return nil
}
