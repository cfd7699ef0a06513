package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/internal/pyjson"
	"github.com/servesim/servesim/workload"
)

// aiperfStat is one aggregated metric of an aiperf or genai-perf export:
// its unit and its mean over the profiled requests.
type aiperfStat struct {
	Unit string   `json:"unit"`
	Avg  *float64 `json:"avg"`
}

// aiperfExport holds the statistics a calibration reads from aiperf's
// profile_export_aiperf.json or genai-perf's profile_export_genai_perf.json;
// input_config, whose layout differs between the tools and their
// versions, is read by aiperfLoad.
type aiperfExport struct {
	TTFT         *aiperfStat     `json:"time_to_first_token"`
	ITL          *aiperfStat     `json:"inter_token_latency"`
	Latency      *aiperfStat     `json:"request_latency"`
	Throughput   *aiperfStat     `json:"output_token_throughput"`
	InputLength  *aiperfStat     `json:"input_sequence_length"`
	OutputLength *aiperfStat     `json:"output_sequence_length"`
	RequestCount *aiperfStat     `json:"request_count"`
	InputConfig  json.RawMessage `json:"input_config"`
}

// exportLoad is a run's load as its export's input_config records it.
type exportLoad struct {
	model       string
	concurrency int     // clients, or the cap of an open loop (0: none)
	rate        float64 // requests/s of an open loop (0: a closed loop)
	burstiness  float64 // gamma shape of the open loop's gaps
	requests    int     // requests the configuration asked for (0: unknown)
	// genai-perf only: the warm-up requests perf_analyzer sent first, and
	// the distinct prompts its requests cycle through (0: not recorded).
	warmup, entries int
}

