package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

const reportUsage = `Usage: servesim report FILE... [-o report.html] [flags]

Writes one self-contained HTML page about result files — any mix of the
JSON of 'servesim bench --save-result' (with --save-detailed: latency CDFs
and the engine's counters over time), 'servesim run --format json' and
'servesim merge', 'servesim capacity --json', and real 'vllm bench serve'
result JSONs (--save-result, --save-detailed, --append-result). It shows
each run's setup, vLLM's summary table, percentile bars and CDFs,
throughput and latency against rate or concurrency with the runs
overlaid (simulated against measured), SLO attainment against rate with
the lambda* bracket shaded, and the capacity probes.

The page inlines its CSS and SVG charts, runs no script and fetches
nothing: open it from a file:// URL, mail it, attach it to a review.
`

// runReport is `servesim report`.
func runReport(args []string, e *env) error {
	var o report.Flags
	fs := cliflag.NewFlagSet("report")
	groups := o.Define(fs)
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, reportUsage)
		cliflag.Print(e.stdout, fs, groups)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return errors.New("report: no result files given (usage: servesim report FILE... [-o report.html])")
	}
	runs, err := report.ReadRuns(pos...)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	opts, err := o.Options(runs)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if o.Out == "-" {
		return report.WriteHTML(e.stdout, runs, opts)
	}
	if err := report.WriteFile(o.Out, runs, opts); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if !o.Quiet {
		fmt.Fprintf(e.stderr, "servesim: wrote %s\n", o.Out)
	}
	return nil
}

// reportBench writes the report of one bench run to path: the run its
// result JSON with --save-detailed would give (report.FromBench, from
// the typed document), so the page has the setup, the CDFs and the
// counters over time.
func reportBench(path string, o *vllmbench.Flags, sc *scenario.Scenario, res *sim.Result) error {
	detailed := o.Options
	detailed.SaveDetailed = true
	now := time.Now()
	doc, err := vllmbench.NewDocument(&detailed, sc, res, now.Format(vllmbench.DateLayout), now)
	if err != nil {
		return err
	}
	r := report.FromBench(doc, res, "servesim bench")
	return report.WriteFile(path, []*report.Run{r}, report.Options{Title: "servesim bench: " + sc.Server.String()})
}
