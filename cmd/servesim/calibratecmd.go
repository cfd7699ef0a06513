package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/internal/progress"
	"github.com/servesim/servesim/vllmbench"
)

const calibrateUsage = `Usage: servesim calibrate [RESULT.json | RUN_DIR ...] [--csv FILE] [flags]

Fits an efficiency profile of one GPU to real vLLM measurements: result
files written by 'vllm bench serve --save-result' (their GPU and TP from
--gpu and --tensor-parallel-size, the rest of the engine from the vllm
serve flags below, as bench takes them; the model from the file's
model_id; with --save-detailed, each request's lengths, and an open loop
replayed at its start times; a file of several runs, --append-result,
gives each), the aggregated exports of aiperf and genai-perf
(profile_export_aiperf.json, profile_export_genai_perf.json, or the
directory holding one: their concurrency or request rate, mean lengths
and mean TTFT, ITL, latency; each request's lengths and start from
profile_export.jsonl beside it),
directories of runs recorded by LLMServingSim's bench tool (meta.json and
requests.jsonl: replayed request by request on the run's own engine
settings; --gpu when meta.json names no device), and or rows of
aiconfigurator's silicon CSV or of public_serving_runs.csv (--csv,
selected with --model, --gpu, --tensor-parallel-size and --precision;
SGLang rows are skipped). Each run's setup is
re-simulated (its concurrency or rate, prompt count, lengths); the
profile's free knobs are fitted by Nelder-Mead on the mean squared log
error of TPOT and TTFT (the per-layer and per-sequence overheads on TPOT
of every run, then the GEMM efficiency and the frontend overhead on TTFT
at low load, then the first two again). The bandwidth fraction stays the
starting profile's: a per-operator measurement for a GPU with a profile
file, H100's carried over for the others; to change it, set bandwidth in a
--start profile. It prints the error of every run
before and after (and, when the two are equal, why) and writes the
profile, with its provenance, to -o; bench,
capacity, tp and plan load it with --efficiency-profile FILE, scenario files
with server.profile.

With --audit it fits nothing: for every run it prints the compute (prefill
FLOPs within the mean TTFT and at the run's request rate) and the memory
bandwidth (a decode step's weight and KV reads within the mean TPOT) the
run needs as a fraction of its GPU's datasheet peaks, the count per
source above 90%, and each such run with its likely cause (prefix-cache
hits, lengths not as recorded, the client).

With --joint it writes no profile either: it fits one set of terms over
every run the audit keeps (calibrate.FitJoint: kernel terms per GPU, the
CPU-side step cost and frontend per vLLM version band, each bounded by its
prior) and prints each term's move and the errors before and after.
`

// runCalibrate is `servesim calibrate` (calibrate.Run).
func runCalibrate(args []string, e *env) error {
	var c calibrate.Flags
	fs := cliflag.NewFlagSet("calibrate")
	groups := c.Define(fs)
	args, err := vllmbench.Argparse(fs, args)
	if err != nil {
		return fmt.Errorf("calibrate: %w (see servesim calibrate -h)", err)
	}
	if c.Inputs, err = cliflag.Parse(fs, args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, calibrateUsage)
		cliflag.Print(e.stdout, fs, groups)
		return errHelp
	} else if err != nil {
		return err
	}
	if err := c.Resolve(fs, e.stderr); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	c.Warn = func(msg string) { fmt.Fprintf(e.stderr, "servesim calibrate: %s\n", msg) }
	c.Progress = func() func() { return progress.Start(e.stderr, e.tty && !c.Quiet, "fitting", 0).Stop }
	rep, err := calibrate.Run(c.Config)
	var ee *calibrate.EngineError
	switch {
	case errors.As(err, &ee):
		return fmt.Errorf("calibrate: %s: %s", ee.ID, vllmbench.FlagFieldError(ee.Err))
	case err != nil:
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := rep.WriteText(e.stdout); err != nil || c.Audit || c.Joint {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: use it with --efficiency-profile %s\n", c.Out, c.Out)
	return nil
}
