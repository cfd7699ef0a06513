package fleet

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/plan"
)

// A PlanDay is a plan's deployments under each of a day's policies: one
// Case per deployment and policy, all on the same day (RankPlan).
type PlanDay struct {
	Options Options
	Cases   []Case
	// Deployments are the plan's deployments the cases run, in order;
	// Skipped names those a fleet cannot run, with why.
	Deployments []plan.Ranked
	Skipped     []string
	// Target is the day's attainment target (DaySpec.Attainment); Rate
	// the plan's target rate, requests/s.
	Target, Rate float64
	// Offload is the day's KV offloading (DaySpec.KVOffload): every
	// deployment and policy also runs with it, as a case of its own;
	// nil: none.
	Offload *batching.KVOffload
}

// deploymentName is a plan candidate's name, or its settings' label.
func deploymentName(x plan.Ranked) string {
	if x.Name != "" {
		return x.Name
	}
	return x.Settings.String()
}

// RankPlan returns the day d of plan p's deployments in res: every
// candidate on res's frontier (cost an hour, p99 TTFT, p99 TPOT; the
// cheapest first, so the winners lead) under every policy of d.Rank, as
// a pool of its own named "DEPLOYMENT POLICY": the candidate's engine
// (GPU, TP, engine settings) at its price per GPU-hour, drawing its GPU's
// DefaultPower. The SLO and lengths are the plan's (d.SLO and d.Lengths
// are set from p; d.Model, d.GPUs, d.TP, d.Policy and d.Prices are not
// used); the arrivals are d's (Poisson, or d.Trace's shape). A Fixed
// policy of 0 replicas (a bare "fixed") holds the candidate's plan count
// all day. With d.Rate 0 the day's mean rate is the one whose peak hour
// is the plan's target rate res.Rate: the plan sized its deployments for
// the peak. Disaggregated, pipeline-parallel and data-parallel candidates
// are skipped (a fleet replica is one colocated engine of data-parallel
// size 1), as is a candidate whose GPU has no power figures.
//
// With d.KVOffload set every deployment and policy runs twice on the
// day, so the ranking weighs offloading against its absence: without
// offloading (the candidate's engine with KVOffload cleared, named as
// above) and with a copy of d.KVOffload ("DEPLOYMENT POLICY OFFLOAD",
// OffloadLabel). Its errors name the flag-style field, as DaySpec's do.
func RankPlan(p plan.Plan, res *plan.Result, d DaySpec) (PlanDay, error) {
	if err := d.ValidateDay(); err != nil {
		return PlanDay{}, err
	}
	if d.KVOffload != nil {
		if err := d.KVOffload.Validate(); err != nil {
			return PlanDay{}, fielderr.Rename(err, offloadField)
		}
	}
	switch {
	case res == nil || len(res.Ranked) == 0:
		return PlanDay{}, invalidf("rank plan: the plan has no deployment that meets its objective")
	case len(d.Rank) == 0:
		return PlanDay{}, invalidf("rank plan: no policy to rank: give one or more")
	}
	if d.Rate == 0 {
		d.Rate = res.Rate / slices.Max(Scaled(1, Sinusoid(24, d.PeakHour, d.Trough)))
	}
	d.SLO, d.Lengths = p.Objective.Criteria.SLO, p.Objective.Workload.Lengths
	out := PlanDay{Target: d.Attainment, Rate: res.Rate, Offload: d.KVOffload}
	for _, x := range res.Frontier() {
		name := deploymentName(x)
		e, ok := x.Replica.(plan.Engine)
		var why string
		var pw Power
		switch {
		case x.Disagg != nil || !ok:
			why = "not one colocated engine"
		case e.Config.Deployment.DP > 1:
			why = fmt.Sprintf("data-parallel size %d", e.Config.Deployment.DP)
		default:
			var err error
			if pw, err = DefaultPower(e.Config.Deployment.GPU.Name); err != nil {
				why = err.Error()
			}
		}
		if why != "" {
			out.Skipped = append(out.Skipped, name+": "+why)
			continue
		}
		out.Deployments = append(out.Deployments, x)
		for _, np := range d.Rank {
			pol, pname := np.Policy, np.Name
			if pol.Kind == Fixed && pol.Replicas == 0 {
				pol.Replicas, pname = x.Replicas, fmt.Sprintf("fixed:%d", x.Replicas)
			}
			for _, v := range offloadVariants(e.Config, d.KVOffload) {
				pool := Pool{Name: name, Engine: v.engine, Policy: pol, Price: x.PricePerGPUHour, Power: pw}
				if err := pool.Validate(); err != nil {
					if fe := fielderr.Of(err); fe != nil && strings.HasPrefix(fe.Field, "kv_offload") {
						return PlanDay{}, fmt.Errorf("%s: %w", name, fielderr.Rename(err, offloadField))
					}
					return PlanDay{}, fmt.Errorf("policy %s: %w", np.Name, err)
				}
				out.Cases = append(out.Cases, Case{Name: name + " " + pname + v.suffix, Pools: []Pool{pool}})
			}
		}
	}
	if len(out.Cases) == 0 {
		return PlanDay{}, invalidf("rank plan: none of the plan's %d frontier deployments can run as a fleet (%v)", len(res.Frontier()), out.Skipped)
	}
	out.Options = d.options(nil)
	return out, nil
}

