package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

const capacityUsage = `Usage: servesim capacity [SCENARIO.yaml] [flags]

Finds lambda*, the largest open-loop request rate at which every one of
--replications independent runs meets the SLO: joint attainment >= q
(failed requests count as misses), failures <= 0.1%, the client keeping
up, and no sustained queue growth. It doubles or halves from --start to a
pass/fail bracket, then bisects to --precision, with
--boundary-replications runs near the answer, and prints the bracket and
every probe with each run's attainment — never a single made-up number.
The minimum over runs is a conservative envelope, not a confidence
interval.

The workload, server and SLO come from a scenario file (its slo: block,
arrival process and requests; a sweep: in it is ignored) or, without one,
from the same flags as 'servesim bench' (the SLO from --goodput and
--slo-target).

With --grid r1,r2,... it evaluates those rates instead of searching; add
--shard i/n to run only jobs j = point*replications + replication with
j mod n = i and write JSON, and --merge FILE... to join shard files.
`

// capacityOptions are the flags of `servesim capacity` beyond bench's.
type capacityOptions struct {
	capacity.Flags   // the search's: --start, --precision, --replications, ...
	grid, shard      string
	merge, asJSON    bool
	report           string // --report (a bench-style flag): an HTML report to write
	specK, specRates string // --spec-k, --spec-rates (capacity_spec.go)
}

func (c *capacityOptions) define(fs *flag.FlagSet) cliflag.Group {
	c.Flags.Define(fs)
	fs.StringVar(&c.grid, "grid", "", "comma-separated `rates` to evaluate instead of searching")
	fs.StringVar(&c.shard, "shard", "", "with --grid: run only shard `i/n` of the jobs and write JSON for --merge")
	fs.BoolVar(&c.merge, "merge", false, "the arguments are --grid --shard JSON files to join into one table")
	fs.BoolVar(&c.asJSON, "json", false, "write the result as JSON instead of a table")
	fs.StringVar(&c.specK, "spec-k", "", "search these num_speculative_tokens `k,...` (0: off, first) with --speculative-config's method and acceptance, and report where each k stops paying (docs/speculative.md)")
	fs.StringVar(&c.specRates, "spec-rates", "", "with --spec-k: the `rates` of the crossover comparison (default: 1/6 to 2 times the largest lambda* bracket)")
	return cliflag.Group{Title: "capacity flags", Names: []string{"start", "precision", "replications", "boundary-replications", "grid", "shard", "merge", "json", "workers", "spec-k", "spec-rates"}}
}

// runCapacity is `servesim capacity`.
func runCapacity(args []string, e *env) error {
	var o vllmbench.Flags
	var c capacityOptions
	var own cliflag.Group
	pos, err := parseBenchStyle("capacity", capacityUsage, args, e, &o, func(fs *flag.FlagSet) cliflag.Group {
		own = c.define(fs)
		return own
	})
	if err != nil {
		return err
	}
	if c.merge {
		if o.Given["summary-only"] {
			return errors.New("capacity: --summary-only: --merge joins the shards' verdicts and runs nothing; give it to the --grid --shard runs")
		}
		return mergeGrid(pos, c, e)
	}
	sc, err := o.FileScenario(pos, own)
	if err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	base, err := sc.Config()
	if err != nil {
		return fmt.Errorf("capacity: %s", vllmbench.FlagFieldError(err))
	}
	if !sc.SLO.Set() {
		return errors.New("capacity: no SLO to search under: give --goodput ttft:MS tpot:MS (or an slo: block in the scenario)")
	}
	crit := capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target)
	rate := 0.0
	if base.Workload.Arrivals != nil {
		rate = base.Workload.Arrivals.MeanRate()
	}
	if err := c.Resolve(sc.Replications, rate); err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	c.report = o.Report
	if c.specK != "" && (c.grid != "" || c.report != "") {
		return errors.New("capacity: --spec-k runs its own searches and crossover grid: leave out --grid and --report")
	}
	if c.grid != "" {
		return runGrid(sc, base, crit, c, e)
	}
	if c.shard != "" {
		return errors.New("capacity: --shard applies to --grid (a search is sequential)")
	}
	s := capacity.Search{
		Base: base, Criteria: crit, Seed: sc.Seed,
		Replications: c.Replications, BoundaryReplications: c.BoundaryReplications,
		Start: c.Start, Precision: c.Precision, Workers: c.Workers,
	}
	if c.specK != "" {
		return runSpecSweep(sc, s, c, e, e.tty && !o.Quiet)
	}
	if c.specRates != "" {
		return errors.New("capacity: --spec-rates applies to --spec-k")
	}
	p := progress.Start(e.stderr, e.tty && !o.Quiet, "searching", 0)
	s.Progress = func(pt capacity.Point) { p.Add(len(pt.Runs)) }
	res, err := s.Run()
	p.Stop()
	if err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	rep := capacity.Report{Criteria: crit, Points: res.Points, Lower: res.Lower, Upper: res.Upper, Runs: res.Runs, Requests: res.Requests}
	if err := writeCapacity(e, o.Report, sc, rep, c.asJSON); err != nil || c.asJSON {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "search: %d runs, %d simulated requests\n", res.Runs, res.Requests)
	return err
}

