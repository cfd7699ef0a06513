package calibrate

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/scenario"
)

// Config is one calibration, the whole of `servesim calibrate`: the
// measured runs to read, the filters on them, the engine the result files
// ran on, the profile to start from and where to write the fitted one.
// Its messages name servesim calibrate's flags (--gpu, --csv, ...), the
// fields' spelling on the command line.
type Config struct {
	// Inputs are vLLM result files (vllm bench serve --save-result),
	// aiperf or genai-perf exports or the directories holding one, and
	// LLMServingSim run directories (meta.json, requests.jsonl).
	Inputs []string
	// CSV is an aiconfigurator silicon CSV or public_serving_runs.csv whose
	// rows matching Model, GPU, TP and Precision are fitted ("": none).
	CSV string
	// Model keeps CSV rows of this Hugging Face id, and is a result file's
	// model when the file names none.
	Model string
	// GPU is the catalog GPU the result files were measured on; it keeps
	// CSV rows of that GPU, and fills in an LLMServingSim run's.
	GPU string
	// TP is the result files' tensor-parallel degree; it keeps CSV rows of
	// that TP (0: every TP).
	TP int
	// Precision keeps CSV rows of this weight precision ("": every one).
	Precision string
	// ModelDir holds Hugging Face config.json files named
	// <org>--<name>.json for models outside the cost catalog ("": none).
	ModelDir string
	// Server is the engine of the result files' deployment as vllm serve's
	// flags give it, from scenario.Default().Server; each run sets its
	// GPU, TP and model. Zero knobs are vLLM's defaults for the GPU.
	Server scenario.Server
	// ServerSet names, as the caller spells them, the engine settings of
	// Server given explicitly: with no result file to describe, Run
	// rejects the first.
	ServerSet []string
	// Start is the starting profile's file ("": the GPU's built-in
	// profile).
	Start string
	// Out is the file the fitted profile is written to ("": none).
	Out string
	// MaxEvaluations bounds each fitting stage's loss evaluations (0:
	// Fit's default); Workers the simulations run at once (0: GOMAXPROCS).
	MaxEvaluations, Workers int
	// Audit fits nothing: Run audits every run against its GPU's peaks
	// (Simulator.Audit).
	Audit bool
	// Joint writes no profile: Run fits one set of terms over every run
	// the audit keeps (Simulator.Joint under StudyJointOptions).
	Joint bool
	// JointNoise is the joint fit's per-row relative error
	// (JointOptions.Noise), a fraction ≥ 0: 0 estimates it from the runs
	// (EstimateNoise). Only with Joint.
	JointNoise float64
	// Quiet leaves out notes; Warn still hears of every skipped run.
	Quiet bool
	// Warn, when set, hears each run skipped and why, and notes, as Run
	// goes.
	Warn func(msg string)
	// Progress, when set, is called as fitting starts; the function it
	// returns, as fitting ends.
	Progress func() (stop func())
}

// maxEvaluations caps Config.MaxEvaluations: each of FitStaged's stages
// runs a simulation of every run per evaluation.
const maxEvaluations = 100000

// maxJointNoise caps Config.JointNoise: a relative error of 10 (1,000%) a
// run already leaves every term at its prior.
const maxJointNoise = 10.0

// Validate checks the numbers of c (the files are read by Run).
func (c Config) Validate() error {
	switch {
	case c.TP < 0 || c.TP > 1024:
		return fielderr.New("TP", c.TP, "must be in [0, 1024] (0: every TP of the CSV rows)")
	case c.MaxEvaluations < 0 || c.MaxEvaluations > maxEvaluations:
		return fielderr.New("MaxEvaluations", c.MaxEvaluations, "must be in [0, %d] (0: the default)", maxEvaluations)
	case c.Workers < 0:
		return fielderr.New("Workers", c.Workers, "must be >= 0 (0: GOMAXPROCS)")
	case c.Joint && c.Audit:
		return fielderr.New("Joint", c.Joint, "cannot be set with Audit (the joint fit audits its runs itself): choose one")
	case !(c.JointNoise >= 0 && c.JointNoise <= maxJointNoise):
		return fielderr.New("JointNoise", c.JointNoise, "must be in [0, %g] (a relative error a run; 0: estimated from the runs)", maxJointNoise)
	case c.JointNoise > 0 && !c.Joint:
		return fielderr.New("JointNoise", c.JointNoise, "applies to the joint fit only: set Joint too, or leave it 0")
	}
	return nil
}

