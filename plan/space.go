package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/fielderr"
)

// GPUOption is a GPU type of the search space: its spec, its price, and
// the efficiency profile and all-reduce model measured on it.
type GPUOption struct {
	// GPU is the accelerator (cost.GPU for a catalog entry).
	GPU cost.GPUSpec
	// PricePerHour is the price of one GPU, dollars an hour; 0 takes the
	// built-in price of GPU.Name (DefaultPrices), and is an error for a
	// GPU without one.
	PricePerHour float64
	// Profile, when set, is the efficiency profile of this GPU (cost.Profile:
	// a `servesim calibrate` output, cost.LoadProfile, or
	// cost.DefaultProfile); it takes precedence over Efficiency.
	Profile *cost.Profile
	// Efficiency, when set, is a three-number efficiency for this GPU
	// (cost.Efficiency), used without a profile. With neither, the GPU runs the
	// plan's Engine.Deployment.Profile when that profile is this GPU's, else
	// its built-in profile (cost.DefaultProfile), or Engine.Deployment.Eff
	// when the plan's engine has no profile.
	Efficiency *cost.Efficiency
	// Comm, when set, times the all-reduce among these GPUs (an NCCL table,
	// topology.LoadNCCLTable); nil uses the GPU's α–β table.
	Comm cost.AllReduce
	// Topology, when set, lays these GPUs out in nodes: a TP degree above
	// its GPUs per node spans nodes over its fitted inter-node all-reduce
	// (topology.Topology.Comm, in place of Comm), whole nodes up to the nodes
	// it measured; other degrees are unbuildable.
	Topology *topology.Topology
}

// Space is the search space of LLM deployments: every combination of its
// lists is a candidate. An empty scheduler list takes the value of the
// plan's Engine template; an empty Precisions means BF16.
type Space struct {
	GPUs []GPUOption
	TP   []int
	// DataParallel lists vLLM --data-parallel-size values for a
	// mixture-of-experts model: an engine of D attention data-parallel
	// groups of TP GPUs that step together (batching.Config with
	// Deployment.DP), TP·D GPUs a replica. Empty means 1. A dense model's
	// data-parallel engines are independent, which the plan's replicas
	// already search: only 1 is allowed for it.
	DataParallel []int
	// ExpertParallel lists --enable-expert-parallel settings for a
	// mixture-of-experts model (experts split over the TP·D GPUs instead
	// of sharded over them). Empty means off; a dense model allows only
	// off.
	ExpertParallel      []bool
	MaxNumSeqs          []int
	MaxNumBatchedTokens []int
	ChunkedPrefill      []bool
	Precisions          []cost.Precision
	// SpecK lists num_speculative_tokens values to search (plan/spec.go):
	// 0 is the engine without speculative decoding, k > 0 the Engine's
	// speculative_config with k draft tokens. Empty keeps the Engine's.
	SpecK []int
	// Disaggregated lists P/D configurations searched beside the
	// colocated ones (PDShape: the P:D ratio, each pool's GPU and TP);
	// empty: colocated only.
	Disaggregated []PDShape
	// PipelineParallel lists --pipeline-parallel-size values (PPEngine):
	// each colocated point is also searched split into that many stages;
	// empty or 1: none.
	PipelineParallel []int
}

