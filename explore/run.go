package explore

import (
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/hfmodels"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim"
)

// Latency is one latency's 50th, 90th and 99th percentiles, milliseconds
// (null in JSON when no request gave one).
type Latency struct {
	P50 *float64 `json:"p50_ms"`
	P90 *float64 `json:"p90_ms"`
	P99 *float64 `json:"p99_ms"`
}

// Point is one `servesim bench` run of the request's server at one load:
// an open loop at Rate, or a closed loop of Clients (Rate +Inf, null in
// JSON).
type Point struct {
	Rate    *float64 `json:"rate"`
	Clients int      `json:"clients,omitempty"`
	// Throughput is the achieved request rate (completed requests over
	// the run's duration), requests/s; Attainment the joint SLO attainment.
	Throughput float64 `json:"request_throughput"`
	Attainment float64 `json:"slo_attainment"`
	Failed     int     `json:"failed"`
	TTFT       Latency `json:"ttft"`
	TPOT       Latency `json:"tpot"`
	E2E        Latency `json:"e2el"`
	// Command is the servesim command line of the same run.
	Command string `json:"command"`
}

// ms is seconds x in milliseconds, nil when not finite (finite).
func ms(x float64) *float64 { return finite(1000 * x) }

// Bench runs the request's server once, as `servesim bench` does: an open
// loop at rate requests/s when clients is 0, else a closed loop of
// clients (every request queued at time 0, clients in flight).
func Bench(r Request, rate float64, clients int) (*Point, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	switch {
	case clients < 0 || clients > MaxClients:
		return nil, fieldErr("clients", clients, fmt.Sprintf("must be in [0, %d]", MaxClients))
	case clients == 0 && (!(rate > 0) || math.IsInf(rate, 0) || rate > 1e5):
		return nil, fieldErr("rate", rate, "must be a rate in (0, 100000] requests/s")
	case clients > 0:
		rate = math.Inf(1)
	}
	sc := r.scenario(true, rate, clients)
	cfg, err := benchConfig(r, sc)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	// A Point carries no time series and no inter-token latencies.
	cfg.Server, cfg.NoITL = capacity.WithoutSeries(cfg.Server), true
	res, err := sim.Run(cfg)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	p := &Point{Rate: finite(rate), Clients: clients, Throughput: res.RequestThroughput, Attainment: res.Attainment,
		Failed: res.Failed + res.Rejected, Command: BenchCommand(r, rate, clients)}
	fill := func(dst *Latency, pct func(float64) float64, n int) {
		if n == 0 {
			return
		}
		dst.P50, dst.P90, dst.P99 = ms(pct(50)), ms(pct(90)), ms(pct(99))
	}
	fill(&p.TTFT, res.TTFT().Percentile, res.TTFT().Count())
	fill(&p.TPOT, res.TPOT().Percentile, res.TPOT().Count())
	fill(&p.E2E, res.E2E().Percentile, res.E2E().Count())
	return p, nil
}

// Capacity is the answer of `servesim capacity --json` for the request:
// the lambda* bracket and every probe.
type Capacity struct {
	Criteria capacity.Criteria `json:"criteria"`
	// Lower and Upper bracket lambda*, requests/s (Upper null when even
	// the largest rate passed).
	Lower    *float64         `json:"lower"`
	Upper    *float64         `json:"upper"`
	Points   []capacity.Point `json:"points"`
	Runs     int              `json:"runs"`
	Requests int64            `json:"requests"`
	Command  string           `json:"command"`
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// criteria is the acceptance rule of capacity, tp and plan.
func (r Request) criteria() capacity.Criteria {
	return capacity.DefaultCriteria(r.scenario(false, r.Rate, 0).SLO.Sim(), r.Target)
}

// Search finds lambda* of the request's server under its SLO, as
// `servesim capacity` does with the flags of CapacityCommand. progress,
// when not nil, is called after each probe with the rate probed.
func Search(r Request, progress func(rate float64)) (*Capacity, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	sc := r.scenario(false, r.Rate, 0)
	base, err := sc.Config()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	crit := r.criteria()
	s := capacity.Search{
		Base: base, Criteria: crit, Seed: sc.Seed,
		Replications: r.Replications, BoundaryReplications: r.BoundaryReplications,
		Start: base.Workload.Arrivals.MeanRate(), Precision: r.Precision,
	}
	if progress != nil {
		s.Progress = func(p capacity.Point) { progress(p.Rate) }
	}
	res, err := s.Run()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	return &Capacity{Criteria: crit, Lower: finite(res.Lower), Upper: finite(res.Upper), Points: res.Points,
		Runs: res.Runs, Requests: res.Requests, Command: CapacityCommand(r)}, nil
}

// SweepPoints is the number of rates of the page's open-loop sweep: the
// catalog's sweep_points, which the page reads from catalog.json.
const SweepPoints = 8

// SweepRates returns n rates, requests/s, spread evenly from a fifth of
// lambda* to 1.5 times it (lo and hi its bracket; hi +Inf or lo 0 use
// the other end, and the request's rate when neither is known), so a
// latency curve shows its knee.
func SweepRates(lo, hi float64, n int) []float64 {
	c := (lo + hi) / 2
	switch {
	case math.IsInf(hi, 1) || hi <= 0:
		c = lo
	case lo <= 0:
		c = hi
	}
	if !(c > 0) || n < 2 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		x := c * (0.2 + 1.3*float64(i)/float64(n-1))
		out[i] = math.Round(x*1000) / 1000
	}
	return out
}

