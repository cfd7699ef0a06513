package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/scenario"
)

// EngineError is an error in Config.Server, the engine a result file's
// run is built on: ID names the run, Err is the scenario's error (a
// *fielderr.Error at its server.* field when it is one).
type EngineError struct {
	ID  string
	Err error
}

func (e *EngineError) Error() string { return e.ID + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *EngineError) Unwrap() error { return e.Err }

// points reads c's inputs and the CSV rows its filters select. A result
// file's run whose model cannot be resolved is in unknown, with the
// reason, as Simulator.Modelable skips the runs it cannot simulate.
func (c Config) points() (out []Point, unknown []Skipped, err error) {
	results := 0 // result files' runs, which c.Server describes
	for _, f := range c.Inputs {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			export := aiperfExportIn(f)
			if export == "" {
				pt, err := c.llmServingSimRun(f)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, pt)
				continue
			}
			f = export // an aiperf or genai-perf artifact directory
		}
		pts, err := readResultFile(f)
		if err != nil {
			return nil, nil, err
		}
		if c.GPU == "" || c.TP == 0 {
			return nil, nil, fmt.Errorf("%s: a benchmark result does not say its GPU and TP: give --gpu and --tensor-parallel-size", f)
		}
		results += len(pts)
		for _, pt := range pts {
			pt.GPU, pt.TP = c.GPU, c.TP
			if pt.Model == "" {
				pt.Model = c.Model
			}
			var model bool
			if pt.Engine, model, err = c.engine(pt); model {
				unknown = append(unknown, Skipped{Point: pt, Reason: err})
				continue
			} else if err != nil {
				return nil, nil, &EngineError{ID: pt.ID, Err: err}
			}
			out = append(out, pt)
		}
	}
	if results == 0 && len(c.ServerSet) > 0 {
		return nil, nil, fmt.Errorf("--%s describes the deployment of result files, and none is given (CSV rows and LLMServingSim runs carry their own)", c.ServerSet[0])
	}
	if c.CSV != "" {
		rows, err := c.csvRows()
		if err != nil {
			return nil, nil, err
		}
		n := 0
		for _, pt := range rows {
			if IsSGLang(pt) && !c.Audit {
				unknown = append(unknown, Skipped{Point: pt, Reason: errors.New("measured on SGLang; servesim models vLLM's scheduler")})
				continue
			}
			if (c.Model == "" || strings.EqualFold(pt.Model, c.Model)) && (c.GPU == "" || pt.GPU == c.GPU) &&
				(c.TP == 0 || pt.TP == c.TP) && (c.Precision == "" || pt.Precision == c.Precision) {
				out = append(out, pt)
				n++
			}
		}
		if n == 0 {
			return nil, nil, fmt.Errorf("--csv %s: no row of %d matches --model %q --gpu %q --tensor-parallel-size %d --precision %q", c.CSV, len(rows), c.Model, c.GPU, c.TP, c.Precision)
		}
	}
	if len(out) == 0 && len(unknown) == 0 {
		return nil, nil, errNoRuns
	}
	return out, unknown, nil
}

// readResultFile reads the runs of an aiperf or genai-perf export or of a
// vLLM result file.
func readResultFile(f string) ([]Point, error) {
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	if IsAIPerfExport(data) {
		pt, err := readAIPerf(f, data)
		if err != nil {
			return nil, err
		}
		return []Point{pt}, nil
	}
	return ReadVLLMResults(bytes.NewReader(data), f) // its errors name the file and the run
}

// csvRows reads every row of c.CSV.
func (c Config) csvRows() ([]Point, error) {
	r, err := os.Open(c.CSV)
	if err != nil {
		return nil, fmt.Errorf("--csv: %w", err)
	}
	defer r.Close()
	rows, err := ReadRunsCSV(r, c.CSV)
	if err != nil {
		return nil, fmt.Errorf("--csv %s: %w", c.CSV, err)
	}
	return rows, nil
}

// llmServingSimRun reads the LLMServingSim run in dir (meta.json,
// requests.jsonl); c.GPU fills in a GPU the run does not name and must
// agree with one it does.
func (c Config) llmServingSimRun(dir string) (Point, error) {
	meta, err := os.Open(filepath.Join(dir, "meta.json"))
	if err != nil {
		return Point{}, fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	defer meta.Close()
	reqs, err := os.Open(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		return Point{}, fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	defer reqs.Close()
	pt, err := ReadLLMServingSimRun(meta, reqs, dir)
	if err != nil {
		return Point{}, err
	}
	switch {
	case pt.GPU == "" && c.GPU == "":
		return Point{}, fmt.Errorf("%s: meta.json names no GPU: give --gpu", dir)
	case pt.GPU == "":
		pt.GPU = c.GPU
	case c.GPU != "" && c.GPU != pt.GPU:
		return Point{}, fmt.Errorf("%s: the run was measured on %s, not --gpu %s", dir, pt.GPU, c.GPU)
	}
	return pt, nil
}

// engine returns the engine a result file's run was measured on: its
// model on c.GPU at c.TP with c.Server's knobs (vllm serve's defaults for
// what it leaves zero). A model outside the cost catalog is read from its
// config.json in c.ModelDir.
//
// model reports an error about the model (one the cost catalog and
// c.ModelDir do not hold), which skips the run, not the calibration.
func (c Config) engine(pt Point) (eng *batching.Config, model bool, err error) {
	if pt.Model == "" {
		return nil, false, errors.New("the file has no model_id: give --model")
	}
	sc := scenario.Default()
	sc.Server = c.Server
	sc.Server.GPU, sc.Server.TensorParallelSize, sc.Server.Model = pt.GPU, pt.TP, pt.Model
	if c.ModelDir != "" {
		path, err := ConfigPath(c.ModelDir, pt.Model)
		if err != nil {
			return nil, false, fmt.Errorf("--model-configs: %w", err)
		}
		if path != "" {
			sc.Server.Model = path
		}
	}
	e, err := sc.Engine()
	switch fe := fielderr.Of(err); {
	case fe != nil && fe.Field == "server.model":
		where := "no model directory (--model-configs)"
		if c.ModelDir != "" {
			where = "no config in " + c.ModelDir
		}
		return nil, true, fmt.Errorf("model_id %s: %s, and %s", pt.Model, where, fe.Reason())
	case err != nil:
		return nil, false, err
	}
	if dp := sc.Server.DataParallelSize; dp > 1 && e.Deployment.DP <= 1 {
		return nil, false, fmt.Errorf("--data-parallel-size %d on the dense model %s makes %d independent engines behind a balancer; calibrate re-simulates one engine: give the runs of one", dp, pt.Model, dp)
	}
	return &e, false, nil
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
func readAIPerf(path string, data []byte) (Point, error) {
	pt, err := ReadAIPerfExport(bytes.NewReader(data), path)
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
	return ReadAIPerfRecords(r, records, pt)
}
