package plan_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func gpu(t *testing.T, name string) plan.GPUOption {
	t.Helper()
	g, err := cost.GPU(name)
	require.NoError(t, err)
	return plan.GPUOption{GPU: g}
}

// TestPlanCandidates: one candidate per point of the space, GPU-major,
// with the built-in or the given price, the plan's engine template and
// max-model-len, each GPU's own profile, and the budget vllm serve gives
// each GPU (8192 on an H100, 2048 on an L40S; without chunked prefill at
// least the max-model-len).
func TestPlanCandidates(t *testing.T) {
	t.Parallel()
	p := smallPlan(t, 1)
	eff := cost.Efficiency{Bandwidth: 0.7, FLOPs: 0.5, StepOverhead: 2e-3}
	l40s := gpu(t, "l40s")
	l40s.PricePerHour, l40s.Efficiency = 1.5, &eff
	h100 := gpu(t, "h100-sxm")
	prof := cost.DefaultProfile(h100.GPU)
	h100.Profile = &prof
	p.Space = plan.Space{GPUs: []plan.GPUOption{h100, l40s}, TP: []int{1, 2},
		MaxNumSeqs: []int{64, 256}, ChunkedPrefill: []bool{true, false}, Precisions: []cost.Precision{cost.FP8}}
	p.Engine.Deployment.GPUMemoryUtilization = 0.85
	cands, err := p.Candidates()
	require.NoError(t, err)
	require.Len(t, cands, 2*2*2*2)
	for i, c := range cands {
		assert.Equal(t, i, c.Index)
		assert.Equal(t, c.Settings.TP, c.GPUs)
		assert.Equal(t, 14336, c.Settings.MaxModelLen, "Azure's longest request, rounded up to 1024")
		budget := map[string]int{"h100-sxm": 8192, "l40s": 2048}[c.Settings.GPU]
		if !c.Settings.ChunkedPrefill {
			budget = 14336
		}
		assert.Equal(t, budget, c.Settings.MaxNumBatchedTokens, "vllm serve's budget for %s", c.Name)
		e := c.Replica.(plan.Engine)
		assert.Equal(t, c.Settings.MaxNumSeqs, e.Config.MaxNumSeqs)
		assert.Equal(t, c.Settings.ChunkedPrefill, e.Config.EnableChunkedPrefill)
		assert.Equal(t, 0.85, e.Config.Deployment.GPUMemoryUtilization)
		assert.Equal(t, 1.0, e.Config.Deployment.Model.WeightBytes, "fp8")
	}
	first, last := cands[0], cands[len(cands)-1]
	assert.Equal(t, plan.Settings{GPU: "h100-sxm", TP: 1, MaxNumSeqs: 64, MaxNumBatchedTokens: 8192, ChunkedPrefill: true, Precision: cost.FP8, MaxModelLen: 14336}, first.Settings)
	assert.Equal(t, plan.Settings{GPU: "l40s", TP: 2, MaxNumSeqs: 256, MaxNumBatchedTokens: 14336, ChunkedPrefill: false, Precision: cost.FP8, MaxModelLen: 14336}, last.Settings)
	assert.Equal(t, plan.DefaultPrices()["h100-sxm"], first.PricePerGPUHour)
	assert.Equal(t, 1.5, last.PricePerGPUHour)
	assert.Equal(t, eff, last.Replica.(plan.Engine).Config.Deployment.Eff)
	assert.Equal(t, cost.DefaultEfficiency(), first.Replica.(plan.Engine).Config.Deployment.Eff)
	if got := first.Replica.(plan.Engine).Config.Deployment.Profile; assert.NotNil(t, got, "the H100's profile") {
		assert.Equal(t, prof, *got)
	}
	assert.Nil(t, last.Replica.(plan.Engine).Config.Deployment.Profile, "the L40S has no profile")
	assert.InDelta(t, 2*1.5, last.CostPerHour(1), 1e-12)
}