// IsAIPerfExport reports whether data is the aggregated export of aiperf
// (profile_export_aiperf.json) or genai-perf
// (profile_export_genai_perf.json) rather than a vllm bench serve result:
// a JSON object with the input_config those tools record and their
// request_latency or time_to_first_token statistics.
func IsAIPerfExport(data []byte) bool {
	var probe struct {
		InputConfig json.RawMessage `json:"input_config"`
		TTFT        json.RawMessage `json:"time_to_first_token"`
		Latency     json.RawMessage `json:"request_latency"`
	}
	if json.Unmarshal(pyjson.Standard(data), &probe) != nil || len(probe.InputConfig) == 0 || probe.InputConfig[0] != '{' {
		return false
	}
	isStat := func(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
	return isStat(probe.TTFT) || isStat(probe.Latency)
}

// ReadAIPerfExport reads the aggregated export of aiperf
// (profile_export_aiperf.json) or genai-perf (profile_export_genai_perf.json),
// the clients NVIDIA's Dynamo and aiconfigurator benchmark with, as a
// point. The load is the export's input_config, in each layout the tools
// have written (aiperfLoad): a concurrency without a request rate is a
// closed loop of that many clients that start together (both clients wait
// out their warm-up), request_count requests measured; a request rate is
// an open loop capped by a concurrency, its gaps as the tool drew them
// (aiperf: Poisson by default, constant, or gamma of the recorded
// smoothness, vLLM's burstiness; genai-perf: perf_analyzer's default,
// constant). The lengths are the means of input_sequence_length and
// output_sequence_length, rounded; the model is the first the
// configuration names. The metrics are the means of time_to_first_token,
// inter_token_latency (per request, (latency − TTFT) over the tokens after
// the first: vLLM's TPOT), request_latency (E2E) and
// output_token_throughput, in their recorded units (ns, us, ms, s).
// A genai-perf closed loop takes its warm-up request count and dataset
// size where the configuration records them (Point.WarmupRepeats,
// Point.DatasetEntries): perf_analyzer starts the measured requests from
// the dataset's first entry and cycles through it.
// Missing statistics (a run without streaming has no TTFT), an unknown
// unit, a load it cannot tell or does not model (a sweep, a trace's own
// schedule) are errors naming the field; the GPU and TP are not in the
// file: the caller fills them in.
func ReadAIPerfExport(r io.Reader, source string) (Point, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Point{}, invalidf("%s: %v", source, err)
	}
	var v aiperfExport
	dec := json.NewDecoder(bytes.NewReader(pyjson.Standard(data)))
	if err := dec.Decode(&v); err != nil {
		return Point{}, invalidf("%s: %v", source, err)
	}
	if len(v.InputConfig) == 0 || v.InputConfig[0] != '{' {
		return Point{}, invalidf("%s: no input_config object: not an aiperf or genai-perf export", source)
	}
	load, err := aiperfLoad(v.InputConfig)
	if err != nil {
		return Point{}, invalidf("%s: input_config: %v", source, err)
	}
	p := Point{ID: source, Source: source, Model: load.model, Precision: "bf16"}
	// The metrics: TTFT and TPOT are required, the rest optional.
	for _, m := range []struct {
		name     string
		stat     *aiperfStat
		dst      *float64
		required bool
	}{
		{"time_to_first_token", v.TTFT, &p.Measured.TTFT, true},
		{"inter_token_latency", v.ITL, &p.Measured.TPOT, true},
		{"request_latency", v.Latency, &p.Measured.E2E, false},
	} {
		x, err := seconds(m.name, m.stat, m.required)
		if err != nil {
			return Point{}, invalidf("%s: %v", source, err)
		}
		*m.dst = x
	}
	if t := v.Throughput; t != nil && t.Avg != nil {
		if u := strings.ToLower(t.Unit); u != "" && u != "tokens/sec" && u != "tokens/s" {
			return Point{}, invalidf("%s: output_token_throughput unit %q: want tokens/sec", source, t.Unit)
		}
		p.Measured.OutputThroughput = *t.Avg
	}
	for _, l := range []struct {
		name string
		stat *aiperfStat
		dst  *int
		min  float64
	}{{"input_sequence_length", v.InputLength, &p.Input, 0}, {"output_sequence_length", v.OutputLength, &p.Output, 1}} {
		if l.stat == nil || l.stat.Avg == nil {
			return Point{}, invalidf("%s: %s has no avg: the lengths re-simulated are its mean", source, l.name)
		}
		x := math.Round(*l.stat.Avg)
		if !(x >= l.min) || x > workload.MaxTokens {
			return Point{}, invalidf("%s: %s avg %v must be in [%v, %d]", source, l.name, *l.stat.Avg, l.min, workload.MaxTokens)
		}
		*l.dst = int(x)
	}
	count := load.requests
	if rc := v.RequestCount; rc != nil && rc.Avg != nil && *rc.Avg >= 1 && *rc.Avg <= math.MaxInt32 {
		count = int(*rc.Avg) // the requests profiled (aiperf counts the valid ones)
	}
	if count < 1 {
		return Point{}, invalidf("%s: request_count %d: need the profiled requests (>= 1)", source, count)
	}
	if err := countField(source, "request_count", count); err != nil {
		return Point{}, err
	}
	if err := countField(source, "concurrency", load.concurrency); err != nil {
		return Point{}, err
	}
	if load.rate > 0 && (load.rate < workload.MinRate || math.IsInf(load.rate, 0)) {
		return Point{}, invalidf("%s: request_rate %v must be a finite rate >= %v requests/s (workload.MinRate)", source, load.rate, workload.MinRate)
	}
	p.NumPrompts = count
	if load.rate > 0 {
		p.Rate, p.MaxConcurrency, p.Burstiness, p.IndependentGaps = load.rate, load.concurrency, load.burstiness, true
	} else {
		p.Concurrency = load.concurrency
		// perf_analyzer's measured requests start again from the dataset's
		// first entry: the first ones repeat the warm-up's prompts, and past
		// the dataset's end every prompt is a repeat.
		p.WarmupRepeats, p.DatasetEntries = min(load.warmup, count), load.entries
		if load.entries > 0 {
			p.WarmupRepeats = min(p.WarmupRepeats, load.entries)
		}
	}
	return p, nil
}