// ClientLevels returns the closed loop's concurrencies to try: powers of
// two up to the larger of the request's clients and its engine's
// max-num-seqs times replicas, at most MaxClients.
func ClientLevels(r Request) []int {
	top := r.Clients
	if sc := r.scenario(true, math.Inf(1), 1); sc.Server.MaxNumSeqs*r.Replicas > top {
		top = sc.Server.MaxNumSeqs * r.Replicas
	}
	top = min(top, MaxClients, r.Prompts)
	var out []int
	for c := 1; c <= top; c *= 2 {
		out = append(out, c)
	}
	return out
}

// ClosedCapacity is the teaching figure of a fixed-concurrency benchmark:
// among closed-loop points, the largest throughput of a run meeting the
// SLO target (Lower, requests/s) and the smallest throughput of a failing
// run above it (Upper, null when none failed). 0 when none passed.
func ClosedCapacity(target float64, points []Point) (lower float64, upper *float64) {
	for _, p := range points {
		if p.Attainment >= target && p.Failed == 0 {
			lower = max(lower, p.Throughput)
		}
	}
	for _, p := range points {
		if (p.Attainment < target || p.Failed > 0) && p.Throughput > lower && (upper == nil || p.Throughput < *upper) {
			v := p.Throughput
			upper = &v
		}
	}
	return lower, upper
}

// Versus is the TP = p against p replicas screen of `servesim tp`.
type Versus struct {
	Candidates []string    `json:"candidates"`
	Rows       []VersusRow `json:"rows"`
	FitsOneGPU bool        `json:"fits_one_gpu"`
	Command    string      `json:"command"`
}

// VersusRow is one candidate: its GPUs, whether it fits, and lambda* per
// GPU.
type VersusRow struct {
	Label       string   `json:"label"`
	TP          int      `json:"tp"`
	Replicas    int      `json:"replicas"`
	GPUs        int      `json:"gpus"`
	Fits        bool     `json:"fits"`
	Why         string   `json:"why,omitempty"`
	Lower       *float64 `json:"lower"`
	Upper       *float64 `json:"upper"`
	LowerPerGPU *float64 `json:"lower_per_gpu"`
	UpperPerGPU *float64 `json:"upper_per_gpu"`
}

// versusCandidates are TP = p on one engine against p engines of TP 1,
// p the request's TP (2 when it is 1).
func versusCandidates(r Request) string {
	p := max(r.TP, 2)
	return fmt.Sprintf("%dx1,1x%d", p, p)
}

// TPvsReplicas screens TP = p against p replicas of TP 1 per GPU, as
// `servesim tp --candidates px1,1xp` does.
func TPvsReplicas(r Request) (*Versus, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	cands, err := screen.ParseCandidates(versusCandidates(r))
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	sc := r.scenario(false, r.Rate, 0)
	eng, err := sc.EngineTemplate()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	w, err := sc.BuildWorkload()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	study := screen.Study{
		Engine: eng, Router: batching.Router(sc.Server.Router), Candidates: cands,
		Workload: w, Requests: sc.Requests, Warmup: sc.Warmup,
		Criteria: r.criteria(), Seed: sc.Seed, Replications: r.Replications, BoundaryReplications: r.BoundaryReplications,
		Start: w.Arrivals.MeanRate(), Precision: r.Precision, SummaryOnly: sc.SummaryOnly,
	}
	rep, err := study.Run()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	v := &Versus{FitsOneGPU: rep.FitsOneGPU, Command: TPCommand(r)}
	for _, row := range rep.Rows {
		vr := VersusRow{Label: fmt.Sprintf("TP=%d x %d", row.TP, row.Replicas), TP: row.TP, Replicas: row.Replicas, GPUs: row.GPUs, Fits: row.Feasible()}
		if row.ShapeErr != "" {
			vr.Why = row.ShapeErr
		} else if row.FitErr != "" {
			vr.Why = row.FitErr
		}
		if row.Search != nil {
			vr.Lower, vr.Upper = finite(row.Search.Lower), finite(row.Search.Upper)
			vr.LowerPerGPU, vr.UpperPerGPU = finite(row.LowerPerGPU), finite(row.UpperPerGPU)
		}
		v.Candidates = append(v.Candidates, vr.Label)
		v.Rows = append(v.Rows, vr)
	}
	return v, nil
}

// Plan finds the cheapest deployments for the request's workload at
// PlanRate over PlanGPUs, TP 1, 2, 4 and 8 and bf16, as `servesim plan`
// does with the flags of PlanCommand. Its JSON is the CLI's
// (--format json).
func Plan(r Request) (*plan.Result, error) { return planRounds(r, planRound) }