// TestPlanCandidatesDataParallel: for a mixture-of-experts model the
// space's data- and expert-parallel lists multiply the candidates, less
// expert parallelism over one GPU (the same engine as none): TP 1 and 2
// by DP 1 and 2 by EP off and on is 2·2·2 − 1 = 7 points. A candidate
// takes TP·DP GPUs, and its engine is D groups with EP = TP·DP when set.
func TestPlanCandidatesDataParallel(t *testing.T) {
	t.Parallel()
	p := smallPlan(t, 1)
	m, err := cost.Model("gpt-oss-120b")
	require.NoError(t, err)
	p.Model, p.Engine = m, batching.Defaults(m, cost.GPUSpec{})
	p.Space = plan.Space{GPUs: []plan.GPUOption{gpu(t, "h100-sxm")}, TP: []int{1, 2}, DataParallel: []int{1, 2}, ExpertParallel: []bool{false, true}}
	cands, err := p.Candidates()
	require.NoError(t, err)
	var got []string
	var gpus []int
	for _, c := range cands {
		got = append(got, c.Name)
		gpus = append(gpus, c.GPUs)
		d := c.Replica.(plan.Engine).Config.Deployment
		assert.Equal(t, c.GPUs, d.GPUs(), c.Name, "the price counts the engine's GPUs")
		assert.Equal(t, c.Settings.DP, d.DP, c.Name)
		if c.Settings.EP {
			assert.Equal(t, c.GPUs, d.EP, c.Name)
		} else {
			assert.Zero(t, d.EP, c.Name)
		}
	}
	assert.Equal(t, []string{
		"h100-sxm tp1 seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp1 dp2 seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp1 dp2 ep seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp2 seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp2 ep seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp2 dp2 seqs256 mnbt2048 chunked bf16",
		"h100-sxm tp2 dp2 ep seqs256 mnbt2048 chunked bf16",
	}, got)
	assert.Equal(t, []int{1, 2, 2, 2, 2, 4, 4}, gpus)
}

// TestPrices: the built-in list is Modal's per-second rates times 3600,
// and a copy.
func TestPrices(t *testing.T) {
	t.Parallel()
	p := plan.DefaultPrices()
	assert.InDelta(t, 3.9492, p["h100-sxm"], 1e-9)
	assert.InDelta(t, 2.4984, p["a100-80gb"], 1e-9)
	assert.InDelta(t, 1.9512, p["l40s"], 1e-9)
	p["h100-sxm"] = 0
	assert.NotZero(t, plan.DefaultPrices()["h100-sxm"])
	assert.Equal(t, "a100-80gb $2.50/h, h100-sxm $0.00/h, l40s $1.95/h", p.String())
}

func TestParsePricesAndDefaultSpace(t *testing.T) {
	t.Parallel()
	p, err := plan.ParsePrices("h100-sxm=2.99, l40s = 0.89,")
	require.NoError(t, err)
	assert.Equal(t, plan.Prices{"h100-sxm": 2.99, "l40s": 0.89}, p)
	for _, bad := range []string{"h100-sxm", "=1", "l40s=-1", "l40s=inf", "l40s=x"} {
		_, err := plan.ParsePrices(bad)
		assert.ErrorIs(t, err, plan.ErrInvalid, bad)
	}
	s, err := plan.DefaultSpace()
	require.NoError(t, err)
	var names []string
	for _, g := range s.GPUs {
		names = append(names, g.GPU.Name)
	}
	assert.Equal(t, []string{"a100-80gb", "h100-sxm", "l40s"}, names)
	assert.Equal(t, []int{1, 2, 4, 8}, s.TP)
}