// aiperfLoad reads the load and model from an export's input_config, in
// the layouts the tools have written:
//
//   - aiperf schema 1.3 and later: models.items[].name, and phases, a list
//     of {name, type, concurrency, rate, requests, smoothness} whose
//     profiling phase is the run (type concurrency, poisson, constant or
//     gamma);
//   - earlier aiperf: endpoint.model_names and loadgen {concurrency,
//     request_rate, request_count, request_rate_mode (poisson, constant,
//     concurrency_burst) or arrival_pattern (poisson, constant, gamma) with
//     arrival_smoothness}; an absent mode is Poisson, aiperf's default;
//   - genai-perf from 2025-03: model_names and perf_analyzer.stimulus
//     {concurrency} or {request_rate}, whose gaps are perf_analyzer's
//     default distribution, constant;
//   - earlier genai-perf: model (a list) and concurrency, request_rate and
//     request_count at the top, request rates constant as above.
func aiperfLoad(raw json.RawMessage) (exportLoad, error) {
	var c struct {
		Models *struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		} `json:"models"`
		Phases   []aiperfPhase `json:"phases"`
		Endpoint *struct {
			ModelNames []string `json:"model_names"`
		} `json:"endpoint"`
		Loadgen      *aiperfLoadgen `json:"loadgen"`
		ModelNames   []string       `json:"model_names"`
		Model        []string       `json:"model"`
		PerfAnalyzer *struct {
			Stimulus map[string]json.RawMessage `json:"stimulus"`
			Warmup   *float64                   `json:"warmup_request_count"`
		} `json:"perf_analyzer"`
		Input *struct {
			Entries *float64 `json:"num_dataset_entries"`
		} `json:"input"`
		// Earlier genai-perf's arguments: --warmup-request-count, and
		// --num-dataset-entries, called --num-prompts before it.
		Warmup     *float64 `json:"warmup_request_count"`
		Entries    *float64 `json:"num_dataset_entries"`
		NumPrompts *float64 `json:"num_prompts"`
		aiperfLoadgen
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return exportLoad{}, err
	}
	var l exportLoad
	for _, names := range [][]string{c.ModelNames, c.Model} {
		if len(names) > 0 && l.model == "" {
			l.model = names[0]
		}
	}
	if c.Endpoint != nil && len(c.Endpoint.ModelNames) > 0 {
		l.model = c.Endpoint.ModelNames[0]
	}
	if c.Models != nil && len(c.Models.Items) > 0 {
		l.model = c.Models.Items[0].Name
	}
	switch {
	case len(c.Phases) > 0:
		return aiperfPhases(c.Phases, l)
	case c.Loadgen != nil:
		return c.Loadgen.load(l, "poisson")
	case c.PerfAnalyzer != nil && c.PerfAnalyzer.Stimulus != nil:
		g := aiperfLoadgen{RequestCount: c.RequestCount}
		for k, v := range c.PerfAnalyzer.Stimulus {
			switch k {
			case "concurrency":
				g.Concurrency = v
			case "request_rate":
				g.RequestRate = v
			}
		}
		var entries *float64
		if c.Input != nil {
			entries = c.Input.Entries
		}
		if err := l.setCycle(c.PerfAnalyzer.Warmup, entries, "perf_analyzer.warmup_request_count", "input.num_dataset_entries"); err != nil {
			return l, err
		}
		return g.load(l, "constant")
	default:
		if len(c.Model) > 0 { // genai-perf's, not aiperf's, top-level layout
			entries, name := c.Entries, "num_dataset_entries"
			if entries == nil {
				entries, name = c.NumPrompts, "num_prompts"
			}
			if err := l.setCycle(c.Warmup, entries, "warmup_request_count", name); err != nil {
				return l, err
			}
		}
		return c.aiperfLoadgen.load(l, "constant")
	}
}

// setCycle records genai-perf's warm-up request count and dataset size,
// each nil when the export does not record it. perf_analyzer sends the
// warm-up requests, waits for them, and starts the measured ones from the
// dataset's first entry, cycling through it (Point.WarmupRepeats,
// Point.DatasetEntries).
func (l *exportLoad) setCycle(warmup, entries *float64, warmupName, entriesName string) error {
	whole := func(name string, x *float64, least float64) (int, error) {
		if x == nil {
			return 0, nil
		}
		if !(*x >= least) || *x > math.MaxInt32 || *x != math.Trunc(*x) {
			return 0, fmt.Errorf("%s %v must be a whole number >= %v", name, *x, least)
		}
		return int(*x), nil
	}
	var err error
	if l.warmup, err = whole(warmupName, warmup, 0); err != nil {
		return err
	}
	l.entries, err = whole(entriesName, entries, 1)
	return err
}

// aiperfLoadgen is the load of earlier aiperf's loadgen block, or of
// genai-perf's configuration. Concurrency and rate are raw: a sweep lists
// several, which one run's point cannot be.
type aiperfLoadgen struct {
	Concurrency       json.RawMessage `json:"concurrency"`
	RequestRate       json.RawMessage `json:"request_rate"`
	RequestCount      *int            `json:"request_count"`
	RequestRateMode   string          `json:"request_rate_mode"`
	ArrivalPattern    string          `json:"arrival_pattern"`
	ArrivalSmoothness *float64        `json:"arrival_smoothness"`
}

