package report

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/vllmbench"
)

// RunFlags are the flags of servesim run and servesim merge: the output
// of a run file (Write), and run's shard, workers and summary mode.
type RunFlags struct {
	format, plot, report string
	// Shard is --shard (run's): the jobs to run, "" for all (or the
	// scheduler's).
	Shard       string
	Workers     int
	SummaryOnly bool
	Quiet       bool
	// Notes, when set, is where "servesim: wrote FILE" goes for each
	// file written (stderr, as bench says it).
	Notes io.Writer
}

// Define puts the flags on fs (run's, withShard, or merge's) and returns
// their help groups.
func (o *RunFlags) Define(fs *flag.FlagSet, withShard bool) []cliflag.Group {
	formatHelp := "output `format`: table, csv or json (default table)"
	if withShard {
		formatHelp = "output `format`: table, csv or json (default table; json with --shard)"
	}
	fs.StringVar(&o.format, "format", "", formatHelp)
	fs.StringVar(&o.plot, "plot", "", "also draw the sweep to `FILE`.png or .svg: throughput-latency, ITL by concurrency, attainment against rate")
	fs.StringVar(&o.report, "report", "", "also write a self-contained HTML report of the results to `FILE` (as servesim report draws it)")
	names := []string{"format", "plot", "report"}
	if withShard {
		fs.StringVar(&o.Shard, "shard", "", "run only shard `i/n` of the jobs and write JSON for servesim merge")
		fs.Var(cliflag.Int{P: &o.Workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
		fs.BoolVar(&o.SummaryOnly, "summary-only", false, vllmbench.SummaryOnlyHelp(", as summary_only: true does, whatever the file says"))
		names = append(names, "shard", "workers", "summary-only")
	}
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar")
	return []cliflag.Group{{Title: "flags", Names: append(names, "quiet")}}
}

// CheckShard checks the output flags of a shard, which writes JSON for
// servesim merge (its default format).
func (o *RunFlags) CheckShard() error {
	if o.format == "" {
		o.format = "json"
	}
	if o.format != "json" {
		return fmt.Errorf("--shard writes JSON for servesim merge; drop --format %s", o.format)
	}
	if o.plot != "" {
		return errors.New("--plot needs the whole sweep: plot from servesim merge instead of a shard")
	}
	if o.report != "" {
		return errors.New("--report needs the whole sweep: write it from servesim merge instead of a shard")
	}
	return nil
}

// Check validates --format and --plot.
func (o *RunFlags) Check() error {
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

// Write prints the results (their rows: Rows) in the chosen format and
// draws the plot and the report page asked for.
func (o *RunFlags) Write(w io.Writer, out *scenario.RunFile, rows []Row) error {
	var err error
	switch o.format {
	case "json":
		err = out.WriteJSON(w)
	case "csv":
		err = WriteRunCSV(w, out, rows)
	default:
		err = WriteRunTable(w, out, rows)
	}
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := WriteSweepPlot(o.plot, out); err != nil {
			return fmt.Errorf("--plot %s: %w", o.plot, err)
		}
		o.wrote(o.plot)
	}
	if o.report != "" {
		if err := WriteRunPage(o.report, out); err != nil {
			return fmt.Errorf("--report %s: %w", o.report, err)
		}
		o.wrote(o.report)
	}
	return nil
}

// wrote says on o.Notes that path was written.
func (o *RunFlags) wrote(path string) {
	if o.Notes != nil {
		fmt.Fprintf(o.Notes, "servesim: wrote %s\n", path)
	}
}