// Plan asks for the cheapest deployment of one model that meets an
// objective: which GPU, how many per replica (TP), which engine settings
// and precision, and how many replicas behind the router. Run builds a
// candidate per point of Space and hands them to Solve.
type Plan struct {
	// Model is the served model (cost.Model for a catalog entry).
	Model cost.ModelSpec
	// ServedModel is the model id of the vLLM command lines; "" takes the
	// Hugging Face id of a catalog model (HFModelID), else Model.Name.
	ServedModel string
	// ServedModelName is the API name of the command lines' servers
	// (vllm serve --served-model-name, which the bench line passes too);
	// "" for none: the API name is the checkpoint's.
	ServedModelName string
	// Engine is the template of every candidate's engine
	// (batching.Serve): its memory settings (gpu_memory_utilization,
	// kv_cache_memory, runtime reserve), block size, request overhead and
	// efficiency profile carry over; the model, GPU, TP, peak FLOP/s and
	// all-reduce come from the candidate, and its scheduler knobs stand
	// where Space leaves a list empty. A zero MaxNumSeqs or
	// MaxNumBatchedTokens is `vllm serve`'s default for each candidate's
	// GPU (batching.ServeDefaults; without chunked prefill the budget is
	// at least the max-model-len).
	Engine batching.Config
	// Router spreads requests over a candidate's replicas; "" means
	// batching.LeastOutstanding.
	Router batching.Router
	// Space is the search space.
	Space Space
	// MaxModelLen is every engine's max-model-len, tokens; 0 takes
	// MaxLen(Objective.Workload.Lengths, 100,000) capped at the model's
	// MaxContext.
	MaxModelLen int
	// Objective is the traffic, the target rate and the SLO.
	Objective Objective
	// Search is how hard the planner searches.
	Search Search
}

// NewPlan returns a plan for model with `vllm serve`'s engine defaults
// (batching.Serve, batching.VLLMCurrent; the scheduler knobs left 0: each
// GPU's), a least-outstanding router and DefaultSearch; the caller sets
// the Space and the Objective.
func NewPlan(model cost.ModelSpec) Plan {
	e := batching.Serve(model, cost.GPUSpec{}, batching.VLLMCurrent)
	e.MaxNumSeqs, e.MaxNumBatchedTokens = 0, 0
	return Plan{Model: model, Engine: e, Router: batching.LeastOutstanding, Search: DefaultSearch()}
}

// maxLenDraws is the number of length draws MaxModelLen's default looks
// at.
const maxLenDraws = 100_000

// maxModelLen returns the max-model-len of the plan's engines.
func (p Plan) maxModelLen() int {
	if p.MaxModelLen > 0 {
		return p.MaxModelLen
	}
	n := MaxLen(p.Objective.Workload.Lengths, maxLenDraws)
	if p.Model.MaxContext > 0 {
		n = min(n, p.Model.MaxContext)
	}
	return n
}

// served returns the model id of the command lines.
func (p Plan) served() string {
	if p.ServedModel != "" {
		return p.ServedModel
	}
	return HFModelID(p.Model.Name)
}

