package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/scenario"
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
before and after and writes the profile, with its provenance, to -o; bench,
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

type calibrateOptions struct {
	csv, model, gpu, precision, start, out string
	modelConfigs                           string
	tp, maxEvals, workers                  int
	quiet, audit, joint                    bool
	// serve holds the engine flags of servesim bench (calibrateServeFlags),
	// which describe the deployment of the result files.
	serve benchOptions
}

// calibrateServeFlags are the flags of servesim bench (vllm serve's) that
// calibrate takes for the deployment its result files were measured on;
// --gpu and --tensor-parallel-size are calibrate's own, and the model is
// each file's model_id (or --model).
var calibrateServeFlags = []string{"max-num-seqs", "max-num-batched-tokens", "enable-chunked-prefill", "no-enable-chunked-prefill",
	"enable-prefix-caching", "no-enable-prefix-caching", "block-size", "gpu-memory-utilization", "kv-cache-memory", "kv-cache-memory-bytes",
	"num-gpu-blocks-override", "max-model-len", "dtype", "kv-cache-dtype", "quantization", "q", "data-parallel-size", "dp", "enable-expert-parallel"}

// runCalibrate is `servesim calibrate`.
func runCalibrate(args []string, e *env) error {
	var o calibrateOptions
	fs := newFlagSet("calibrate")
	fs.StringVar(&o.csv, "csv", "", "aiconfigurator silicon CSV `FILE` whose rows to fit (with the filters below)")
	fs.StringVar(&o.model, "model", "", "keep CSV rows of this Hugging Face `id`; for result files, the model when the file names none")
	fs.StringVar(&o.gpu, "gpu", "", "the `GPU` the runs were measured on (catalog name); CSV rows: keep this GPU")
	fs.Var(intValue{p: &o.tp, min: 0, max: 1024}, "tensor-parallel-size", "the TP degree of result files; CSV rows: keep this TP (0: every TP)")
	fs.StringVar(&o.precision, "precision", "", "CSV rows: keep this weight `precision` (bf16, fp8, ...; empty: every precision)")
	fs.StringVar(&o.modelConfigs, "model-configs", "", "`DIR` of Hugging Face config.json files named <org>--<name>.json (as ../shared/data/model_configs) for models outside the catalog")
	fs.StringVar(&o.start, "start", "", "starting profile `FILE` (default: the GPU's built-in profile)")
	fs.StringVar(&o.out, "o", "profile.yaml", "write the fitted profile to `FILE`")
	fs.Var(intValue{p: &o.maxEvals, min: 0, max: 100000}, "max-evaluations", "loss evaluations per fitting stage (0: the default)")
	fs.Var(intValue{p: &o.workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress spinner")
	fs.BoolVar(&o.joint, "joint", false, "fit nothing into -o: one joint fit over every run the audit keeps (calibrate.FitJoint: kernel terms per GPU, CPU-side terms per vLLM version band), printing each term's prior, fitted value and move")
	fs.BoolVar(&o.audit, "audit", false, "fit nothing: print each source's runs that need more compute or bandwidth than their GPU has (calibrate.Audit), and why")
	bfs, _ := benchFlags("calibrate", &o.serve)
	for _, name := range calibrateServeFlags {
		f := bfs.Lookup(name)
		usage := f.Usage
		if name == "data-parallel-size" {
			usage = "data-parallel size D of a mixture-of-experts model: D groups of --tensor-parallel-size GPUs that share the experts and step together, as vLLM runs them (a dense model's D engines are separate runs: calibrate one)"
		}
		fs.Var(f.Value, name, usage)
	}
	groups := []flagGroup{{"flags", []string{"csv", "model", "gpu", "tensor-parallel-size", "precision", "model-configs", "start", "o", "max-evaluations", "workers", "quiet", "audit", "joint"}},
		{"vllm serve (engine) flags of the result files' deployment, as servesim bench takes them", calibrateServeFlags}}
	args, err := vllmbench.Argparse(fs, args)
	if err != nil {
		return fmt.Errorf("calibrate: %w (see servesim calibrate -h)", err)
	}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, calibrateUsage)
		printFlags(e.stdout, fs, groups)
		return errHelp
	}
	if err != nil {
		return err
	}
	o.serve.set = setFlags(fs)
	if err := o.serve.mergeAliases(fs, e.stderr); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	points, unknown, err := o.points(pos)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	for _, sk := range unknown {
		fmt.Fprintf(e.stderr, "servesim calibrate: skipping %s: %v\n", sk.Point.ID, sk.Reason)
	}
	if len(points) == 0 {
		return fmt.Errorf("calibrate: none of the %d runs can be simulated (reasons above)", len(unknown))
	}
	if o.joint {
		return calibrate.Simulator{Workers: o.workers, ModelDir: o.modelConfigs}.JointReport(e.stdout, points, calibrate.StudyJointOptions)
	}
	if o.audit {
		return printAudit(e, calibrate.Simulator{ModelDir: o.modelConfigs}, points)
	}
	gpuName := points[0].GPU
	for _, p := range points[1:] {
		if p.GPU != gpuName {
			return fmt.Errorf("calibrate: the runs were measured on %s and %s: a profile describes one GPU (select one with --gpu)", gpuName, p.GPU)
		}
	}
	gpu, err := cost.GPU(gpuName)
	if err != nil {
		return fmt.Errorf("calibrate: --gpu: %w", err)
	}
	start := cost.DefaultProfile(gpu)
	if o.start != "" {
		if start, err = cost.LoadProfile(o.start); err != nil {
			return fmt.Errorf("calibrate: --start: %w", err)
		}
		// Another GPU's profile is a starting point only: the fit is of
		// gpuName's runs, and the profile written names gpuName.
		if start.ForGPU(gpuName) != nil && !o.quiet {
			of := "names no GPU"
			if start.GPU != "" {
				of = "describes " + start.GPU
			}
			fmt.Fprintf(e.stderr, "servesim calibrate: note: --start %s %s, not the runs' %s: fitting starts from its numbers, and the profile written describes %s\n", o.start, of, gpuName, gpuName)
		}
	}
	s := calibrate.Simulator{Workers: o.workers, ModelDir: o.modelConfigs}
	ok, skipped := s.Modelable(points, start)
	for _, sk := range skipped {
		fmt.Fprintf(e.stderr, "servesim calibrate: skipping %s: %v\n", sk.Point.ID, sk.Reason)
	}
	if len(ok) == 0 {
		return fmt.Errorf("calibrate: none of the %d runs can be simulated (reasons above)", len(points))
	}
	p := startProgress(e.stderr, e.tty && !o.quiet, "fitting", 0)
	before, err := s.Residuals(ok, start, nil)
	if err != nil {
		p.Stop()
		return fmt.Errorf("calibrate: %w", err)
	}
	fitted, err := calibrate.FitStaged(s, ok, start, o.maxEvals)
	if err != nil {
		p.Stop()
		return fmt.Errorf("calibrate: %w", err)
	}
	after, err := s.Residuals(ok, fitted, nil)
	p.Stop()
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	sources := map[string]bool{}
	for _, pt := range ok {
		sources[filepath.Base(pt.Source)] = true
	}
	fitted.Provenance.Source = "servesim calibrate on " + strings.Join(slices.Sorted(maps.Keys(sources)), ", ")
	fitted.GPU = gpuName
	fitted.Provenance.FittedOn = fmt.Sprintf("%d runs on %s", len(ok), gpuName)
	data, err := fitted.MarshalYAMLBytes()
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := os.WriteFile(o.out, data, 0o644); err != nil {
		return fmt.Errorf("calibrate: -o: %w", err)
	}
	w := e.stdout
	fmt.Fprintf(w, "calibrate: %d runs on %s (%d skipped)\n\n", len(ok), gpuName, len(skipped)+len(unknown))
	fmt.Fprintf(w, "## before: the starting profile\n\n%s\n%s\n", calibrate.Table(before), calibrate.Summary(before, calibrate.AllMetrics, nil))
	fmt.Fprintf(w, "## after: the fitted profile\n\n%s\n%s\n", calibrate.Table(after), calibrate.Summary(after, calibrate.AllMetrics, nil))
	fmt.Fprintf(w, "wrote %s: use it with --efficiency-profile %s\n", o.out, o.out)
	return nil
}