func TestPlanValidate(t *testing.T) {
	t.Parallel()
	good := func() plan.Plan { return smallPlan(t, 1) }
	mi300x := gpu(t, "mi300x")
	tests := []struct {
		name   string
		mutate func(*plan.Plan)
		want   string
	}{
		{"no gpus", func(p *plan.Plan) { p.Space.GPUs = nil }, "gpus: is empty"},
		{"no tp", func(p *plan.Plan) { p.Space.TP = nil }, "tp: is empty"},
		{"no price", func(p *plan.Plan) { p.Space.GPUs = append(p.Space.GPUs, mi300x) }, "gpus.mi300x.price: is not set, and mi300x has no built-in price"},
		{"bad price", func(p *plan.Plan) { p.Space.GPUs[0].PricePerHour = math.NaN() }, "gpus.h100-sxm.price: NaN"},
		{"bad tp", func(p *plan.Plan) { p.Space.TP = []int{0} }, "tp[0]: 0 must be >= 1"},
		{"bad seqs", func(p *plan.Plan) { p.Space.MaxNumSeqs = []int{-1} }, "max_num_seqs[0]: -1"},
		{"zero template", func(p *plan.Plan) { p.Engine = batching.Config{} }, "engine.block_size: 0 must be >= 1"},
		{"negative template", func(p *plan.Plan) { p.Engine.MaxNumSeqs = -1 }, "engine.max_num_seqs: -1 must be >= 1 (or 0: vllm serve's default for each GPU)"},
		{"rate", func(p *plan.Plan) { p.Objective.Rate = 0 }, "rate 0 must be"},
		{"closed loop", func(p *plan.Plan) {
			p.Objective.Workload = workload.Workload{Clients: 4, Lengths: workload.Fixed{Input: 1, Output: 1}}
		}, "closed loop"},
		{"ramp", func(p *plan.Plan) {
			p.Objective.Workload.Arrivals = workload.Ramp{Start: 1, End: 2, Strategy: workload.RampLinear}
		}, "workload.RateSetter"},
		{"criteria", func(p *plan.Plan) { p.Objective.Criteria.Target = 2 }, "target 2"},
		{"no slo", func(p *plan.Plan) { p.Objective.Criteria.SLO = metrics.SLO{} }, "slo sets no bound"},
		{"requests", func(p *plan.Plan) { p.Search.Requests = 0 }, "requests: 0"},
		{"warmup", func(p *plan.Plan) { p.Search.Warmup = p.Search.Requests }, "warmup: 400"},
		{"round", func(p *plan.Plan) { p.Search.Round = 0 }, "round: 0"},
		{"max replicas", func(p *plan.Plan) { p.Search.MaxReplicas = 0 }, "max_replicas: 0"},
		{"budget", func(p *plan.Plan) { p.Search.Budget = -1 }, "budget: -1"},
		{"router", func(p *plan.Plan) { p.Router = "random" }, `router: "random"`},
		{"data parallel of a dense model", func(p *plan.Plan) { p.Space.DataParallel = []int{1, 2} }, "data_parallel[1]: 2 on the dense llama-3.1-8b"},
		{"bad data parallel", func(p *plan.Plan) { p.Space.DataParallel = []int{0} }, "data_parallel[0]: 0 must be in [1, 1024]"},
		{"expert parallel of a dense model", func(p *plan.Plan) { p.Space.ExpertParallel = []bool{true} }, "expert_parallel: llama-3.1-8b is dense"},
		{"repeated tp", func(p *plan.Plan) { p.Space.TP = []int{1, 2, 1} }, "tp[2]: 1 repeats tp[0]"},
		{"repeated gpu", func(p *plan.Plan) { p.Space.GPUs = append(p.Space.GPUs, p.Space.GPUs[0]) }, "gpus[2]: h100-sxm repeats gpus[0]"},
		{"expert parallel over one GPU only", func(p *plan.Plan) {
			m, _ := cost.Model("gpt-oss-20b")
			p.Model, p.Space.TP, p.Space.ExpertParallel = m, []int{1}, []bool{true}
		}, "every candidate has tp × data_parallel = 1, where expert parallelism is none"},
		{"too many candidates", func(p *plan.Plan) {
			p.Space.TP, p.Space.MaxNumSeqs = nil, nil
			for i := 1; i <= 100; i++ {
				p.Space.TP = append(p.Space.TP, i)
				p.Space.MaxNumSeqs = append(p.Space.MaxNumSeqs, i)
			}
		}, "space: has more than 20000 candidates"},
		{"too many groups", func(p *plan.Plan) {
			m, _ := cost.Model("gpt-oss-20b")
			p.Model, p.Space.DataParallel, p.Search.MaxReplicas = m, []int{32}, 64
		}, "data_parallel[0]: 32 times max_replicas 64 make 2048 data-parallel groups, more than 1024: lower max_replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := good()
			tt.mutate(&p)
			_, err := p.Run()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, errors.Is(err, plan.ErrInvalid) || errors.Is(err, capacity.ErrInvalid), "%v", err)
			// A message "field: ..." of plan's own is a field error at field.
			if field, _, ok := strings.Cut(tt.want, ": "); ok && errors.Is(err, plan.ErrInvalid) && !strings.Contains(field, " ") {
				fe := fielderr.Of(err)
				assert.True(t, fe != nil && fe.Field == field, "%v: want a field error at %s", err, field)
			}
		})
	}
}