// Validate checks the model, the space and the settings.
func (p Plan) Validate() error {
	if err := p.Model.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, fielderr.Wrap("model", err))
	}
	if err := ValidateServedName(p.ServedModelName); err != nil {
		return err
	}
	if p.Objective.Workload.Lengths == nil {
		return fieldErr("objective.workload.lengths", nil, "are not set: the workload has no lengths")
	}
	if err := p.Objective.Validate(); err != nil {
		return err
	}
	if err := p.Search.Validate(); err != nil {
		return err
	}
	s := p.Space
	if len(s.GPUs) == 0 {
		return fieldErr("gpus", nil, "is empty: give a GPU to search")
	}
	if len(s.TP) == 0 {
		return fieldErr("tp", nil, "is empty: give a TP degree to search")
	}
	for i, g := range s.GPUs {
		if err := g.GPU.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, fielderr.Wrap(fmt.Sprintf("gpus[%d]", i), err))
		}
		if _, err := g.price(); err != nil {
			return err
		}
	}
	ints := []struct {
		name string
		vs   []int
		def  int
	}{{"tp", s.TP, 1}, {"max_num_seqs", s.MaxNumSeqs, p.Engine.MaxNumSeqs}, {"max_num_batched_tokens", s.MaxNumBatchedTokens, p.Engine.MaxNumBatchedTokens}}
	for _, f := range ints {
		for i, v := range f.vs {
			if v < 1 {
				return fieldErr(fmt.Sprintf("%s[%d]", f.name, i), v, "must be >= 1")
			}
		}
		if len(f.vs) == 0 && f.def < 0 {
			return fieldErr("engine."+f.name, f.def, "must be >= 1 (or 0: vllm serve's default for each GPU)")
		}
	}
	moe := p.Model.Experts > 0
	for i, d := range s.DataParallel {
		switch {
		case d < 1 || d > batching.MaxDataParallel:
			return fieldErr(fmt.Sprintf("data_parallel[%d]", i), d, "must be in [1, %d]", batching.MaxDataParallel)
		case d > 1 && !moe:
			return fieldErr(fmt.Sprintf("data_parallel[%d]", i), d, "on the dense %s: a dense model's data-parallel engines are the plan's replicas; leave data_parallel out", p.Model.Name)
		case d > 1 && p.Search.MaxReplicas > batching.MaxDataParallel/d:
			return fieldErr(fmt.Sprintf("data_parallel[%d]", i), d, "times max_replicas %d make %d data-parallel groups, more than %d: lower max_replicas or data_parallel", p.Search.MaxReplicas, d*p.Search.MaxReplicas, batching.MaxDataParallel)
		}
	}
	if slices.Contains(s.ExpertParallel, true) && !moe {
		return fieldErr("expert_parallel", nil, "%s is dense; expert parallelism needs a mixture-of-experts model", p.Model.Name)
	}
	if !slices.Contains(s.ExpertParallel, false) && len(s.ExpertParallel) > 0 && slices.Max(s.TP)*slices.Max(orDefault(s.DataParallel, 1)) == 1 {
		return fieldErr("expert_parallel", nil, "every candidate has tp × data_parallel = 1, where expert parallelism is none; search tp or data_parallel above 1, or expert_parallel off")
	}
	if err := noRepeats(s); err != nil {
		return err
	}
	if err := p.validateSpec(); err != nil {
		return err
	}
	if err := p.validatePD(); err != nil {
		return err
	}
	if err := p.validatePP(); err != nil {
		return err
	}
	n := s.size(p.Engine)
	if k := len(s.SpecK); k > 1 && n <= MaxCandidates {
		n *= k
	}
	if n+s.ppCount(n)+s.pdCount() > MaxCandidates {
		return fieldErr("space", nil, "has more than %d candidates (gpus × tp × data_parallel × expert_parallel × max_num_seqs × max_num_batched_tokens × chunked_prefill × precisions)", MaxCandidates)
	}
	if p.Engine.BlockSize < 1 {
		return fieldErr("engine.block_size", p.Engine.BlockSize, "must be >= 1")
	}
	if p.MaxModelLen < 0 {
		return fieldErr("max_model_len", p.MaxModelLen, "must be >= 0")
	}
	if p.Router != "" && p.Router != batching.RoundRobin && p.Router != batching.LeastOutstanding {
		return fieldErr("router", string(p.Router), "must be %q or %q", batching.RoundRobin, batching.LeastOutstanding)
	}
	return nil
}

// MaxCandidates bounds the points of a plan's space: each is a candidate
// held in memory and screened, many simulated (131,072 took 43 s and
// 880 MB before any simulation).
const MaxCandidates = 20_000

// noRepeats returns an error naming the first value a list of the space
// repeats: it would be the same candidate twice, a tie with itself.
func noRepeats(s Space) error {
	check := func(name string, n int, key func(int) string) error {
		seen := map[string]int{}
		for i := range n {
			k := key(i)
			if j, ok := seen[k]; ok {
				return fieldErr(fmt.Sprintf("%s[%d]", name, i), nil, "%s repeats %s[%d]", k, name, j)
			}
			seen[k] = i
		}
		return nil
	}
	ints := func(vs []int) func(int) string { return func(i int) string { return fmt.Sprint(vs[i]) } }
	for _, c := range []struct {
		name string
		n    int
		key  func(int) string
	}{
		{"gpus", len(s.GPUs), func(i int) string { return s.GPUs[i].GPU.Name }},
		{"tp", len(s.TP), ints(s.TP)},
		{"data_parallel", len(s.DataParallel), ints(s.DataParallel)},
		{"expert_parallel", len(s.ExpertParallel), func(i int) string { return fmt.Sprint(s.ExpertParallel[i]) }},
		{"max_num_seqs", len(s.MaxNumSeqs), ints(s.MaxNumSeqs)},
		{"max_num_batched_tokens", len(s.MaxNumBatchedTokens), ints(s.MaxNumBatchedTokens)},
		{"chunked_prefill", len(s.ChunkedPrefill), func(i int) string { return fmt.Sprint(s.ChunkedPrefill[i]) }},
		{"precisions", len(s.Precisions), func(i int) string { return s.Precisions[i].String() }},
	} {
		if err := check(c.name, c.n, c.key); err != nil {
			return err
		}
	}
	return nil
}