// points reads the result files and the CSV rows the flags select.
// llmServingSimRun reads the LLMServingSim run in dir (meta.json,
// requests.jsonl); --gpu fills in a GPU the run does not name and must
// agree with one it does.
func (o *calibrateOptions) llmServingSimRun(dir string) (calibrate.Point, error) {
	meta, err := os.Open(filepath.Join(dir, "meta.json"))
	if err != nil {
		return calibrate.Point{}, fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	defer meta.Close()
	reqs, err := os.Open(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		return calibrate.Point{}, fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	defer reqs.Close()
	pt, err := calibrate.ReadLLMServingSimRun(meta, reqs, dir)
	if err != nil {
		return calibrate.Point{}, err
	}
	switch {
	case pt.GPU == "" && o.gpu == "":
		return calibrate.Point{}, fmt.Errorf("%s: meta.json names no GPU: give --gpu", dir)
	case pt.GPU == "":
		pt.GPU = o.gpu
	case o.gpu != "" && o.gpu != pt.GPU:
		return calibrate.Point{}, fmt.Errorf("%s: the run was measured on %s, not --gpu %s", dir, pt.GPU, o.gpu)
	}
	return pt, nil
}

// A result file whose model cannot be resolved is skipped, with the
// reason, as Simulator.Modelable skips the runs it cannot simulate.
func (o *calibrateOptions) points(files []string) (out []calibrate.Point, unknown []calibrate.Skipped, err error) {
	results := 0 // result files, which the engine flags describe
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			export := aiperfExportIn(f)
			if export == "" {
				pt, err := o.llmServingSimRun(f)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, pt)
				continue
			}
			f = export // an aiperf or genai-perf artifact directory
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var pts []calibrate.Point
		if calibrate.IsAIPerfExport(data) {
			pt, err := readAIPerf(f, data)
			if err != nil {
				return nil, nil, err
			}
			pts = []calibrate.Point{pt}
		} else if pts, err = calibrate.ReadVLLMResults(bytes.NewReader(data), f); err != nil {
			return nil, nil, err // it names the file and the run
		}
		if o.gpu == "" || o.tp == 0 {
			return nil, nil, fmt.Errorf("%s: a benchmark result does not say its GPU and TP: give --gpu and --tensor-parallel-size", f)
		}
		results += len(pts)
		for _, pt := range pts {
			pt.GPU, pt.TP = o.gpu, o.tp
			if pt.Model == "" {
				pt.Model = o.model
			}
			var model bool
			if pt.Engine, model, err = o.engine(pt); model {
				unknown = append(unknown, calibrate.Skipped{Point: pt, Reason: err})
				continue
			} else if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", pt.ID, err)
			}
			out = append(out, pt)
		}
	}
	if results == 0 {
		for _, name := range calibrateServeFlags {
			if o.serve.set[name] {
				return nil, nil, fmt.Errorf("--%s describes the deployment of result files, and none is given (CSV rows and LLMServingSim runs carry their own)", name)
			}
		}
	}
	if o.csv != "" {
		r, err := os.Open(o.csv)
		if err != nil {
			return nil, nil, fmt.Errorf("--csv: %w", err)
		}
		rows, err := calibrate.ReadRunsCSV(r, o.csv)
		r.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("--csv %s: %w", o.csv, err)
		}
		n := 0
		for _, pt := range rows {
			if calibrate.IsSGLang(pt) && !o.audit {
				unknown = append(unknown, calibrate.Skipped{Point: pt, Reason: errors.New("measured on SGLang; servesim models vLLM's scheduler")})
				continue
			}
			if (o.model == "" || strings.EqualFold(pt.Model, o.model)) && (o.gpu == "" || pt.GPU == o.gpu) &&
				(o.tp == 0 || pt.TP == o.tp) && (o.precision == "" || pt.Precision == o.precision) {
				out = append(out, pt)
				n++
			}
		}
		if n == 0 {
			return nil, nil, fmt.Errorf("--csv %s: no row of %d matches --model %q --gpu %q --tensor-parallel-size %d --precision %q", o.csv, len(rows), o.model, o.gpu, o.tp, o.precision)
		}
	}
	if len(out) == 0 && len(unknown) == 0 {
		return nil, nil, errors.New("no runs to fit: give result JSON files, run directories and/or --csv FILE")
	}
	return out, unknown, nil
}

