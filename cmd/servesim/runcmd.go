package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

const runUsage = `Usage: servesim run SCENARIO.yaml [flags]

Runs the scenario's replications at every sweep point, in parallel, and
prints one row per point: a table (default), CSV or the JSON of every run.
The YAML schema is documented in docs/cli.md and in 'go doc
github.com/servesim/servesim/scenario'. Examples live in examples/scenarios/.

With --shard i/n only the jobs j (point-major: j = point*replications +
replication) with j mod n = i run, and the output is JSON for
'servesim merge'. Each shard is a deterministic function of the file and i,
so it runs unchanged as a Kubernetes Indexed Job or a Slurm array: without
--shard, the shard comes from JOB_COMPLETION_INDEX and JOB_COMPLETIONS, or
from SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT
(docs/scale-out.md).
`

// runScenario is `servesim run`.
func runScenario(args []string, e *env) error {
	var o report.RunFlags
	fs := cliflag.NewFlagSet("run")
	groups := o.Define(fs, true)
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, runUsage)
		cliflag.Print(e.stdout, fs, groups)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("run: want one scenario file, got %d arguments (usage: servesim run SCENARIO.yaml [flags])", len(pos))
	}
	shard, sharded, err := e.shard("run", o.Shard)
	if err != nil {
		return err
	}
	if sharded {
		if err := o.CheckShard(); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	if err := o.Check(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	load := scenario.Load
	if o.SummaryOnly {
		load = scenario.LoadSummaryOnly
	}
	sc, err := load(pos[0])
	if err != nil {
		return err
	}
	x, err := sc.Experiment()
	if err != nil {
		return err
	}
	out, err := sc.NewRunFile(x, shard)
	if err != nil {
		return err
	}
	// The table and the plots use p99 whatever the scenario asks for.
	p99 := func(c *sim.Config) { c.AddPercentile(99) }
	p := progress.Show(e.stderr, e.tty, o.Quiet, "running "+pos[0], shard.Size(x.Size()))
	out.Results, err = x.RunJobs(shard, o.Workers, p99, func() { p.Add(1) })
	p.Stop()
	if err != nil {
		return fmt.Errorf("run: %s: %w", pos[0], err)
	}
	rows, err := report.Rows(out)
	if err != nil {
		return err
	}
	for _, w := range report.AllFailed(sc.Param(), x, rows) {
		fmt.Fprintln(e.stderr, "servesim: warning: "+w)
	}
	o.Notes = e.stderr
	return o.Write(e.stdout, out, rows)
}