func (g GPUOption) price() (float64, error) {
	switch {
	case !(g.PricePerHour >= 0) || math.IsInf(g.PricePerHour, 1):
		return 0, fieldErr("gpus."+g.GPU.Name+".price", g.PricePerHour, "must be a finite number of dollars an hour >= 0")
	case g.PricePerHour > 0:
		return g.PricePerHour, nil
	}
	if p, ok := defaultPrices[g.GPU.Name]; ok {
		return p, nil
	}
	return 0, fieldErr("gpus."+g.GPU.Name+".price", nil, "is not set, and %s has no built-in price (built in: %s): set its price", g.GPU.Name, strings.Join(defaultPrices.Names(), ", "))
}

func orDefault[T any](vs []T, def T) []T {
	if len(vs) == 0 {
		return []T{def}
	}
	return vs
}

// size returns the number of points of the space for engine template e,
// or MaxCandidates+1 when there are more (the product cannot overflow).
func (s Space) size(e batching.Config) int {
	n := 1
	for _, l := range []int{len(s.GPUs), len(s.TP), len(orDefault(s.DataParallel, 1)), len(orDefault(s.ExpertParallel, false)),
		len(orDefault(s.MaxNumSeqs, e.MaxNumSeqs)), len(orDefault(s.MaxNumBatchedTokens, e.MaxNumBatchedTokens)),
		len(orDefault(s.ChunkedPrefill, e.EnableChunkedPrefill)), len(orDefault(s.Precisions, cost.BF16))} {
		if l > 0 && n > MaxCandidates/l {
			return MaxCandidates + 1
		}
		n *= l
	}
	return n
}

// Candidates returns one candidate per point of the space, GPU-major
// (then TP, data parallelism, expert parallelism, max-num-seqs,
// max-num-batched-tokens, chunked prefill, precision, then Space.SpecK),
// each an Engine replica; expert parallelism over one GPU (TP·DP = 1) is the same
// engine as none and is left out. A point whose precision the model does
// not allow is a candidate the screen rejects as Invalid.
func (p Plan) Candidates() ([]Candidate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := p.Space
	maxLen := p.maxModelLen()
	out := make([]Candidate, 0, s.size(p.Engine))
	for _, g := range s.GPUs {
		price, _ := g.price()
		for _, tp := range s.TP {
			for _, dp := range orDefault(s.DataParallel, 1) {
				for _, ep := range orDefault(s.ExpertParallel, false) {
					if ep && tp*dp == 1 {
						continue
					}
					for _, seqs := range orDefault(s.MaxNumSeqs, p.Engine.MaxNumSeqs) {
						for _, mnbt := range orDefault(s.MaxNumBatchedTokens, p.Engine.MaxNumBatchedTokens) {
							for _, chunk := range orDefault(s.ChunkedPrefill, p.Engine.EnableChunkedPrefill) {
								seqs, mnbt := serveKnobs(g.GPU, seqs, mnbt, chunk, maxLen)
								for _, prec := range orDefault(s.Precisions, cost.BF16) {
									set := Settings{GPU: g.GPU.Name, TP: tp, EP: ep, MaxNumSeqs: seqs, MaxNumBatchedTokens: mnbt,
										ChunkedPrefill: chunk, Precision: prec, MaxModelLen: maxLen}
									if dp > 1 {
										set.DP = dp
									}
									c := Candidate{Index: len(out), Name: set.String(), Settings: set, GPUs: tp * dp, PricePerGPUHour: price}
									c.Replica = p.engine(g, set)
									out = append(out, c)
								}
							}
						}
					}
				}
			}
		}
	}
	return p.pdCandidates(p.ppCandidates(p.withSpecK(out))), nil
}