// writeCapacity writes a search's or a grid's report on sc: the --report
// page, when asked for, then the report as JSON or text.
func writeCapacity(e *env, page string, sc *scenario.Scenario, rep capacity.Report, asJSON bool) error {
	if page != "" {
		if err := report.WriteCapacityPage(page, sc.Name, sc.Server.String(), rep.Criteria, rep.Points, rep.Lower, rep.Upper); err != nil {
			return fmt.Errorf("capacity: --report %s: %w", page, err)
		}
		fmt.Fprintf(e.stderr, "servesim: wrote %s\n", page)
	}
	rep.Scenario, rep.Server, rep.Workload, rep.PricedBy = sc.Name, sc.Server.String(), sc.ProbedWorkload(), sc.Pricing()
	if asJSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}

// runGrid evaluates a fixed list of rates, or one shard of its jobs.
func runGrid(sc *scenario.Scenario, base sim.Config, crit capacity.Criteria, c capacityOptions, e *env) error {
	rates, err := cliflag.FloatList(c.grid)
	if err != nil {
		return fmt.Errorf("capacity: --grid %q: %v", c.grid, err)
	}
	g := capacity.RateGrid{Base: base, Criteria: crit, Rates: rates, Replications: c.Replications, Seed: sc.Seed, Workers: c.Workers}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("capacity: --grid %q: %w", c.grid, err)
	}
	if n := len(rates) * c.Replications; n > scenario.MaxJobs {
		return fmt.Errorf("capacity: --grid of %d rates × %d replications = %d runs exceed %d, the most a grid may run (every run's result is kept)", len(rates), c.Replications, n, scenario.MaxJobs)
	}
	shard, sharded, err := e.shard("capacity", c.shard)
	if err != nil {
		return err
	}
	results, err := g.Run(shard)
	if err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	if sharded && c.report != "" {
		return errors.New("capacity: --report needs the whole grid: write it from capacity --merge instead of a shard")
	}
	if sharded {
		return writeGridShard(e.stdout, sc, crit, rates, c.Replications, shard, results)
	}
	return writeCapacity(e, c.report, sc, capacity.NewGridReport(crit, results), c.asJSON)
}

func writeGridShard(w io.Writer, sc *scenario.Scenario, crit capacity.Criteria, rates []float64, reps int, sh jobs.Shard, results []capacity.JobResult) error {
	g := capacity.NewGridShard(sc.Name, sc.Server.String(), sc.ProbedWorkload(), crit, rates, reps, sh, results)
	g.PricedBy = sc.Pricing()
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// mergeGrid joins --grid --shard files (capacity.MergeGrid) and prints the
// table.
func mergeGrid(files []string, c capacityOptions, e *env) error {
	if len(files) == 0 {
		return errors.New("capacity: --merge needs the shard files as arguments")
	}
	shards := make([]capacity.GridShard, len(files))
	for i, f := range files {
		var err error
		if shards[i], err = report.ReadGridShard(f); err != nil {
			return fmt.Errorf("capacity: --merge: %w", err)
		}
	}
	rep, err := capacity.MergeGridReport(shards, files)
	if err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	if c.asJSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}
