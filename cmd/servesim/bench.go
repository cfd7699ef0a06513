package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// runBench is `servesim bench`.
func runBench(args []string, e *env) error {
	var o vllmbench.Flags
	pos, err := parseBenchStyle("bench", benchUsage, args, e, &o, nil)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("bench: unexpected argument %q (bench takes only flags; see servesim bench -h)", pos[0])
	}
	sc, err := o.Scenario()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	cfg, err := sc.Config()
	if err != nil {
		return fmt.Errorf("bench: %s", vllmbench.FlagFieldError(err))
	}
	cfg.TokenSteps = o.SaveDetailed && sc.Server.Kind != scenario.KindFCFS

	vllmbench.WritePreamble(e.stdout, &o.Options, sc)
	p := progress.Show(e.stderr, e.tty, o.Quiet || o.DisableTqdm, "simulating", 0)
	res, err := sim.Run(cfg)
	p.Stop()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := vllmbench.WriteSummary(e.stdout, &o.Options, sc, res); err != nil {
		return err
	}
	vllmbench.WriteFailures(e.stderr, o.Quiet, sc, res)
	if o.SaveResult || o.AppendResult {
		path, err := vllmbench.SaveResult(&o.Options, sc, res)
		if err != nil {
			return fmt.Errorf("bench: --save-result: %w", err)
		}
		if !o.Quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", path)
		}
	}
	if o.Report != "" {
		if err := reportBench(o.Report, &o, sc, res); err != nil {
			return fmt.Errorf("bench: --report %s: %w", o.Report, err)
		}
		if !o.Quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", o.Report)
		}
	}
	return nil
}

// parseBenchStyle parses the arguments of a subcommand that takes bench's
// flags plus, when define is not nil, its own (define adds them and returns
// their help group): it reads argparse's conventions (argparse), answers
// -h, reports flag errors, records which flags were given and notes on
// stderr those that do nothing here. It returns the remaining positional
// arguments.
func parseBenchStyle(name, usage string, args []string, e *env, o *vllmbench.Flags, define func(*flag.FlagSet) cliflag.Group) ([]string, error) {
	fs := cliflag.NewFlagSet(name)
	groups := o.Define(fs)
	if define != nil {
		groups = append([]cliflag.Group{define(fs)}, groups...)
	}
	args, err := vllmbench.Argparse(fs, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (see servesim %s -h)", name, err, name)
	}
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, usage)
		cliflag.Print(e.stdout, fs, groups)
		return nil, errHelp
	}
	if err != nil {
		return nil, err
	}
	if err := o.Resolve(fs, e.stderr); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	vllmbench.NoteNoEffect(e.stderr, o.Given, o.Quiet)
	return pos, nil
}

const benchUsage = `Usage: servesim bench [flags]

Simulates 'vllm bench serve' against a simulated 'vllm serve': the same flags
(argparse's way: --flag=value, underscores for dashes, unambiguous prefixes),
the same summary on stdout and, with --save-result, the same result JSON
(servesim's own fields under its "servesim" key). With no flags it sends
1000 requests of 1024 input and 128 output tokens at once (--request-rate inf,
vLLM's default) to llama-3.1-8b on one h100-sxm with vllm serve's defaults.
Connection and sampling flags are accepted; a note on stderr names those
that have no effect in a simulation.
`
