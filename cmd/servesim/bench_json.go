package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// dateLayout is vLLM's %Y%m%d-%H%M%S.
const dateLayout = "20060102-150405"

// saveBenchResult writes the result JSON where --result-dir and
// --result-filename say (vLLM's default name otherwise) and returns the
// path.
func saveBenchResult(o *benchOptions, sc *scenario.Scenario, res *sim.Result) (string, error) {
	date := time.Now().Format(dateLayout)
	data, err := benchResultJSON(o, sc, res, date)
	if err != nil {
		return "", err
	}
	name := o.resultFilename
	if name == "" {
		name = defaultResultName(o, sc, date)
	}
	if o.resultDir != "" {
		if err := os.MkdirAll(o.resultDir, 0o755); err != nil {
			return "", err
		}
		name = filepath.Join(o.resultDir, name)
	}
	if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	return name, nil
}

// defaultResultName is vLLM's
// {label}-{request_rate}qps[-concurrency{n}]-{model}-{date}.json.
func defaultResultName(o *benchOptions, sc *scenario.Scenario, date string) string {
	label := o.label
	if label == "" {
		label = "servesim"
	}
	conc := ""
	if o.maxConcurrency > 0 {
		conc = "-concurrency" + strconv.Itoa(o.maxConcurrency)
	}
	model := o.model[strings.LastIndex(o.model, "/")+1:] // vLLM: model_id.split("/")[-1]
	switch ext := filepath.Ext(model); strings.ToLower(ext) {
	case ".json", ".yaml", ".yml": // a spec file
		model = strings.TrimSuffix(model, ext)
	}
	a := sc.Workload.Arrival
	switch a.Process {
	case "ramp":
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		return fmt.Sprintf("%s-ramp-up-%s-%sqps-%sqps%s-%s-%s.json", label, a.Strategy, g(a.Start), g(a.End), conc, model, date)
	case "trace":
		return fmt.Sprintf("%s-traceqps%s-%s-%s.json", label, conc, model, date)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, pyFloat(float64(a.Rate)), conc, model, date)
}