// Report is what Run found: the fit of every run before and after, or
// with Config.Audit the audit's rows.
type Report struct {
	// GPU is the runs' GPU; Runs the runs fitted; Skipped how many were
	// skipped (Config.Warn heard why).
	GPU     string
	Runs    []Point
	Skipped int
	// Before and After are every run's residuals under the starting and
	// the fitted profile.
	Before, After []Residual
	// Start and Profile are the starting and the fitted profile.
	Start, Profile cost.Profile
	// MaxEvaluations is Config.MaxEvaluations, each stage's bound.
	MaxEvaluations int
	// Audit holds the audit's rows, with Config.Audit.
	Audit []AuditRow
	// Joint is the joint fit, with Config.Joint.
	Joint *JointSummary
}

// Run calibrates: it reads the runs c names, re-simulates each under the
// starting profile, fits it (FitStaged), re-simulates under the fit and
// writes the fitted profile, with its provenance, to c.Out; with c.Audit
// it audits the runs instead.
func Run(c Config) (*Report, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	warn := func(format string, args ...any) {
		if c.Warn != nil {
			c.Warn(fmt.Sprintf(format, args...))
		}
	}
	points, unknown, err := c.points()
	if err != nil {
		return nil, err
	}
	for _, sk := range unknown {
		warn("skipping %s: %v", sk.Point.ID, sk.Reason)
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("none of the %d runs can be simulated (reasons above)", len(unknown))
	}
	if c.Joint {
		opt := StudyJointOptions
		opt.Noise = c.JointNoise
		j, err := Simulator{Workers: c.Workers, ModelDir: c.ModelDir}.Joint(points, opt)
		if err != nil {
			return nil, err
		}
		return &Report{Joint: j}, nil
	}
	if c.Audit {
		rows, skipped := Simulator{ModelDir: c.ModelDir}.Audit(points)
		for _, sk := range skipped {
			warn("skipping %s: %v", sk.Point.ID, sk.Reason)
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("none of the %d runs can be audited (reasons above)", len(points))
		}
		return &Report{Audit: rows}, nil
	}
	gpuName := points[0].GPU
	for _, p := range points[1:] {
		if p.GPU != gpuName {
			return nil, fmt.Errorf("the runs were measured on %s and %s: a profile describes one GPU (select one with --gpu)", gpuName, p.GPU)
		}
	}
	start, err := c.start(gpuName, warn)
	if err != nil {
		return nil, err
	}
	s := Simulator{Workers: c.Workers, ModelDir: c.ModelDir}
	ok, skipped := s.Modelable(points, start)
	for _, sk := range skipped {
		warn("skipping %s: %v", sk.Point.ID, sk.Reason)
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("none of the %d runs can be simulated (reasons above)", len(points))
	}
	r := &Report{GPU: gpuName, Runs: ok, Skipped: len(skipped) + len(unknown), Start: start, MaxEvaluations: c.MaxEvaluations}
	if err := r.fit(s, c); err != nil {
		return nil, err
	}
	if c.Out != "" {
		data, err := r.Profile.MarshalYAMLBytes()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(c.Out, data, 0o644); err != nil {
			return nil, fmt.Errorf("-o: %w", err)
		}
	}
	return r, nil
}

// start returns the starting profile for runs on gpuName: c.Start's, or
// the GPU's built-in one.
func (c Config) start(gpuName string, warn func(string, ...any)) (cost.Profile, error) {
	gpu, err := cost.GPU(gpuName)
	if err != nil {
		return cost.Profile{}, fmt.Errorf("--gpu: %w", err)
	}
	if c.Start == "" {
		return cost.DefaultProfile(gpu), nil
	}
	start, err := cost.LoadProfile(c.Start)
	if err != nil {
		return start, fmt.Errorf("--start: %w", err)
	}
	// Another GPU's profile is a starting point only: the fit is of
	// gpuName's runs, and the profile written names gpuName.
	if start.ForGPU(gpuName) != nil && !c.Quiet {
		of := "names no GPU"
		if start.GPU != "" {
			of = "describes " + start.GPU
		}
		warn("note: --start %s %s, not the runs' %s: fitting starts from its numbers, and the profile written describes %s", c.Start, of, gpuName, gpuName)
	}
	return start, nil
}

