package vllmbench

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// DateLayout is vLLM's %Y%m%d-%H%M%S.
const DateLayout = "20060102-150405"

// SaveResult writes the result JSON where --result-dir and
// --result-filename say (vLLM's default name otherwise) and returns the
// path. With --append-result it adds the object as one more line of the
// file, as vLLM does; otherwise it overwrites it.
func SaveResult(o *Options, sc *scenario.Scenario, res *sim.Result) (string, error) {
	now := time.Now()
	date := now.Format(DateLayout)
	doc, err := buildResult(o, sc, res, date, now)
	if err != nil {
		return "", err
	}
	name := o.ResultFilename
	if name == "" {
		name = defaultResultName(o, date)
	}
	if o.ResultDir != "" {
		if err := os.MkdirAll(o.ResultDir, 0o755); err != nil {
			return "", err
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(o.ResultDir, name)
		}
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if o.AppendResult {
		flags = os.O_CREATE | os.O_RDWR | os.O_APPEND
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	if st, err := f.Stat(); err == nil && o.AppendResult && st.Size() > 0 {
		w.WriteByte('\n')
	}
	doc.write(w, res.Requests)
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return name, f.Close()
}

// defaultResultName is vLLM's compute_result_filename:
// {label}-{request_rate}qps[-concurrency{n}]-{model}-{date}.json, or
// {label}-ramp-up-{strategy}-{start}qps-{end}qps[-concurrency{n}]-{model}-{date}.json,
// where label falls back to --backend and model is --model's last path
// element.
func defaultResultName(o *Options, date string) string {
	label := o.Label
	if label == "" {
		label = o.Backend
	}
	conc := ""
	if o.MaxConcurrency > 0 {
		conc = "-concurrency" + strconv.Itoa(o.MaxConcurrency)
	}
	model := o.Model[strings.LastIndex(o.Model, "/")+1:]
	if o.RampStrategy != "" {
		return fmt.Sprintf("%s-ramp-up-%s-%dqps-%dqps%s-%s-%s.json", label, o.RampStrategy, o.RampStart, o.RampEnd, conc, model, date)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, PyFloat(o.RequestRate), conc, model, date)
}

// pyNum is a float written as Python's json.dump writes one: with a
// decimal point (20.0, not 20), in exponent form below 1e-4 and from
// 1e16 (1e-05, 1e+16), null when not finite.
type pyNum float64

// MarshalJSON writes Python's repr of the float.
func (f pyNum) MarshalJSON() ([]byte, error) { return appendPyNum(nil, float64(f)), nil }

// pyNums converts float lists.
func pyNums(xs []float64) []pyNum {
	out := make([]pyNum, len(xs))
	for i, x := range xs {
		out[i] = pyNum(x)
	}
	return out
}

// ParseMetadata reads --metadata KEY=VALUE pairs, both stripped, as vLLM.
func ParseMetadata(items []string) ([][2]string, error) {
	var out [][2]string
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return nil, &fielderr.Error{Field: "--metadata", Value: it, Limit: "is an invalid metadata format", Fix: "use KEY=VALUE"}
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}

// ResultJSON builds the result JSON as vLLM's main_async writes it:
// the same keys in the same order with the same JSON types (floats with a
// decimal point, "inf" for an infinite rate, null where vLLM writes None),
// and every servesim field under the one key "servesim" at the end. The
// same flags and seed give the same bytes except for the date (and, with
// a ramp, the wall-clock times of rps_change_events).
func ResultJSON(o *Options, sc *scenario.Scenario, res *sim.Result, date string, now time.Time) ([]byte, error) {
	doc, err := buildResult(o, sc, res, date, now)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	doc.write(w, res.Requests)
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildResult is ResultJSON's object: the Document's values encoded but
// the per-request lists, which stay columns over the records (SaveResult
// streams them into the file).
func buildResult(o *Options, sc *scenario.Scenario, res *sim.Result, date string, now time.Time) (resultDoc, error) {
	d, err := NewDocument(o, sc, res, date, now)
	if err != nil {
		return nil, err
	}
	var out, extra resultDoc
	for _, m := range d.Top {
		if err := out.put(m.Key, m.Value, false); err != nil {
			return nil, err
		}
	}
	for _, m := range append(d.Setup, d.Servesim...) {
		if err := extra.put(m.Key, m.Value, false); err != nil {
			return nil, err
		}
	}
	return append(out, docMember{key: "servesim", sub: &extra}), nil
}

// A Member is one member of a result document: its key and its value as
// Go holds it before it is encoded. A per-request list is a value only
// this package's writer reads (report takes those from the records).
type Member struct {
	Key   string
	Value any
}

// A Document is the result JSON of one bench run before it is written:
// the values SaveResult and ResultJSON encode, in the file's order, so
// that an in-process reader (report.FromBench) takes them typed instead
// of parsing the file back.
type Document struct {
	// Top are vLLM's members: its header (date, backend, model_id, the
	// --metadata pairs, request_rate, ...) up to duration, then from
	// duration on its results, per-request lists and percentiles.
	Top []Member
	// Setup is servesim's description of the simulated server, the
	// first members of the file's "servesim" object (server, gpu, engine
	// limits, dataset, goodput, slo_target); Servesim the rest of that
	// object: the run's fields vLLM's file lacks and, with
	// --save-detailed, servesim's own per-request lists and series.
	Setup, Servesim []Member
}

// putMember puts key with v in members: an existing key's value is replaced in
// its place (jsonobj.Object.Set's rule: a --metadata key that vLLM also
// writes keeps its place), a new key is appended.
func putMember(members *[]Member, key string, v any) {
	for i := range *members {
		if (*members)[i].Key == key {
			(*members)[i].Value = v
			return
		}
	}
	*members = append(*members, Member{key, v})
}

// NewDocument builds the result document of one bench run: the members
// vLLM's main_async writes, in its order, and servesim's own under them.
// date is the file's date (DateLayout); now stamps a ramp's
// rps_change_events.
func NewDocument(o *Options, sc *scenario.Scenario, res *sim.Result, date string, now time.Time) (*Document, error) {
	meta, err := ParseMetadata(o.Metadata)
	if err != nil {
		return nil, err
	}
	d := &Document{}
	set := func(k string, v any) { putMember(&d.Top, k, v) }
	var label, tokenizerID any
	if o.Label != "" {
		label = o.Label
	}
	if !o.SkipTokenizerInit {
		tokenizerID = o.Model
		if o.Tokenizer != "" {
			tokenizerID = o.Tokenizer
		}
	}
	set("date", date)
	set("endpoint_type", o.Backend)
	set("backend", o.Backend)
	set("label", label)
	set("model_id", o.Model)
	set("tokenizer_id", tokenizerID)
	set("num_prompts", o.NumPrompts)
	for _, kv := range meta {
		set(kv[0], kv[1])
	}
	if math.IsInf(o.RequestRate, 1) {
		set("request_rate", "inf")
	} else {
		set("request_rate", pyNum(o.RequestRate))
	}
	if math.IsInf(o.Burstiness, 1) {
		set("burstiness", "inf") // Python writes the invalid JSON Infinity
	} else {
		set("burstiness", pyNum(o.Burstiness))
	}
	var maxConc any
	if o.MaxConcurrency > 0 {
		maxConc = o.MaxConcurrency
	}
	set("max_concurrency", maxConc)
	if o.RampStrategy != "" {
		set("ramp_up_strategy", o.RampStrategy)
		set("ramp_up_start_rps", o.RampStart)
		set("ramp_up_end_rps", o.RampEnd)
	}
	set("duration", pyNum(res.Duration))
	set("completed", res.Completed)
	set("failed", res.Failed+res.Rejected)
	set("total_input_tokens", res.TotalInput)
	set("total_output_tokens", res.TotalOutput)
	set("request_throughput", pyNum(res.RequestThroughput))
	if o.GoodputGiven {
		set("request_goodput", pyNum(res.RequestGoodput))
	} else {
		set("request_goodput", nil)
	}
	set("output_throughput", pyNum(res.OutputThroughput))
	set("total_token_throughput", pyNum(res.TotalTokenThroughput))
	if o.SaveDetailed {
		set("input_lens", intColumn(func(r *metrics.Request) int { return r.Input }))
		set("output_lens", intColumn(func(r *metrics.Request) int {
			if r.Status != metrics.Completed {
				return 0
			}
			return r.Output
		}))
		set("ttfts", completedFloat((*metrics.Request).TTFT))
		set("itls", itlColumn(res))
	}
	set("latencies", completedFloat((*metrics.Request).E2E))
	if o.SaveDetailed {
		set("start_times", floatColumn(sentTime))
	}
	set("queue_times", floatColumn(func(r *metrics.Request) float64 { return sentTime(r) - r.Arrival }))
	if o.SaveDetailed {
		set("generated_texts", stringColumn(func(*metrics.Request) string { return "" }))
		set("errors", errorColumn(sc))
	}
	set("max_output_tokens_per_s", pyNum(res.MaxOutputTokensPerS))
	set("max_concurrent_requests", peakConcurrent(res))
	set("rtfx", pyNum(0))
	if o.RampStrategy != "" {
		set("rps_change_events", rpsChangeEvents(o, res, now))
	}
	setSpecDecode(set, res) // speculative decoding (speculative.go)
	shown := shownMetrics(o)
	for _, m := range metricSections {
		if !slices.Contains(shown, m.key) {
			continue
		}
		smp := SampleOf(res, m.key)
		set("mean_"+m.key+"_ms", pyNum(1000*smp.Mean()))
		set("median_"+m.key+"_ms", pyNum(1000*smp.Median()))
		set("std_"+m.key+"_ms", pyNum(1000*smp.Std()))
		for _, p := range o.Percentiles {
			set("p"+metrics.PercentileKey(p)+"_"+m.key+"_ms", pyNum(1000*smp.Percentile(p)))
		}
	}
	d.Setup, d.Servesim = servesimResult(o, sc, res)
	return d, nil
}

// itlColumn is vLLM's itls: each completed request's gaps between its
// tokens (sim.Result.TokenGaps), [] for the others.
func itlColumn(res *sim.Result) *column {
	return &column{nullEmpty: true, elem: func(b []byte, r *metrics.Request) []byte {
		b = append(b, '[')
		for i, g := range res.TokenGaps(r) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPyNum(b, g)
		}
		return append(b, ']')
	}}
}

// errorColumn is vLLM's errors: "" for a completed request, why it failed
// for the others.
func errorColumn(sc *scenario.Scenario) *column {
	why := ""
	return stringColumn(func(r *metrics.Request) string {
		switch {
		case r.Status == metrics.Completed:
			return ""
		case !r.Status.Ended():
			return "not finished: the run stopped early"
		}
		if why == "" {
			why = FailureReason(sc, true)
		}
		return r.Status.String() + ": " + why
	})
}

// rpsChangeEvents are vLLM's ramp-up events: one {"rps", "timestamp"} each
// time the whole part of the ramp's rate changes, stamped with the wall
// clock of the run (now) plus the simulated send time.
func rpsChangeEvents(o *Options, res *sim.Result, now time.Time) []any {
	events := []any{}
	n := len(res.Requests)
	last := -1
	start := now.Add(-time.Duration(res.End * float64(time.Second)))
	for i := range res.Requests {
		progress := float64(i) / float64(max(n-1, 1))
		rate := float64(o.RampStart) + float64(o.RampEnd-o.RampStart)*progress
		if o.RampStrategy == "exponential" {
			rate = float64(o.RampStart) * math.Pow(float64(o.RampEnd)/float64(o.RampStart), progress)
		}
		if rps := int(rate); rps != last {
			last = rps
			t := start.Add(time.Duration(res.Requests[i].Arrival * float64(time.Second)))
			events = append(events, map[string]any{"rps": rps, "timestamp": t.Format("2006-01-02T15:04:05.000000")})
		}
	}
	return events
}

// servesimJSON is the value of the "servesim" key: the simulated setup,
// servesim's own results (sim.Result's fields that vLLM does not have:
// server queue times, SLO attainment, stability, MBU, MFU, KV-cache
// usage, ...) and, with --save-detailed, servesim's per-request lists.
func servesimResult(o *Options, sc *scenario.Scenario, res *sim.Result) (setup, rest []Member) {
	setupJSON(func(k string, v any) { setup = append(setup, Member{k, v}) }, o, sc)
	add := func(k string, v any) { rest = append(rest, Member{k, v}) }
	if p := sc.Pricing(); p != "" {
		add("priced_by", p)
	}
	for key, v := range res.Fields() {
		if !vllmResultKey(key) {
			add(key, v) // encoded as MarshalJSON encodes it
		}
	}
	if o.SaveDetailed {
		add("tpots", nullableColumn(func(r *metrics.Request) (float64, bool) {
			if r.Status != metrics.Completed {
				return 0, false
			}
			v, ok := r.TPOT()
			return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
		}))
		add("server_queue_times", nullableColumn(func(r *metrics.Request) (float64, bool) {
			return r.QueueTime(), r.Status == metrics.Completed
		}))
		add("arrival_times", nullableColumn(func(r *metrics.Request) (float64, bool) { return r.Arrival, true }))
		add("statuses", stringColumn(func(r *metrics.Request) string { return r.Status.String() }))
		if len(res.Series) > 0 {
			add("series", res.Series) // the engine's counters over time, bounded
		}
	}
	return setup, rest
}

// vllmResultKey reports whether sim.Result's JSON key k is one vLLM's
// file has at the top level (or would, for another --percentile-metrics).
func vllmResultKey(k string) bool {
	switch k {
	case "duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput",
		"request_goodput", "output_throughput", "total_token_throughput", "max_concurrent_requests",
		"request_rate", "burstiness", "max_concurrency":
		return true
	}
	if !strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_queue_time_ms") && !strings.Contains(k, "client_queue_time") {
		return false
	}
	for _, m := range metricSections {
		if strings.HasSuffix(k, "_"+m.key+"_ms") {
			return true
		}
	}
	return false
}

// setupJSON adds servesim's description of the simulated run.
//
// slo_target stays the last key: report.Load takes the servesim object's
// keys up to it as the run's setup and the rest as its results.
func setupJSON(add func(string, any), o *Options, sc *scenario.Scenario) {
	v := sc.Server
	add("server", v.Kind)
	add("gpu", v.GPU)
	add("tensor_parallel_size", v.TensorParallelSize)
	if v.Kind == scenario.KindFCFS {
		add("servers", v.Servers)
		svc := v.Service
		if svc == "" {
			svc = "cost-model"
		}
		add("service_time", svc)
	} else {
		add("data_parallel_size", max(v.DataParallelSize, 1))
		if v.EnableExpertParallel {
			add("enable_expert_parallel", true)
		}
		if v.Replicas > 1 {
			add("replicas", v.Replicas)
		}
		if v.Topology != "" {
			add("topology", v.Topology)
		}
		// The engine's values, vllm serve's defaults filled in.
		eng, err := sc.Engine()
		if err == nil && v.Replicas*max(v.DataParallelSize, 1) > 1 && eng.Deployment.DP <= 1 {
			add("router", v.Router)
		}
		add("max_num_seqs", eng.MaxNumSeqs)
		add("max_num_batched_tokens", eng.MaxNumBatchedTokens)
		add("enable_chunked_prefill", v.EnableChunkedPrefill)
		add("block_size", v.BlockSize)
		add("gpu_memory_utilization", v.GPUMemoryUtilization)
		add("kv_cache_memory", nullIfZero(float64(v.KVCacheMemory)))
		add("num_gpu_blocks_override", nullIfZero(float64(v.NumGPUBlocksOverride)))
		add("max_model_len", nullIfZero(float64(eng.MaxModelLen)))
		add("dtype", v.DType)
		add("kv_cache_dtype", v.KVCacheDType)
		add("quantization", nullIfEmpty(v.Quantization))
		if m, err := sc.Model(); err == nil {
			add("weight_precision", weightPrecision(m))
			add("kv_bytes_per_element", m.KVBytes)
		}
	}
	add("request_overhead_ms", v.RequestOverheadMS)
	if o.SummaryOnly {
		add("summary_only", true) // percentiles from quantile sketches
	}
	add("dataset_name", o.DatasetName)
	if o.DatasetPath != "" {
		add("dataset_path", o.DatasetPath)
	}
	if o.DatasetName == "random" {
		add("random_input_len", o.RandomInputLen)
		add("random_output_len", o.RandomOutputLen)
		add("random_range_ratio", o.RangeIn)
		if o.RangeOut != nil {
			add("random_output_range_ratio", *o.RangeOut)
		}
		add("random_prefix_len", o.RandomPrefixLen)
	}
	if o.Tokens != "" {
		add("prompt_token_counts", o.Tokens)
	}
	add("num_requests_simulated", sc.Requests)
	add("num_warmups", o.NumWarmups)
	add("normalize_arrivals", sc.Workload.Arrival.Normalize)
	var goodput any
	if o.GoodputGiven {
		g := map[string]float64{}
		if o.SLO.TTFTms > 0 {
			g["ttft"] = o.SLO.TTFTms
		}
		if o.SLO.TPOTms > 0 {
			g["tpot"] = o.SLO.TPOTms
		}
		if o.SLO.E2ELms > 0 {
			g["e2el"] = o.SLO.E2ELms
		}
		goodput = g
	}
	add("goodput", goodput)
	add("slo_target", o.SLO.Target)
}

// weightPrecision names the precision the model's weights are served in,
// and its routed experts' when only they are quantized ("bf16, experts
// mxfp4" for gpt-oss).
func weightPrecision(m cost.ModelSpec) string {
	name := fmt.Sprintf("%g bytes", m.WeightBytes)
	if m.GEMM != cost.PrecisionUnset {
		name = m.GEMM.String()
	}
	if m.ExpertGEMM != cost.PrecisionUnset && m.ExpertGEMM != m.GEMM {
		name += ", experts " + m.ExpertGEMM.String()
	}
	return name
}

func nullIfZero(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