// engine returns the engine a result file's run was measured on: its
// model on --gpu at --tensor-parallel-size with the engine flags, built as
// servesim bench builds it (vllm serve's defaults for what the flags leave
// out). A model outside the cost catalog is read from its config.json in
// --model-configs.
//
// model reports an error about the model (one the cost catalog and
// --model-configs do not hold), which skips the run, not the command.
func (o *calibrateOptions) engine(pt calibrate.Point) (c *batching.Config, model bool, err error) {
	if pt.Model == "" {
		return nil, false, errors.New("the file has no model_id: give --model")
	}
	sc := scenario.Default()
	sc.Server = o.serve.Server
	sc.Server.GPU, sc.Server.TensorParallelSize, sc.Server.Model = pt.GPU, pt.TP, pt.Model
	if o.modelConfigs != "" {
		path, err := calibrate.ConfigPath(o.modelConfigs, pt.Model)
		if err != nil {
			return nil, false, fmt.Errorf("--model-configs: %w", err)
		}
		if path != "" {
			sc.Server.Model = path
		}
	}
	vllmbench.ServeDefaults(&sc)
	eng, err := sc.Engine()
	var fe *scenario.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "server.model":
		where := "no model directory (--model-configs)"
		if o.modelConfigs != "" {
			where = "no config in " + o.modelConfigs
		}
		return nil, true, fmt.Errorf("model_id %s: %s, and %s", pt.Model, where, fe.Reason())
	case err != nil:
		return nil, false, errors.New(benchFieldError(err))
	}
	if dp := sc.Server.DataParallelSize; dp > 1 && eng.Deployment.DP <= 1 {
		return nil, false, fmt.Errorf("--data-parallel-size %d on the dense model %s makes %d independent engines behind a balancer; calibrate re-simulates one engine: give the runs of one", dp, pt.Model, dp)
	}
	return &eng, false, nil
}

