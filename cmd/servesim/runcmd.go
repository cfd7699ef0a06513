package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
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

// runOptions are the flags of `servesim run` and `servesim merge`.
type runOptions struct {
	format, plot, shard string
	report              string
	workers             int
	summaryOnly         bool
	quiet               bool
	// notes, when set, is where "servesim: wrote FILE" goes for each
	// file written (stderr, as bench says it).
	notes io.Writer
}

func (o *runOptions) define(fs *flag.FlagSet, withShard bool) []cliflag.Group {
	formatHelp := "output `format`: table, csv or json (default table)"
	if withShard {
		formatHelp = "output `format`: table, csv or json (default table; json with --shard)"
	}
	fs.StringVar(&o.format, "format", "", formatHelp)
	fs.StringVar(&o.plot, "plot", "", "also draw the sweep to `FILE`.png or .svg: throughput-latency, ITL by concurrency, attainment against rate")
	fs.StringVar(&o.report, "report", "", "also write a self-contained HTML report of the results to `FILE` (as servesim report draws it)")
	names := []string{"format", "plot", "report"}
	if withShard {
		fs.StringVar(&o.shard, "shard", "", "run only shard `i/n` of the jobs and write JSON for servesim merge")
		fs.Var(cliflag.Int{P: &o.workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
		fs.BoolVar(&o.summaryOnly, "summary-only", false, vllmbench.SummaryOnlyHelp(", as summary_only: true does, whatever the file says"))
		names = append(names, "shard", "workers", "summary-only")
	}
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	return []cliflag.Group{{Title: "flags", Names: append(names, "quiet")}}
}

// runScenario is `servesim run`.
func runScenario(args []string, e *env) error {
	var o runOptions
	fs := cliflag.NewFlagSet("run")
	groups := o.define(fs, true)
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
	shard, sharded, err := e.shard("run", o.shard)
	if err != nil {
		return err
	}
	if sharded {
		if o.format == "" {
			o.format = "json"
		}
		if o.format != "json" {
			return fmt.Errorf("run: --shard writes JSON for servesim merge; drop --format %s", o.format)
		}
		if o.plot != "" {
			return errors.New("run: --plot needs the whole sweep: plot from servesim merge instead of a shard")
		}
		if o.report != "" {
			return errors.New("run: --report needs the whole sweep: write it from servesim merge instead of a shard")
		}
	}
	if err := checkOutputFlags(&o); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	load := scenario.Load
	if o.summaryOnly {
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
	p99 := func(c *sim.Config) { c.Percentiles = withPercentile(c.Percentiles, 99) }
	p := progress.Show(e.stderr, e.tty, o.quiet, "running "+pos[0], shard.Size(x.Size()))
	out.Results, err = x.RunJobs(shard, o.workers, p99, func() { p.Add(1) })
	p.Stop()
	if err != nil {
		return fmt.Errorf("run: %s: %w", pos[0], err)
	}
	rows, err := report.Rows(out)
	if err != nil {
		return err
	}
	warnAllFailed(e.stderr, sc.Param(), x, rows)
	o.notes = e.stderr
	return writeRunOutput(e.stdout, out, rows, &o)
}

// warnAllFailed says on stderr which sweep points had no request complete
// in any replication, and why requests fail there. The output keeps the
// numbers as they are (zeros).
func warnAllFailed(w io.Writer, param string, x *scenario.Experiment, rows []report.Row) {
	for p, row := range rows {
		if p < len(x.Points) && row.Completed == 0 && row.Failed > 0 {
			at := ""
			if x.Points[p].Value != nil {
				at = fmt.Sprintf(" at %s = %s", param, pointText(x.Points[p]))
			}
			fmt.Fprintf(w, "servesim: warning: every request failed%s (%d): %s\n", at, row.Failed, vllmbench.FailureReason(x.Points[p].Scenario, false))
		}
	}
}

// checkOutputFlags validates --format and --plot.
func checkOutputFlags(o *runOptions) error {
	switch o.format {
	case "":
		o.format = "table"
	case "table", "csv", "json":
	default:
		return fmt.Errorf("--format %q: want table, csv or json", o.format)
	}
	if o.plot != "" {
		if _, err := chart.Format(o.plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	return nil
}

// writeRunOutput prints the results (their rows: report.Rows) in the
// chosen format and draws the plot.
func writeRunOutput(w io.Writer, out *scenario.RunFile, rows []report.Row, o *runOptions) error {
	var err error
	switch o.format {
	case "json":
		err = out.WriteJSON(w)
	case "csv":
		err = report.WriteRunCSV(w, out, rows)
	default:
		err = report.WriteRunTable(w, out, rows)
	}
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := report.WriteSweepPlot(o.plot, out); err != nil {
			return fmt.Errorf("--plot %s: %w", o.plot, err)
		}
		o.wrote(o.plot)
	}
	if o.report != "" {
		if err := report.WriteRunPage(o.report, out); err != nil {
			return fmt.Errorf("--report %s: %w", o.report, err)
		}
		o.wrote(o.report)
	}
	return nil
}

// wrote says on o.notes that path was written.
func (o *runOptions) wrote(path string) {
	if o.notes != nil {
		fmt.Fprintf(o.notes, "servesim: wrote %s\n", path)
	}
}

// pointText writes a sweep point's value, "-" for none.
func pointText(p scenario.Point) string {
	if p.Value == nil {
		return "-"
	}
	return scenario.FormatValue(p.Value)
}