// offloadVariant is an engine a plan's deployment runs on the day, and
// what its case's name adds.
type offloadVariant struct {
	engine batching.Config
	suffix string
}

// offloadVariants returns the engines a deployment of engine e runs on
// the day: e alone without off; with off, e without offloading and e
// with a copy of off.
func offloadVariants(e batching.Config, off *batching.KVOffload) []offloadVariant {
	if off == nil {
		return []offloadVariant{{engine: e}}
	}
	without, with := e, e
	o := *off
	without.KVOffload, with.KVOffload = nil, &o
	return []offloadVariant{{engine: without}, {engine: with, suffix: " " + OffloadLabel(off)}}
}

// writeOffloadServe says how the serve line of deployment x changes for
// its cases with and without the day's offloading: the line is the
// plan's engine's, which may offload already.
func (pd PlanDay) writeOffloadServe(w io.Writer, x plan.Ranked) {
	if pd.Offload == nil {
		return
	}
	if e, ok := x.Replica.(plan.Engine); ok && e.Config.KVOffload != nil {
		fmt.Fprintf(w, "  without offload: drop %s\n", strings.Join(plan.OffloadArgs(e.Config.KVOffload), " "))
		if *e.Config.KVOffload == *pd.Offload {
			return
		}
		fmt.Fprintf(w, "  %s: instead %s\n", OffloadLabel(pd.Offload), strings.Join(plan.OffloadArgs(pd.Offload), " "))
		return
	}
	fmt.Fprintf(w, "  %s: add %s\n", OffloadLabel(pd.Offload), strings.Join(plan.OffloadArgs(pd.Offload), " "))
}

// OffloadLabel names KV offloading o in a case's name: "offload:SIZE"
// (GiB), with ":lmcache" for LMCache's backend.
func OffloadLabel(o *batching.KVOffload) string {
	s := fmt.Sprintf("offload:%g", o.Size)
	if o.Backend == batching.OffloadBackendLMCache {
		s += ":" + o.Backend
	}
	return s
}

// Rank runs every case on the day and ranks them (RankCases).
func (pd PlanDay) Rank() (Ranking, error) { return RankCases(pd.Options, pd.Cases, pd.Target) }

// Write ranks the cases and writes the ranking (Ranking.Write; what heads
// it), then each deployment's replicas at the plan's rate and its `vllm
// serve` line, and the deployments skipped.
func (pd PlanDay) Write(w io.Writer, what string) error {
	r, err := pd.Rank()
	if err != nil {
		return err
	}
	if err := r.Write(w, what); err != nil {
		return err
	}
	for _, x := range pd.Deployments {
		fmt.Fprintf(w, "%s x%d: $%.2f/h at the plan's %.4g req/s\n", deploymentName(x), x.Replicas, x.CostPerHour, pd.Rate)
		if x.Serve != "" {
			fmt.Fprintf(w, "  %s\n", x.Serve)
			pd.writeOffloadServe(w, x)
		}
	}
	for _, s := range pd.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	return nil
}