// load reads g; mode is the arrival process when g names none.
func (g aiperfLoadgen) load(l exportLoad, mode string) (exportLoad, error) {
	conc, err := oneNumber("concurrency", g.Concurrency)
	if err != nil {
		return l, err
	}
	rate, err := oneNumber("request_rate", g.RequestRate)
	if err != nil {
		return l, err
	}
	if g.RequestCount != nil {
		l.requests = *g.RequestCount
	}
	named := ""
	for _, m := range []string{g.RequestRateMode, g.ArrivalPattern} {
		if m != "" {
			named = strings.ToLower(m)
		}
	}
	if named != "" || rate == 0 {
		mode = named // the default applies to a request rate only
	}
	smooth := 0.0
	if g.ArrivalSmoothness != nil {
		smooth = *g.ArrivalSmoothness
	}
	return l.set(conc, rate, mode, smooth)
}

// aiperfPhase is one phase of aiperf's schema-1.3 configuration.
type aiperfPhase struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Concurrency *float64 `json:"concurrency"`
	Rate        *float64 `json:"rate"`
	Requests    *int     `json:"requests"`
	Smoothness  *float64 `json:"smoothness"`
}

// aiperfPhases reads the profiling phase of aiperf's phases (the one named
// profiling, else the last that is not the warm-up).
func aiperfPhases(phases []aiperfPhase, l exportLoad) (exportLoad, error) {
	var ph *aiperfPhase
	for i := range phases {
		switch strings.ToLower(phases[i].Name) {
		case "profiling":
			ph = &phases[i]
		case "warmup", "warm-up", "warm_up":
		default:
			if ph == nil || strings.ToLower(ph.Name) != "profiling" {
				ph = &phases[i]
			}
		}
	}
	if ph == nil {
		return l, errors.New("phases hold no profiling phase")
	}
	get := func(x *float64) float64 {
		if x == nil {
			return 0
		}
		return *x
	}
	if ph.Requests != nil {
		l.requests = *ph.Requests
	}
	typ := strings.ToLower(ph.Type)
	if typ == "concurrency" {
		return l.set(get(ph.Concurrency), 0, "", 0)
	}
	return l.set(get(ph.Concurrency), get(ph.Rate), typ, get(ph.Smoothness))
}

// set fills in the load: a closed loop of conc clients when rate is 0,
// else an open loop at rate under a cap of conc, its gaps by mode.
func (l exportLoad) set(conc, rate float64, mode string, smoothness float64) (exportLoad, error) {
	switch {
	case conc < 0 || conc > math.MaxInt32 || conc != math.Trunc(conc):
		return l, fmt.Errorf("concurrency %v must be a whole number >= 1", conc)
	case rate < 0 || math.IsInf(rate, 0) || math.IsNaN(rate):
		return l, fmt.Errorf("request_rate %v must be a number > 0", rate)
	case rate == 0 && conc == 0:
		return l, errors.New("sets neither a concurrency nor a request rate")
	}
	l.concurrency = int(conc)
	if rate == 0 {
		if mode != "" && mode != "concurrency_burst" && mode != "concurrency" {
			return l, fmt.Errorf("arrival %q without a request rate", mode)
		}
		return l, nil
	}
	l.rate, l.burstiness = rate, 1
	switch mode {
	case "poisson":
	case "constant":
		l.burstiness = math.Inf(1)
	case "gamma":
		if !(smoothness > 0) || math.IsInf(smoothness, 0) {
			return l, fmt.Errorf("gamma arrivals with smoothness %v: want a number > 0 (vLLM's burstiness)", smoothness)
		}
		l.burstiness = smoothness
	default:
		return l, fmt.Errorf("arrival %q with a request rate is not modelled: want poisson, constant or gamma", mode)
	}
	return l, nil
}