// fit fills in r's residuals before and after, and the fitted profile
// with its provenance.
func (r *Report) fit(s Simulator, c Config) (err error) {
	if c.Progress != nil {
		defer c.Progress()()
	}
	if r.Before, err = s.Residuals(r.Runs, r.Start, nil); err != nil {
		return err
	}
	if r.Profile, err = FitStaged(s, r.Runs, r.Start, c.MaxEvaluations); err != nil {
		return err
	}
	if r.After, err = s.Residuals(r.Runs, r.Profile, nil); err != nil {
		return err
	}
	sources := map[string]bool{}
	for _, pt := range r.Runs {
		sources[filepath.Base(pt.Source)] = true
	}
	r.Profile.Provenance.Source = "servesim calibrate on " + strings.Join(slices.Sorted(maps.Keys(sources)), ", ")
	r.Profile.GPU = r.GPU
	r.Profile.Provenance.FittedOn = fmt.Sprintf("%d runs on %s", len(r.Runs), r.GPU)
	return nil
}

// WriteText writes the report as servesim calibrate prints it: the runs,
// then the before and after tables, or the audit's summary and its
// flagged runs.
func (r *Report) WriteText(w io.Writer) error {
	if r.Joint != nil {
		return r.Joint.WriteText(w)
	}
	if r.Audit != nil {
		return writeAudit(w, r.Audit)
	}
	fmt.Fprintf(w, "calibrate: %d runs on %s (%d skipped)\n\n", len(r.Runs), r.GPU, r.Skipped)
	fmt.Fprintf(w, "## before: the starting profile\n\n%s\n%s\n", Table(r.Before), Summary(r.Before, AllMetrics, nil))
	_, err := fmt.Fprintf(w, "## after: the fitted profile\n\n%s\n%s\n", Table(r.After), Summary(r.After, AllMetrics, nil))
	if why := r.Unchanged(); why != "" && err == nil {
		_, err = fmt.Fprintf(w, "before and after are equal: %s\n\n", why)
	}
	return err
}

// Unchanged says why the fit left every prediction as the starting
// profile made it, or returns "" when it changed one.
func (r *Report) Unchanged() string {
	if len(r.Before) != len(r.After) {
		return ""
	}
	for i := range r.Before {
		if r.Before[i].Predicted != r.After[i].Predicted {
			return ""
		}
	}
	var moved []string
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		// decode(encode(v)) differs from v in its last bits: a knob the
		// search left where it started reads back within 1e-9 of it.
		if a, b := k.Get(r.Start), k.Get(r.Profile); math.Abs(a-b) > 1e-9*math.Max(math.Abs(a), math.Abs(b)) {
			moved = append(moved, string(k))
		}
	}
	if len(moved) > 0 {
		return fmt.Sprintf("the fit moved %s, and these runs' predictions do not depend on %s: fit runs that exercise them (other loads, lengths or batch sizes)",
			strings.Join(moved, ", "), map[bool]string{true: "it", false: "them"}[len(moved) == 1])
	}
	if r.MaxEvaluations > 0 {
		return fmt.Sprintf("no knob moved: within %d loss evaluations per stage (--max-evaluations) no step of the search bettered the starting profile's loss; allow more (0: the default, %d)", r.MaxEvaluations, defaultEvaluations)
	}
	return "no knob moved: the starting profile is already the best the search finds from it for these runs"
}

// writeAudit writes the audit's summary per source, then each flagged run
// with its implied utilisation and likely cause.
func writeAudit(w io.Writer, rows []AuditRow) error {
	fmt.Fprintf(w, "audit: %d runs against their GPU's datasheet peaks (flagged above %.0f%%)\n\n%s\n", len(rows), 100*AuditLimit, AuditSummary(rows))
	fmt.Fprintf(w, "## time per running sequence that the decode steps leave beyond their kernels at peak bandwidth\n\n%s\n", AuditRoom(rows, nil))
	if !slices.ContainsFunc(rows, func(r AuditRow) bool { return r.Flagged }) {
		_, err := fmt.Fprintln(w, "no run needs more than its GPU can do")
		return err
	}
	_, err := fmt.Fprintf(w, "## flagged runs\n\n%s", AuditTable(rows, true))
	return err
}

// errNoRuns is Run's error when c names no run at all.
var errNoRuns = errors.New("no runs to fit: give result JSON files, run directories and/or --csv FILE")
