package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/plan/planplot"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/vllmbench"
)

const planUsage = `Usage: servesim plan [SCENARIO.yaml] [flags]

Finds the cheapest deployment of --model that serves --request-rate
requests/s of the workload under the SLO (--goodput, --slo-target): for
every GPU type, TP degree (and, for a mixture-of-experts model, data- and
expert-parallel setting), max-num-seqs, max-num-batched-tokens, chunked
prefill setting and precision of the search space it checks the shape and
the memory fit, bounds what the roofline allows, searches lambda* of one
replica, and then finds the fewest replicas behind the router that pass at
the target rate by simulating them together (the router's measured
balance, not a division). Candidates whose cheapest possible cost exceeds
a cost already found are pruned without changing the winner.

It prints the ranked table (cheapest first; ties reported), why each
rejected candidate failed, and the vllm serve and vllm bench serve command
lines of the winners; --format json or csv for machines, --plot FILE for
the cost/latency frontier (.svg or .png).

The workload, engine template and SLO flags are those of 'servesim bench';
--request-rate is the target rate. With a scenario file, the model, engine
template, workload and SLO come from the file, and its plan: block gives
the search space (see 'go doc github.com/servesim/servesim/scenario.Plan');
plan flags given on the command line override the block. Prices default
to a public on-demand list (see --prices); GPUs without a built-in price
need one.

With --policies "POLICY;POLICY;...", every deployment on the plan's
frontier then runs under every policy on one day (by default the day
whose busiest hour is --request-rate), and they are ranked by the day's
dollars at --attainment, as 'servesim day --rank' ranks them; a bare
"fixed" holds the plan's count all day (docs/day.md). With
--kv-offloading-size (--kv-offloading-backend, --pcie-bandwidth) the
plan's engines offload, and the day runs every deployment and policy
with that offloading and without it.
`

// runPlan is `servesim plan`.
func runPlan(args []string, e *env) error {
	var o vllmbench.Flags
	var p plan.Flags
	var dayFlags fleet.PlanDayFlags
	var group cliflag.Group
	pos, err := parseBenchStyle("plan", planUsage, args, e, &o, func(fs *flag.FlagSet) cliflag.Group {
		group = p.Define(fs)
		group.Names = append(group.Names, dayFlags.Define(fs)...)
		return group
	})
	if err != nil {
		return err
	}
	switch p.Format {
	case "table", "json", "csv":
	default:
		return fmt.Errorf("plan: --format %q: want table, json or csv", p.Format)
	}
	if p.Plot != "" {
		if _, err := chart.Format(p.Plot); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	for _, f := range []string{"tensor-parallel-size", "tp", "replicas", "data-parallel-size", "dp", "enable-expert-parallel", "server", "pipeline-parallel-size"} {
		if o.Given[f] {
			return fmt.Errorf("plan: --%s: the plan chooses the deployment (--tp-degrees, --dp-degrees, --expert-parallel-options, --pipeline-parallel-options, --pd-options, --gpus)", f)
		}
	}
	sc, err := o.FileScenario(pos, group)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	pl, err := plan.FromScenario(sc)
	if err != nil {
		return fmt.Errorf("plan: %s", vllmbench.FlagFieldError(err))
	}
	if err := p.Configure(&pl, sc.Plan, sc.Server.Topology, o.Given); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	pl.ServedModelName = o.ServedName
	day, err := dayFlags.Day(o.Given, p.Format, pl.Search.MaxReplicas, pl.Search.Seed)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if day != nil {
		// The engine's KV offloading (--kv-offloading-size and the rest,
		// typed): the day runs every deployment with it and without.
		day.KVOffload = pl.Engine.KVOffload
	}

	prog := progress.Start(e.stderr, e.tty && !o.Quiet, "planning", 0) // a spinner with the elapsed time
	res, err := pl.Run()
	prog.Stop()
	if err != nil {
		file := ""
		if len(pos) == 1 {
			file = pos[0]
		}
		return fmt.Errorf("plan: %w", plan.FlagFieldError(err, file, o.Given))
	}
	if p.Plot != "" {
		var b bytes.Buffer
		format, _ := chart.Format(p.Plot)
		if err := planplot.Write(&b, res, format); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
		if err := os.WriteFile(p.Plot, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
	}
	switch p.Format {
	case "json":
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		_, err = e.stdout.Write(append(b, '\n'))
		return err
	case "csv":
		return res.WriteCSV(e.stdout)
	}
	if err := res.WriteText(e.stdout, sc.ProbedWorkload(), pl.Space.GPUs); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if day != nil {
		pd, err := fleet.RankPlan(pl, res, *day)
		if err == nil {
			fmt.Fprintln(e.stdout)
			err = pd.Write(e.stdout, fmt.Sprintf("%s, %.4g h of a day peaking at %.2f req/s", pl.Model.Name, day.Hours, slices.Max(pd.Options.Day.Rates)))
		}
		if err != nil {
			return fmt.Errorf("plan: --policies: %w", err)
		}
	}
	return nil
}