// TestCommands: the vLLM command lines of a deployment and its check.
func TestCommands(t *testing.T) {
	t.Parallel()
	e := engine(t, "llama-3.1-70b", "h100-sxm", 4, cost.FP8)
	assert.Equal(t, "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --data-parallel-size 2 --max-num-seqs 1024 "+
		"--max-num-batched-tokens 8192 --max-model-len 14336 --quantization fp8 --kv-cache-dtype fp8 --gpu-memory-utilization 0.9",
		plan.ServeCommand(plan.HFModelID("llama-3.1-70b"), e, 2))
	e.Config.EnableChunkedPrefill, e.Config.MaxNumBatchedTokens = false, 16384
	e.Config.Deployment.GPUMemoryUtilization = 0.95
	e.ServeArgs = nil
	assert.Equal(t, "vllm serve my/model --tensor-parallel-size 4 --max-num-seqs 1024 --max-num-batched-tokens 16384 "+
		"--max-model-len 14336 --no-enable-chunked-prefill --gpu-memory-utilization 0.95",
		plan.ServeCommand("my/model", e, 1))
	// An engine at 0.9 of memory (batching.Defaults, vLLM 2025's default)
	// says so: today's vllm serve would take 0.92 (batching.VLLMCurrent).
	// A mixture-of-experts model's replicas are separate processes: vLLM's
	// --data-parallel-size would step them together as one deployment.
	moe := engine(t, "gpt-oss-20b", "h100-sxm", 1, cost.BF16)
	moe.ServeArgs = nil
	assert.Equal(t, "vllm serve openai/gpt-oss-20b --tensor-parallel-size 1 --max-num-seqs 1024 --max-num-batched-tokens 8192 "+
		"--max-model-len 14336 --gpu-memory-utilization 0.9 # one of 3 such processes behind a router",
		plan.ServeCommand("openai/gpt-oss-20b", moe, 3))
	// Its data-parallel groups are the engine's own: one process each.
	moe.Config.Deployment.TP, moe.Config.Deployment.DP, moe.Config.Deployment.EP = 2, 4, 8
	assert.Equal(t, "vllm serve openai/gpt-oss-20b --tensor-parallel-size 2 --data-parallel-size 4 --enable-expert-parallel --max-num-seqs 1024 --max-num-batched-tokens 8192 "+
		"--max-model-len 14336 --gpu-memory-utilization 0.9 # one of 2 such processes behind a router",
		plan.ServeCommand(plan.HFModelID("gpt-oss-20b"), moe, 2))

	obj := plan.Objective{
		Workload: workload.Workload{Arrivals: workload.Gamma{Rate: 1, Burstiness: 0.5},
			Lengths: workload.Random{InputLen: 1024, OutputLen: 128, RangeRatio: 0.1}},
		Rate:     12.5,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.05}, 0.99),
	}
	assert.Equal(t, "vllm bench serve --model m --dataset-name random --random-input-len 1024 --random-output-len 128 --random-range-ratio 0.1 "+
		"--ignore-eos --request-rate 12.5 --burstiness 0.5 --num-prompts 3000 --num-warmups 300 --goodput ttft:2000 tpot:50 "+
		"--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99",
		plan.BenchCommand("m", obj, 3000, 300))
	obj.Workload = workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation(), MaxConcurrency: 64}
	obj.Criteria.SLO = metrics.SLO{E2E: 20}
	assert.Equal(t, "vllm bench serve --model m --dataset-name random --random-input-len 1149 --random-output-len 211 "+
		"--ignore-eos --request-rate 12.5 --max-concurrency 64 --num-prompts 100 --goodput e2el:20000 "+
		"--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99",
		plan.BenchCommand("m", obj, 100, 0), "other lengths by their means")
	assert.Equal(t, "my-spec", plan.HFModelID("my-spec"))
}

// TestMaxLen: the longest request of a bounded distribution, rounded up
// to 1024 tokens.
func TestMaxLen(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 2048, plan.MaxLen(workload.Fixed{Input: 1024, Output: 1}, 10))
	assert.Equal(t, 3072, plan.MaxLen(workload.Random{InputLen: 1000, OutputLen: 1000, RangeRatio: 0.5}, 100_000), "at most 1500 + 1500")
	// Azure conversation: the table's largest input and output are 14,050
	// and 1,000; 100,000 draws reach 13,300 or so together.
	assert.Equal(t, 14336, plan.MaxLen(workload.AzureConversation(), 100_000))
}
