package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// runBench is `servesim bench`.
func runBench(args []string, e *env) error {
	var o benchOptions
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
		return fmt.Errorf("bench: %s", benchFieldError(err))
	}
	cfg.TokenSteps = o.SaveDetailed && sc.Server.Kind != scenario.KindFCFS

	vllmbench.WritePreamble(e.stdout, &o.Options, sc)
	p := e.showProgress(o.quiet || o.disableTqdm, "simulating", 0)
	res, err := sim.Run(cfg)
	p.Stop()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := vllmbench.WriteSummary(e.stdout, &o.Options, sc, res); err != nil {
		return err
	}
	reportFailures(e.stderr, &o, sc, res)
	if o.saveResult || o.AppendResult {
		path, err := vllmbench.SaveResult(&o.Options, sc, res)
		if err != nil {
			return fmt.Errorf("bench: --save-result: %w", err)
		}
		if !o.quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", path)
		}
	}
	if o.report != "" {
		if err := reportBench(o.report, &o, sc, res); err != nil {
			return fmt.Errorf("bench: --report %s: %w", o.report, err)
		}
		if !o.quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", o.report)
		}
	}
	return nil
}

// reportFailures says on stderr why requests failed: a warning when none
// completed (vLLM warns "All requests failed"; servesim knows the limits
// they broke), otherwise a note, unless --quiet. The summary and the JSON
// stay as vLLM writes them.
func reportFailures(w io.Writer, o *benchOptions, sc *scenario.Scenario, res *sim.Result) {
	if res.StoppedBy != sim.StopNone {
		fmt.Fprintf(w, "servesim: warning: the run stopped early (%s): the statistics cover the %d measured requests that ended, of %d sent\n",
			res.Stability.Reason, res.Completed+res.Failed+res.Rejected, res.Measured)
	}
	failed := res.Failed + res.Rejected
	if failed == 0 {
		return
	}
	why := vllmbench.FailureReason(sc, true)
	switch {
	case res.Completed == 0:
		fmt.Fprintf(w, "servesim: warning: all %d requests failed: %s\n", failed, why)
	case !o.quiet:
		fmt.Fprintf(w, "servesim: note: %d of %d requests failed: %s\n", failed, res.Measured, why)
	}
}

// parseBenchStyle parses the arguments of a subcommand that takes bench's
// flags plus, when define is not nil, its own (define adds them and returns
// their help group): it reads argparse's conventions (argparse), answers
// -h, reports flag errors, records which flags were given and notes on
// stderr those that do nothing here. It returns the remaining positional
// arguments.
func parseBenchStyle(name, usage string, args []string, e *env, o *benchOptions, define func(*flag.FlagSet) flagGroup) ([]string, error) {
	fs, groups := benchFlags(name, o)
	if define != nil {
		groups = append([]flagGroup{define(fs)}, groups...)
	}
	args, err := vllmbench.Argparse(fs, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (see servesim %s -h)", name, err, name)
	}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, usage)
		printFlags(e.stdout, fs, groups)
		return nil, errHelp
	}
	if err != nil {
		return nil, err
	}
	o.set = setFlags(fs)
	o.Given = o.set
	if !o.quiet {
		o.Notes = e.stderr
	}
	if err := o.mergeAliases(fs, e.stderr); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	vllmbench.NoteNoEffect(e.stderr, o.set, o.quiet)
	return pos, nil
}

// mergeAliases folds each second name of a setting (-tp, -dp,
// --kv-cache-memory-bytes, --endpoint-type,
// --common-prefix-len) into the first. Both names given with different
// values is an error naming both. Old names get a note on stderr.
func (o *benchOptions) mergeAliases(fs *flag.FlagSet, stderr io.Writer) error {
	for _, a := range [][2]string{{"tensor-parallel-size", "tp"}, {"kv-cache-memory", "kv-cache-memory-bytes"},
		{"data-parallel-size", "dp"}, {"backend", "endpoint-type"},
		{"random-prefix-len", "common-prefix-len"}, {"quantization", "q"}, {"pipeline-parallel-size", "pp"}} {
		if !o.set[a[0]] || !o.set[a[1]] {
			continue
		}
		if v0, v1 := fs.Lookup(a[0]).Value.String(), fs.Lookup(a[1]).Value.String(); v0 != v1 {
			return fmt.Errorf("%s %s and %s %s set the same thing to different values: give one", flagSpelling(a[0]), v0, flagSpelling(a[1]), v1)
		}
	}
	if o.set["tp"] {
		o.Server.TensorParallelSize = o.tpAlias
	}
	if o.set["kv-cache-memory-bytes"] {
		o.Server.KVCacheMemory = scenario.Bytes(o.kvBytesAlias)
	}
	if o.set["dp"] {
		o.Server.DataParallelSize = o.dpAlias
	}
	if o.set["q"] {
		o.Server.Quantization = o.qAlias
	}
	if o.set["endpoint-type"] {
		o.Backend = o.endpointType
	}
	if o.set["common-prefix-len"] {
		o.RandomPrefixLen = o.commonPrefixLen
	}
	var old []string
	for _, a := range [][2]string{{"endpoint-type", "backend"}, {"common-prefix-len", "random-prefix-len"}} {
		if o.set[a[0]] {
			old = append(old, fmt.Sprintf("--%s is the old name of --%s", a[0], a[1]))
		}
	}
	if len(old) > 0 && !o.quiet {
		fmt.Fprintf(stderr, "servesim: note: %s (current vLLM rejects the old name)\n", strings.Join(old, "; "))
	}
	return nil
}

// flagSpelling writes a flag as vLLM spells it: its short names (-tp, -dp,
// -pp, -q) with one dash, the others with two.
func flagSpelling(name string) string {
	if len(name) <= 2 {
		return "-" + name
	}
	return "--" + name
}

// withPercentile returns ps with p added when missing, sorted.
func withPercentile(ps []float64, p float64) []float64 {
	if slices.Contains(ps, p) {
		return ps
	}
	out := append(slices.Clone(ps), p)
	slices.Sort(out)
	return out
}