// aiperfExportNames are the aggregated exports aiperf and genai-perf write
// in their artifact directory.
var aiperfExportNames = []string{"profile_export_aiperf.json", "profile_export_genai_perf.json"}

// aiperfExportIn returns the aggregated export in the artifact directory
// dir, or "" when dir holds none (an LLMServingSim run directory, say).
func aiperfExportIn(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err == nil {
		return ""
	}
	for _, name := range aiperfExportNames {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// readAIPerf reads an aiperf or genai-perf export at path (its bytes,
// data), with the per-request records aiperf writes beside it
// (profile_export.jsonl) when they are there.
func readAIPerf(path string, data []byte) (calibrate.Point, error) {
	pt, err := calibrate.ReadAIPerfExport(bytes.NewReader(data), path)
	if err != nil {
		return pt, err
	}
	records := filepath.Join(filepath.Dir(path), "profile_export.jsonl")
	if !fileExists(records) {
		return pt, nil
	}
	r, err := os.Open(records)
	if err != nil {
		return pt, err
	}
	defer r.Close()
	return calibrate.ReadAIPerfRecords(r, records, pt)
}

// printAudit prints calibrate.Audit of points: a summary per source, then
// each flagged run with its implied utilisation and likely cause.
func printAudit(e *env, s calibrate.Simulator, points []calibrate.Point) error {
	rows, skipped := s.Audit(points)
	for _, sk := range skipped {
		fmt.Fprintf(e.stderr, "servesim calibrate: skipping %s: %v\n", sk.Point.ID, sk.Reason)
	}
	if len(rows) == 0 {
		return fmt.Errorf("calibrate: none of the %d runs can be audited (reasons above)", len(points))
	}
	w := e.stdout
	fmt.Fprintf(w, "audit: %d runs against their GPU's datasheet peaks (flagged above %.0f%%)\n\n%s\n", len(rows), 100*calibrate.AuditLimit, calibrate.AuditSummary(rows))
	flagged := 0
	for _, r := range rows {
		if r.Flagged {
			flagged++
		}
	}
	if flagged == 0 {
		fmt.Fprintln(w, "no run needs more than its GPU can do")
		return nil
	}
	fmt.Fprintf(w, "## flagged runs\n\n%s", calibrate.AuditTable(rows, true))
	return nil
}
