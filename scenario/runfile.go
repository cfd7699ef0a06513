package scenario

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
)

// RunFormat marks a RunFile's JSON: the output of `servesim run --format
// json`, of each `--shard`, and of `servesim merge`.
const RunFormat = "servesim-run/1"

// ErrNotRunFile is matched by ReadRunFile's error for JSON that is not a
// RunFile (another format, or not an object).
var ErrNotRunFile = errors.New("not a " + RunFormat + " file")

// A RunRecord is one job's outcome: which job (jobs.At's numbering), its
// point and value, its replication and seed, and its sim.Result as JSON.
type RunRecord struct {
	Job         int             `json:"job"`
	Point       int             `json:"point"`
	Value       any             `json:"value"`
	Replication int             `json:"replication"`
	Seed        uint64          `json:"seed"`
	Result      json.RawMessage `json:"result"`
}

// RunSLO is a scenario's SLO as a RunFile holds it: bounds in milliseconds
// (0: none) and the target q.
type RunSLO struct {
	TTFTms float64 `json:"ttft_ms,omitempty"`
	TPOTms float64 `json:"tpot_ms,omitempty"`
	E2ELms float64 `json:"e2el_ms,omitempty"`
	Target float64 `json:"target"`
}

// A RunFile is the outcome of an experiment's jobs, or of a shard of them:
// the experiment's description and one record per job, in job order.
type RunFile struct {
	Format string `json:"format"`
	// Scenario is the scenario's name; Digest the SHA-256 of its file, so
	// a merge only joins shards of one scenario.
	Scenario string `json:"scenario"`
	Digest   string `json:"digest"`
	Server   string `json:"server"`
	// Param is the swept field ("" without a sweep); Values its values.
	Param        string            `json:"param"`
	Values       []json.RawMessage `json:"values"`
	Replications int               `json:"replications"`
	Requests     int               `json:"requests"`
	Warmup       int               `json:"warmup"`
	// Jobs is the number of jobs of the whole experiment; Shard the
	// shard this file holds ("0/1": all of them).
	Jobs  int    `json:"jobs"`
	Shard string `json:"shard"`
	// SummaryOnly is set when the runs kept quantile sketches
	// (summary_only: true, or run --summary-only): percentiles are
	// within 0.5%.
	SummaryOnly bool        `json:"summary_only,omitempty"`
	SLO         *RunSLO     `json:"slo"`
	Results     []RunRecord `json:"results"`
}

// NewRunFile describes the experiment x of s, before any job ran; shard is
// the part of its jobs the file will hold.
func (s *Scenario) NewRunFile(x *Experiment, shard jobs.Shard) (*RunFile, error) {
	sum := sha256.Sum256(s.Source())
	out := &RunFile{
		Format:       RunFormat,
		Scenario:     s.Name,
		Digest:       "sha256:" + hex.EncodeToString(sum[:]),
		Server:       s.ServerText(),
		Param:        s.Param(),
		Replications: s.Replications,
		Requests:     s.Requests,
		Warmup:       s.Warmup,
		Jobs:         x.Size(),
		Shard:        shard.String(),
		SummaryOnly:  s.SummaryOnly,
	}
	if s.Sweep != nil {
		for _, p := range x.Points {
			b, err := json.Marshal(p.Value)
			if err != nil {
				return nil, err
			}
			out.Values = append(out.Values, b)
		}
	}
	if s.SLO.Set() {
		out.SLO = &RunSLO{TTFTms: s.SLO.TTFTms, TPOTms: s.SLO.TPOTms, E2ELms: s.SLO.E2ELms, Target: s.SLO.Target}
	}
	return out, nil
}

// ServerText describes the server, noting a swept server field.
func (s *Scenario) ServerText() string {
	t := s.Server.String()
	if p := s.Param(); strings.HasPrefix(p, "server.") {
		t += " (" + p + " swept)"
	}
	return t
}

// RunJobs runs the jobs of x that shard owns on up to workers goroutines
// (0: GOMAXPROCS, jobs.Each) and returns their records in job order. Each
// result is turned into JSON as soon as its run ends, so memory holds one
// run per worker, not every run's request records. adjust, when set, edits
// each job's configuration before it runs; done, when set, is called after
// each job (from the worker goroutines).
func (x *Experiment) RunJobs(shard jobs.Shard, workers int, adjust func(*sim.Config), done func()) ([]RunRecord, error) {
	recs := make([]RunRecord, shard.Size(x.Size()))
	err := jobs.Each(x.Size(), shard, workers, func(k, i int) error {
		if done != nil {
			defer done()
		}
		j, cfg := x.Job(i)
		if adjust != nil {
			adjust(&cfg)
		}
		rec, err := x.runJob(j, cfg)
		if err != nil {
			return fmt.Errorf("job %d (point %d = %s, replication %d): %w", j.Index, j.Point, x.Points[j.Point].text(), j.Replication, err)
		}
		recs[k] = rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// runJob runs one job and encodes its result.
func (x *Experiment) runJob(j jobs.Job, cfg sim.Config) (RunRecord, error) {
	res, err := sim.Run(cfg)
	if err != nil {
		return RunRecord{}, err
	}
	res.Replication = j.Replication
	b, err := json.Marshal(res)
	if err != nil {
		return RunRecord{}, err
	}
	return RunRecord{Job: j.Index, Point: j.Point, Value: x.Points[j.Point].Value, Replication: j.Replication, Seed: j.Seed, Result: b}, nil
}

// text is the point's value as the CLI prints it ("-" without a sweep).
func (p Point) text() string {
	if p.Value == nil {
		return "-"
	}
	return FormatValue(p.Value)
}

// WriteJSON writes the file with one result record per line, so large
// sweeps stay readable and diffable.
func (r *RunFile) WriteJSON(w io.Writer) error {
	head := *r
	head.Results = nil
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	obj, err := jsonobj.Parse(b)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n")
	for _, m := range obj {
		k, _ := json.Marshal(m.Key)
		if m.Key == "results" {
			bw.WriteString("  " + string(k) + ": [")
			for i, rec := range r.Results {
				line, err := json.Marshal(rec)
				if err != nil {
					return err
				}
				if i > 0 {
					bw.WriteByte(',')
				}
				bw.WriteString("\n    ")
				bw.Write(line)
			}
			if len(r.Results) > 0 {
				bw.WriteString("\n  ")
			}
			bw.WriteString("]\n")
			continue
		}
		bw.WriteString("  " + string(k) + ": ")
		bw.Write(m.Value)
		bw.WriteString(",\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// ReadRunFile parses a RunFile's JSON (numbers of the sweep values kept as
// written). JSON of another format fails matching ErrNotRunFile.
func ReadRunFile(data []byte) (*RunFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var r RunFile
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotRunFile, err)
	}
	if r.Format != RunFormat {
		return nil, fmt.Errorf("%w: format %q", ErrNotRunFile, r.Format)
	}
	return &r, nil
}