// benchResultJSON builds the result JSON: vLLM's header fields (date,
// backend, model_id, num_prompts, request_rate, burstiness,
// max_concurrency), servesim's description of the simulated setup, the
// sim.Result's fields (vLLM's metric names first), and with
// --save-detailed the per-request arrays. The same flags and seed give the
// same bytes except for the date.
func benchResultJSON(o *benchOptions, sc *scenario.Scenario, res *sim.Result, date string) ([]byte, error) {
	rj, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	ro, err := jsonobj.Parse(rj)
	if err != nil {
		return nil, err
	}
	var out jsonobj.Object
	var label any
	if o.label != "" {
		label = o.label
	}
	add := func(k string, v any) {
		if err == nil {
			err = out.Add(k, v)
		}
	}
	add("date", date)
	add("endpoint_type", "servesim")
	add("backend", "servesim")
	add("label", label)
	add("model_id", o.model)
	add("tokenizer_id", o.model)
	add("num_prompts", o.numPrompts)
	for _, k := range []string{"request_rate", "burstiness", "max_concurrency"} {
		out = append(out, jsonobj.Member{Key: k, Value: ro.Take(k)})
	}
	a := sc.Workload.Arrival
	if a.Process == "ramp" {
		add("ramp_up_strategy", a.Strategy)
		add("ramp_up_start_rps", a.Start)
		add("ramp_up_end_rps", a.End)
	}
	setupJSON(add, o, sc)
	if err != nil {
		return nil, err
	}
	if !o.goodputGiven {
		// vLLM writes null without --goodput.
		if err := ro.Set("request_goodput", nil); err != nil {
			return nil, err
		}
	}
	out = append(out, ro...)
	if o.saveDetailed {
		detailedJSON(add, res)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// setupJSON adds servesim's description of the simulated run.
func setupJSON(add func(string, any), o *benchOptions, sc *scenario.Scenario) {
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
		add("data_parallel_size", v.Replicas)
		if v.Replicas > 1 {
			add("router", v.Router)
		}
		// The engine's values: a 0 budget or max_model_len is vLLM's default.
		eng, _ := sc.Engine()
		add("max_num_seqs", v.MaxNumSeqs)
		add("max_num_batched_tokens", eng.MaxNumBatchedTokens)
		add("enable_chunked_prefill", v.EnableChunkedPrefill)
		add("block_size", v.BlockSize)
		add("gpu_memory_utilization", v.GPUMemoryUtilization)
		add("kv_cache_memory", nullIfZero(float64(v.KVCacheMemory)))
		add("max_model_len", nullIfZero(float64(eng.MaxModelLen)))
	}
	add("request_overhead_ms", v.RequestOverheadMS)
	if o.summaryOnly {
		add("summary_only", true) // percentiles from quantile sketches
	}
	add("dataset_name", o.datasetName)
	if o.datasetName == "trace" {
		add("dataset_path", o.datasetPath)
		add("trace_timestamps", o.traceTimestamps)
	} else {
		add("random_input_len", o.randomInputLen)
		add("random_output_len", o.randomOutputLen)
		add("random_range_ratio", o.randomRangeRatio)
	}
	add("normalize_arrivals", sc.Workload.Arrival.Normalize)
	var goodput any
	if o.goodputGiven {
		g := map[string]float64{}
		if o.slo.TTFTms > 0 {
			g["ttft"] = o.slo.TTFTms
		}
		if o.slo.TPOTms > 0 {
			g["tpot"] = o.slo.TPOTms
		}
		if o.slo.E2ELms > 0 {
			g["e2el"] = o.slo.E2ELms
		}
		goodput = g
	}
	add("goodput", goodput)
	add("slo_target", o.slo.Target)
}

func nullIfZero(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

// detailedJSON adds the per-request arrays of the measured requests, in
// arrival order. vLLM's input_lens, output_lens (0 when a request did not
// complete), ttfts and errors ("" on success) keep their meaning; times are
// seconds, null where undefined. vLLM's itls (every gap of every request)
// and generated_texts are not written: servesim keeps ITL statistics per
// engine step, not per token, and generates no text. servesim adds tpots,
// e2els, queue_times, arrival_times, send_times and statuses.
func detailedJSON(add func(string, any), res *sim.Result) {
	var (
		in, out                              []int
		ttfts, tpots, e2els, queues, arr, se []any
		errs, statuses                       []string
	)
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	for i := range res.Requests {
		r := &res.Requests[i]
		if r.Warmup {
			continue
		}
		in = append(in, r.Input)
		done := r.Status == metrics.Completed
		o, ttft, e2e, tpot, q := 0, any(nil), any(nil), any(nil), any(nil)
		if done {
			o, ttft, e2e, q = r.Output, num(r.TTFT()), num(r.E2E()), num(r.QueueTime())
			if v, ok := r.TPOT(); ok {
				tpot = num(v)
			}
		}
		out = append(out, o)
		ttfts, e2els, tpots, queues = append(ttfts, ttft), append(e2els, e2e), append(tpots, tpot), append(queues, q)
		arr = append(arr, num(r.Arrival))
		var sent any
		if r.Sent >= 0 {
			sent = num(r.Sent)
		}
		se = append(se, sent)
		e := ""
		if !done {
			e = r.Status.String()
		}
		errs = append(errs, e)
		statuses = append(statuses, r.Status.String())
	}
	add("input_lens", in)
	add("output_lens", out)
	add("ttfts", ttfts)
	add("errors", errs)
	add("tpots", tpots)
	add("e2els", e2els)
	add("queue_times", queues)
	add("arrival_times", arr)
	add("send_times", se)
	if len(res.Series) > 0 {
		add("series", res.Series) // the engine's counters over time, bounded
	}
	add("statuses", statuses)
}