// serveKnobs resolves a zero max-num-seqs or max-num-batched-tokens to
// `vllm serve`'s default for gpu; without chunked prefill a default
// budget is at least maxLen, so a whole prompt fits one step.
func serveKnobs(gpu cost.GPUSpec, seqs, tokens int, chunked bool, maxLen int) (int, int) {
	ds, dt := batching.ServeDefaults(gpu)
	if seqs == 0 {
		seqs = ds
	}
	if tokens == 0 {
		tokens = dt
		if !chunked {
			tokens = max(tokens, maxLen)
		}
	}
	return seqs, tokens
}

// engine builds the replica of one point of the space.
func (p Plan) engine(g GPUOption, s Settings) Replica {
	cfg := p.Engine
	d := &cfg.Deployment
	d.Model, d.GPU, d.TP, d.DP, d.EP, d.PeakFLOPS, d.Comm = p.Model, g.GPU, s.TP, s.DP, 0, 0, g.Comm
	if s.EP {
		d.EP = s.TP * max(s.DP, 1)
	}
	if g.Topology != nil {
		comm, err := g.Topology.Comm(g.GPU, s.TP)
		if err != nil {
			return unbuildable{reason: Invalid, why: err.Error()}
		}
		if comm != nil {
			d.Comm = comm
		}
	}
	switch {
	case g.Profile != nil:
		prof := *g.Profile
		d.Profile = &prof
	case g.Efficiency != nil:
		d.Eff, d.Profile = *g.Efficiency, nil
	case d.Profile != nil && d.Profile.GPU != g.GPU.Name:
		// A profile describes one GPU: this one gets its own built-in one.
		prof := cost.DefaultProfile(g.GPU)
		d.Profile = &prof
	}
	dep, args, err := ApplyPrecision(s.Precision, *d)
	if err != nil {
		return unbuildable{reason: Invalid, why: err.Error()}
	}
	cfg.Deployment = dep
	cfg.MaxNumSeqs, cfg.MaxNumBatchedTokens, cfg.EnableChunkedPrefill, cfg.MaxModelLen = s.MaxNumSeqs, s.MaxNumBatchedTokens, s.ChunkedPrefill, s.MaxModelLen
	return Engine{Config: cfg, Router: p.Router, ServeArgs: slices.Clone(args)}
}

// Run plans: it builds the candidates, solves (see Solve) and adds the
// vLLM command lines of each ranked candidate.
func (p Plan) Run() (*Result, error) {
	cands, err := p.Candidates()
	if err != nil {
		return nil, err
	}
	res, err := Solve(p.Objective, p.Search, cands)
	if err != nil {
		return nil, err
	}
	res.Model = p.Model.Name
	if res.Speculative, err = p.specReport(res); err != nil {
		return nil, err
	}
	for i := range res.Ranked {
		r := &res.Ranked[i]
		if e, ok := r.Replica.(Engine); ok {
			r.Serve = ServeCommand(p.served(), e, r.Replicas)
			r.Bench = BenchCommand(p.served(), p.Objective, r.Replicas*p.Search.Requests, r.Replicas*p.Search.Warmup)
		}
		if e, ok := r.Replica.(PPEngine); ok {
			r.Serve = ppServe(p.served(), e, r.Replicas)
			r.Bench = BenchCommand(p.served(), p.Objective, r.Replicas*p.Search.Requests, r.Replicas*p.Search.Warmup)
		}
		if u, ok := r.Replica.(PDUnit); ok {
			r.Serve, r.Bench = p.pdCommands(u, r.Replicas)
		}
		if r.Serve != "" {
			r.Serve, r.Bench = WithServedName(r.Serve, p.ServedModelName), WithServedName(r.Bench, p.ServedModelName)
		}
	}
	return res, nil
}

// Pricing says what prices the option's steps (cost.Profile.Pricing): its
// own profile, or its GPU's built-in one.
func (g GPUOption) Pricing() string {
	if g.Profile != nil {
		return g.Profile.Pricing()
	}
	return cost.DefaultProfile(g.GPU).Pricing()
}
