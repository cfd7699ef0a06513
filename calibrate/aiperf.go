package calibrate

import (
	"bytes"
	"encoding/json"
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

// aiperfLoad is the load generator's configuration as the export records
// it (aiperf: input_config.loadgen; genai-perf: input_config itself).
type aiperfLoad struct {
	Concurrency     *int     `json:"concurrency"`
	RequestRate     *float64 `json:"request_rate"`
	RequestRateMode string   `json:"request_rate_mode"`
	RequestCount    *int     `json:"request_count"`
}

// aiperfExport holds what a calibration reads from aiperf's
// profile_export_aiperf.json or genai-perf's profile_export_genai_perf.json.
type aiperfExport struct {
	TTFT         *aiperfStat `json:"time_to_first_token"`
	ITL          *aiperfStat `json:"inter_token_latency"`
	Latency      *aiperfStat `json:"request_latency"`
	Throughput   *aiperfStat `json:"output_token_throughput"`
	InputLength  *aiperfStat `json:"input_sequence_length"`
	OutputLength *aiperfStat `json:"output_sequence_length"`
	RequestCount *aiperfStat `json:"request_count"`
	InputConfig  *struct {
		aiperfLoad
		Loadgen  *aiperfLoad `json:"loadgen"`
		Endpoint *struct {
			ModelNames []string `json:"model_names"`
		} `json:"endpoint"`
		ModelNames []string `json:"model_names"`
	} `json:"input_config"`
}

// IsAIPerfExport reports whether data is the aggregated export of aiperf
// (profile_export_aiperf.json) or genai-perf
// (profile_export_genai_perf.json) rather than a vllm bench serve result:
// a JSON object with the input_config those tools record and their
// time_to_first_token statistics.
func IsAIPerfExport(data []byte) bool {
	var probe struct {
		InputConfig json.RawMessage `json:"input_config"`
		TTFT        json.RawMessage `json:"time_to_first_token"`
	}
	if json.Unmarshal(pyjson.Standard(data), &probe) != nil {
		return false
	}
	return len(probe.InputConfig) > 0 && len(probe.TTFT) > 0 && probe.TTFT[0] == '{'
}

// ReadAIPerfExport reads the aggregated export of aiperf
// (profile_export_aiperf.json) or genai-perf (profile_export_genai_perf.json),
// the clients NVIDIA's Dynamo and aiconfigurator benchmark with, as a
// point. The load is the export's input_config (aiperf: its loadgen):
// concurrency c without a request_rate is a closed loop of c clients that
// start together (both clients wait out their warm-up), request_count
// requests measured; a request_rate is an open loop, Poisson unless
// request_rate_mode is constant, capped by a concurrency. The lengths are
// the means of input_sequence_length and output_sequence_length, rounded;
// the model is the first of its model_names. The metrics are the means of
// time_to_first_token, inter_token_latency (per request, (latency − TTFT)
// over the tokens after the first, vLLM's TPOT), request_latency (E2E) and
// output_token_throughput, in their recorded units (ns, us, ms, s).
// Missing statistics, an unknown unit, or a load it cannot tell are errors
// naming the field; the GPU and TP are not in the file: the caller fills
// them in.
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
	if v.InputConfig == nil {
		return Point{}, invalidf("%s: no input_config: not an aiperf or genai-perf export", source)
	}
	p := Point{ID: source, Source: source, Precision: "bf16"}
	names := v.InputConfig.ModelNames
	if e := v.InputConfig.Endpoint; e != nil && len(e.ModelNames) > 0 {
		names = e.ModelNames
	}
	if len(names) > 0 {
		p.Model = names[0]
	}
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
	load := v.InputConfig.aiperfLoad
	if lg := v.InputConfig.Loadgen; lg != nil {
		load = *lg
	}
	count := 0
	if load.RequestCount != nil {
		count = *load.RequestCount
	}
	if rc := v.RequestCount; rc != nil && rc.Avg != nil && *rc.Avg >= 1 && *rc.Avg <= math.MaxInt32 {
		count = int(*rc.Avg) // the requests profiled
	}
	if count < 1 {
		return Point{}, invalidf("%s: request_count %d: need the profiled requests (>= 1)", source, count)
	}
	p.NumPrompts = count
	conc := 0
	if load.Concurrency != nil {
		conc = *load.Concurrency
	}
	switch rate := load.RequestRate; {
	case conc < 0:
		return Point{}, invalidf("%s: concurrency %d must be >= 1", source, conc)
	case rate != nil:
		if !(*rate > 0) || math.IsInf(*rate, 0) {
			return Point{}, invalidf("%s: request_rate %v must be a number > 0", source, *rate)
		}
		p.Rate, p.MaxConcurrency, p.Burstiness = *rate, conc, 1
		switch strings.ToLower(load.RequestRateMode) {
		case "", "poisson":
		case "constant":
			p.Burstiness = math.Inf(1)
		default:
			return Point{}, invalidf("%s: request_rate_mode %q with a request_rate: want poisson or constant", source, load.RequestRateMode)
		}
	case conc > 0:
		p.Concurrency = conc
	default:
		return Point{}, invalidf("%s: input_config sets neither concurrency nor request_rate", source)
	}
	return p, nil
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
// cap is replayed at their start times. Records of other phases (warm-up)
// and failed ones are left out. A malformed line, a completed record
// without its lengths or start, or no completed record are errors naming
// the line.
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