// oneNumber reads a concurrency or rate: a number, null or absent (0), or
// a one-element list; a longer list is a sweep, which one point is not.
func oneNumber(name string, raw json.RawMessage) (float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, nil
	}
	var x float64
	if json.Unmarshal(raw, &x) == nil {
		return x, nil
	}
	var xs []float64
	if err := json.Unmarshal(raw, &xs); err != nil {
		return 0, fmt.Errorf("%s %s: want a number", name, s)
	}
	switch len(xs) {
	case 0:
		return 0, nil
	case 1:
		return xs[0], nil
	}
	return 0, fmt.Errorf("%s %s: a sweep of %d runs; give the export of one", name, s, len(xs))
}

// seconds returns the mean of stat in seconds; 0 when it is absent and
// not required.
func seconds(name string, stat *aiperfStat, required bool) (float64, error) {
	if stat == nil || stat.Avg == nil {
		if required {
			return 0, fmt.Errorf("%s has no avg", name)
		}
		return 0, nil
	}
	scale := map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "sec": 1}[strings.ToLower(stat.Unit)]
	if scale == 0 {
		return 0, fmt.Errorf("%s unit %q: want ns, us, ms or s", name, stat.Unit)
	}
	x := *stat.Avg * scale
	if !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s avg %v %s must be a time > 0", name, *stat.Avg, stat.Unit)
	}
	return x, nil
}

// aiperfRecord is one line of aiperf's per-request export
// (profile_export.jsonl).
type aiperfRecord struct {
	Metadata struct {
		Phase          string   `json:"benchmark_phase"`
		RequestStartNS *float64 `json:"request_start_ns"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

// ReadAIPerfRecords adds to pt, read from an aiperf export by
// ReadAIPerfExport, the requests of the per-request records aiperf writes
// beside it (profile_export.jsonl, one JSON object a line), as
// ReadVLLMResult does with a --save-detailed file: the profiling phase's
// completed requests (no error) give their input_sequence_length and
// output_sequence_length in the order they were sent (request_start_ns),
// the run re-simulates them only, and an open loop without a concurrency
// cap is replayed at their start times. Records of other phases (warm-up),
// failed ones and those without an output token counted (aiperf counts
// none for a response without text) are left out. A malformed line, a
// completed record without its input length or start, or no completed
// record are errors naming the line.
func ReadAIPerfRecords(r io.Reader, source string, pt Point) (Point, error) {
	dec := json.NewDecoder(r)
	var pairs []workload.Pair
	var starts []float64
	for line := 1; ; line++ {
		var rec aiperfRecord
		if err := dec.Decode(&rec); err == io.EOF {
			break
		} else if err != nil {
			return Point{}, invalidf("%s: record %d: %v", source, line, err)
		}
		if ph := rec.Metadata.Phase; ph != "" && ph != "profiling" {
			continue
		}
		if e := strings.TrimSpace(string(rec.Error)); e != "" && e != "null" {
			continue
		}
		if out, ok := rec.Metrics["output_sequence_length"]; !ok || strings.TrimSpace(string(out.Value)) == "0" {
			continue // no output token counted (a response without text): not a completed generation
		}
		var lens [2]int
		for k, name := range []string{"input_sequence_length", "output_sequence_length"} {
			m, ok := rec.Metrics[name]
			var x float64
			if !ok || json.Unmarshal(m.Value, &x) != nil || x != math.Trunc(x) || x < float64(k) || x > workload.MaxTokens {
				return Point{}, invalidf("%s: record %d: %s %s must be a whole number of tokens in [%d, %d]", source, line, name, string(m.Value), k, workload.MaxTokens)
			}
			lens[k] = int(x)
		}
		start := rec.Metadata.RequestStartNS
		if start == nil || math.IsNaN(*start) || math.IsInf(*start, 0) {
			return Point{}, invalidf("%s: record %d: a completed request needs its request_start_ns", source, line)
		}
		pairs = append(pairs, workload.Pair{Input: lens[0], Output: lens[1]})
		starts = append(starts, *start/1e9)
	}
	if len(pairs) == 0 {
		return Point{}, invalidf("%s: no completed request of the profiling phase", source)
	}
	times, ordered := replay(starts, pairs)
	pt.Lengths, pt.NumPrompts = ordered, len(ordered)
	if pt.Concurrency == 0 && pt.MaxConcurrency == 0 {
		if last := times[len(times)-1]; math.IsInf(last, 0) {
			return Point{}, invalidf("%s: request_start_ns span %v s: the times must differ by a finite number of seconds", source, last)
		}
		pt.Arrivals = times
	}
	return pt, nil
}
