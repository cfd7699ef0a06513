// Command servesim simulates LLM serving benchmarks: `servesim bench` is a
// drop-in for `vllm bench serve` that simulates the server instead of
// calling it, `servesim run` runs YAML scenarios with sweeps, tables and
// plots, and `servesim merge` joins the outputs of sharded runs.
//
// Results go to stdout, everything else (progress, notes, errors) to
// stderr. Every error prints one line, "servesim: ...", and exits with
// status 2. See `servesim help` and docs/cli.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/servesim/servesim/internal/gcfloor"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/jobs"
)

func main() {
	// Simulations keep little live and allocate much: a heap floor keeps
	// the collector from marking most of the time, and runs side by side
	// from collecting for each other (internal/gcfloor).
	gcfloor.Set()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// A command is one subcommand: its name, a one-line summary for help, and
// the function that runs it.
type command struct {
	name    string
	args    string // argument synopsis for help
	summary string
	run     func(args []string, env *env) error
}

// commands lists the subcommands in help order. A subcommand lives in its
// own file (bench.go, runcmd.go, merge.go) as a func(args, env) error that
// parses its own flag set, and is listed here; help lists exactly these.
// (Set in init because help refers to the list.)
var commands []command

func init() {
	commands = []command{
		{"bench", "[flags]", "simulate `vllm bench serve`: vLLM's flags, summary and result JSON", runBench},
		{"run", "SCENARIO.yaml [flags]", "run a YAML scenario (replications, a sweep) as a table, CSV or JSON, with plots", runScenario},
		{"merge", "SHARD.json... [flags]", "merge the JSON outputs of `servesim run --shard i/n` into one result set", runMerge},
		{"capacity", "[SCENARIO.yaml] [flags]", "find lambda*, the largest rate every replication sustains under an SLO (bracket and table)", runCapacity},
		{"tp", "[flags]", "pre-screen tensor-parallel deployments: shape, memory, lambda* per GPU, verdict", runTP},
		{"calibrate", "[RESULT.json...] [flags]", "fit a GPU's efficiency profile to real vLLM runs (vllm bench serve results, aiconfigurator rows)", runCalibrate},
		{"pd", "[flags]", "simulate disaggregated prefill/decode pools (xPyD) over a KV link: TTFT split, pool use, vllm serve lines", runPD},
		{"plan", "[SCENARIO.yaml] [flags]", "the cheapest deployment (GPU, TP, engine settings, precision, replicas) meeting an SLO at a target rate", runPlan},
		{"ui", "[flags]", "serve the browser page: the simulator in WebAssembly, lambda*, loops, TP and plan views", runUI},
		{"models", "[--grep TEXT]", "list the Hugging Face checkpoints --model takes without a config.json: params, layers, context, precision, source", runModels},
		{"day", "[flags]", "a day of traffic on an autoscaled fleet: replicas, latency, attainment and the bill (dollars, GPU-hours, kWh) by hour", runDay},
		{"report", "FILE... [-o FILE]", "write one self-contained HTML report of servesim and vllm bench serve result files", runReport},
		{"version", "", "print the binary's version, commit and Go toolchain", runVersion},
		{"help", "[COMMAND]", "show help for servesim or a command", runHelp},
	}
}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
	// tty is true when stderr is a terminal, so a progress bar may be drawn.
	tty bool
	// getenv reads the environment (os.Getenv): the schedulers' shard
	// variables.
	getenv func(string) string
}

// shard returns the shard of the jobs this process runs: --shard when
// given (flagValue), else the one a Kubernetes Indexed Job or a Slurm array
// assigned (jobs.ShardFromEnv), said on stderr; sharded is false when
// neither chose one.
func (e *env) shard(cmd, flagValue string) (jobs.Shard, bool, error) {
	s, source, sharded, err := jobs.ChooseShard(flagValue, e.getenv)
	if err != nil {
		return s, false, fmt.Errorf("%s: %w", cmd, err)
	}
	if source != "" {
		fmt.Fprintf(e.stderr, "servesim %s: shard %s from %s (give --shard to choose another)\n", cmd, s, source)
	}
	return s, sharded, nil
}

// exitUsage is the exit status of every error.
const exitUsage = 2

// errHelp asks run to exit 0 after a subcommand printed its help.
var errHelp = errors.New("help requested")

// run runs servesim with args (without the program name) and returns the
// exit status: 0, or 2 after printing one "servesim: ..." line on stderr.
// A panic is reported the same way, never as a stack trace.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "servesim: internal error: %v (please report it, with the command line; set SERVESIM_TRACE=1 for a stack trace)\n", r)
			if os.Getenv("SERVESIM_TRACE") != "" {
				stderr.Write(debug.Stack())
			}
			status = exitUsage
		}
	}()
	e := &env{stdout: stdout, stderr: stderr, tty: progress.IsTerminal(stderr), getenv: os.Getenv}
	if len(args) == 0 {
		usage(stderr)
		fmt.Fprintln(stderr, "servesim: no command given (try: servesim bench)")
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	for _, c := range commands {
		if c.name == name {
			err := c.run(args[1:], e)
			switch {
			case err == nil, errors.Is(err, errHelp):
				return 0
			default:
				fmt.Fprintln(stderr, "servesim: "+oneLine(err.Error()))
				return exitUsage
			}
		}
	}
	fmt.Fprintf(stderr, "servesim: unknown command %q (commands: %s)\n", name, commandNames())
	return exitUsage
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "servesim simulates LLM serving: vLLM-style engines and FCFS queues under open- and closed-loop load.")
	fmt.Fprintln(w, "\nUsage:\n  servesim COMMAND [flags]\n\nCommands:")
	nameW, argsW := 0, 0
	for _, c := range commands {
		nameW, argsW = max(nameW, len(c.name)), max(argsW, len(c.args))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s %-*s  %s\n", nameW, c.name, argsW, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'servesim help COMMAND' or 'servesim COMMAND -h' for a command's flags.")
	fmt.Fprintln(w, "Results go to stdout; progress and errors to stderr. Errors exit with status 2.")
}

// runHelp prints the overview, or a command's flags.
func runHelp(args []string, e *env) error {
	if len(args) == 0 {
		usage(e.stdout)
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] && c.name != "help" {
			return c.run([]string{"-h"}, e)
		}
	}
	return fmt.Errorf("help: unknown command %q (commands: %s)", args[0], commandNames())
}
