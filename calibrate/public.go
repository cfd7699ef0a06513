package calibrate

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadPublicServingCSV reads the published serving runs of
// shared/data/public_serving_runs.csv (gpustack's performance lab and the
// vLLM blog's FP8 KV-cache post, each row with its server and client
// setup) as points. Every row is returned, SGLang's too (IsSGLang tells
// them apart; their BackendVersion starts with "sglang-").
//
// A row is an open loop at its request_rate (inf: every request at once)
// with its max_concurrency cap and num_prompts requests (completed when
// it is set), its per-request mean lengths rounded (fixed-length random
// runs, range_ratio 0, are exact; a ShareGPT row's lengths are the means
// its source printed, so its mean TTFT depends on a length distribution
// the point does not carry). A server started with --kv-cache-dtype fp8 (as
// its notes say) runs an FP8 KV cache. A quantization of mxfp4 is precision fp4
// (gpt-oss keeps its MXFP4 experts), anything else bf16. The metrics are
// the means; a row that publishes only medians (the vLLM blog's) gives
// its median TTFT as TTFT and its median ITL as TPOT and ITL.
func ReadPublicServingCSV(r io.Reader, source string) ([]Point, error) {
	cr := csv.NewReader(r)
	col, err := csvColumns(cr, source, "point", "gpu", "tp", "model_hf_id", "vllm_version", "input_len", "output_len", "num_prompts", "request_rate")
	if err != nil {
		return nil, err
	}
	var out []Point
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, invalidf("%s: %v", source, err)
		}
		num := func(k string) (float64, bool) {
			c, ok := col[k]
			if !ok {
				return 0, false
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[c]), 64)
			return v, err == nil && !math.IsNaN(v)
		}
		p := Point{ID: strings.TrimSpace(rec[col["point"]]), Source: source, Model: strings.TrimSpace(rec[col["model_hf_id"]]),
			GPU: strings.TrimSpace(rec[col["gpu"]]), BackendVersion: strings.TrimSpace(rec[col["vllm_version"]]), Precision: "bf16"}
		if optionalString(rec, col, "quantization") == "mxfp4" {
			p.Precision = "fp4"
		}
		if strings.Contains(optionalString(rec, col, "notes"), "--kv-cache-dtype fp8") {
			p.KVCache = "fp8"
		}
		tp, _ := num("tp")
		in, okIn := num("input_len")
		outLen, okOut := num("output_len")
		if tp < 1 || tp != math.Trunc(tp) || !okIn || !okOut || !(in >= 1) || !(outLen >= 1) || math.IsInf(in, 0) || math.IsInf(outLen, 0) {
			return nil, invalidf("%s line %d: tp %q, input_len %q and output_len %q must be numbers >= 1 (tp an integer)", source, line,
				rec[col["tp"]], rec[col["input_len"]], rec[col["output_len"]])
		}
		p.TP, p.Input, p.Output = int(tp), int(math.Round(in)), int(math.Round(outLen))
		rate, ok := num("request_rate")
		if !ok || !(rate > 0) {
			return nil, invalidf("%s line %d: request_rate %q must be a number > 0 or inf", source, line, rec[col["request_rate"]])
		}
		p.Rate = rate
		p.MaxConcurrency = optionalInt(rec, col, "max_concurrency")
		p.NumPrompts = optionalInt(rec, col, "num_prompts")
		if n := optionalInt(rec, col, "completed"); n > 0 {
			p.NumPrompts = n
		}
		if p.NumPrompts < 1 {
			return nil, invalidf("%s line %d: num_prompts %q must be an integer >= 1", source, line, rec[col["num_prompts"]])
		}
		if b, ok := num("burstiness"); ok && b > 0 {
			p.Burstiness = b
		}
		p.MaxNumSeqs, p.MaxNumBatchedTokens = optionalInt(rec, col, "max_num_seqs"), optionalInt(rec, col, "max_num_batched_tokens")
		ms := func(mean, median string) float64 {
			if v, ok := num(mean); ok && v > 0 && !math.IsInf(v, 0) {
				return v / 1000
			}
			if v, ok := num(median); ok && v > 0 && !math.IsInf(v, 0) {
				return v / 1000
			}
			return 0
		}
		p.Measured = Metrics{TTFT: ms("mean_ttft_ms", "median_ttft_ms"), TPOT: ms("mean_tpot_ms", "median_itl_ms"),
			ITL: ms("mean_itl_ms", "median_itl_ms"), E2E: ms("mean_e2el_ms", "median_e2el_ms")}
		if v, ok := num("output_throughput"); ok && v > 0 && !math.IsInf(v, 0) {
			p.Measured.OutputThroughput = v
		}
		out = append(out, p)
	}
}

// IsSGLang reports whether p was measured on SGLang rather than vLLM (its
// BackendVersion starts with "sglang"); servesim models vLLM's scheduler,
// so such points are kept apart from vLLM's fidelity figures.
func IsSGLang(p Point) bool {
	return strings.HasPrefix(strings.ToLower(p.BackendVersion), "sglang")
}

// ReadRunsCSV reads a CSV of measured runs: the published serving runs of
// public_serving_runs.csv when its header has a model_hf_id column
// (ReadPublicServingCSV), else aiconfigurator's silicon rows
// (ReadSiliconCSV).
func ReadRunsCSV(r io.Reader, source string) ([]Point, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(4096)
	line, _, _ := bytes.Cut(head, []byte("\n"))
	if bytes.Contains(line, []byte("model_hf_id")) {
		return ReadPublicServingCSV(br, source)
	}
	return ReadSiliconCSV(br, source)
}