// planRounds is Plan with plan.Search.Round round.
func planRounds(r Request, round int) (*plan.Result, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	sc := r.scenario(false, r.PlanRate, 0)
	eng, err := sc.EngineTemplate()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	w, err := sc.BuildWorkload()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	pl := plan.NewPlan(eng.Deployment.Model)
	pl.Engine = eng
	// Knobs the page leaves at 0 follow each searched GPU's vllm serve
	// default (batching.Serve), as servesim plan's do.
	if r.MaxNumSeqs == 0 {
		pl.Engine.MaxNumSeqs = 0
	}
	if r.MaxNumBatchedTokens == 0 {
		pl.Engine.MaxNumBatchedTokens = 0
	}
	pl.Router = batching.Router(sc.Server.Router)
	pl.MaxModelLen = eng.MaxModelLen
	pl.Objective = plan.Objective{Workload: w, Rate: r.PlanRate, Criteria: r.criteria()}
	pl.Search.Requests, pl.Search.Warmup = sc.Requests, sc.Warmup
	pl.Search.Seed = sc.Seed
	pl.Search.Replications, pl.Search.BoundaryReplications = r.Replications, r.BoundaryReplications
	pl.Search.MaxReplicas = planMaxReplicas
	pl.Search.Round = round
	prices := plan.DefaultPrices()
	for _, n := range r.PlanGPUs {
		g, _ := cost.GPU(n)
		price, ok := prices[n]
		if !ok {
			return nil, fieldErr("plan_gpus", n, "has no built-in price (prices: "+prices.String()+"): drop it, or plan with the CLI's --prices")
		}
		pl.Space.GPUs = append(pl.Space.GPUs, plan.GPUOption{GPU: g, PricePerHour: price})
	}
	pl.Space.TP = planTP
	pl.Space.Precisions = []cost.Precision{cost.BF16}
	res, err := pl.Run()
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	return res, nil
}

// planTP and planMaxReplicas bound the page's plan: the CLI's default TP
// degrees, and few enough replicas that a plan answers in seconds.
var planTP = []int{1, 2, 4, 8}

const planMaxReplicas = 16

// planRound is the page's plan.Search.Round (servesim plan --round): one
// candidate at a time, cheapest cost bound first, so the cheapest cost
// found prunes every later candidate that cannot beat it. The page runs
// one simulation at a time, so the CLI's rounds of 8 (its candidates'
// searches side by side on its cores) would only run what pruning could
// skip. The winner is the same (plan.Solve; TestPlanRoundSameWinner);
// the table lists fewer of the dearer candidates.
const planRound = 1

// Profile says which efficiency profile priced the request's GPU: the
// built-in one (cost.DefaultProfile), where its numbers come from, and
// its measured errors.
type Profile struct {
	GPU        string          `json:"gpu"`
	Provenance cost.Provenance `json:"provenance"`
	Bandwidth  float64         `json:"bandwidth"`
	GEMMMax    float64         `json:"gemm_max"`
	// Errors are the profile's measured error bands (cost.MeasuredError),
	// and where the per-regime tables are.
	Errors string `json:"errors"`
	// PricedBy is the line bench, capacity, tp and plan print
	// (cost.Profile.Pricing): fitted, TRANSFERRED, DATASHEET or BORROWED.
	PricedBy string `json:"priced_by"`
}

// ProfileOf returns the profile that prices the request's GPU.
func ProfileOf(r Request) (*Profile, error) {
	g, err := cost.GPU(r.GPU)
	if err != nil {
		return nil, fieldErr("gpu", fmt.Sprintf("%q", r.GPU), "is not in the catalog")
	}
	p := cost.DefaultProfile(g)
	bands := cost.MeasuredError(p)
	text := make([]string, 0, len(bands)+1)
	for _, b := range bands {
		text = append(text, b.String())
	}
	if len(text) == 0 {
		text = append(text, "none measured")
	}
	text = append(text, "per GPU, TP and regime: docs/fidelity.md")
	return &Profile{GPU: r.GPU, Provenance: p.Provenance, Bandwidth: p.Bandwidth, GEMMMax: p.GEMM.Max,
		Errors: strings.Join(text, "; "), PricedBy: p.Pricing()}, nil
}

// Models lists the page's model menu: the catalog's names, then every
// registry checkpoint (hfmodels) whose config the cost model reads, by its
// Hugging Face id, as `servesim bench --model ID` takes it.
func Models() []string {
	names := cost.ModelNames()
	for _, e := range hfmodels.Entries() {
		if _, err := e.Model(); err == nil {
			names = append(names, e.ID)
		}
	}
	return names
}

// GPUs lists the catalog's GPUs.
func GPUs() []string { return cost.GPUNames() }

// pricedGPUs are the GPUs with a built-in price, the plan's choices.
func pricedGPUs() []string { return plan.DefaultPrices().Names() }
