package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vllmCommands are real `vllm bench serve` command lines, copied from
// vLLM's docs, scripts and tests and from public issues (the sources are
// testdata/vllm/commands.txt and docs/benchmarking/cli.md@069c00b0). Each
// runs unchanged but for the program name and its placeholders
// (<your data path>, $MODEL, ...), which vllmPlaceholders fills with
// testdata/vllmdata files and values.
var vllmCommands = []struct{ source, line string }{
	{"docs/benchmarking/cli.md@069c00b0 Online Benchmark",
		`vllm bench serve --backend vllm --model NousResearch/Hermes-3-Llama-3.1-8B --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 10`},
	{"docs/benchmarking/cli.md@069c00b0 Results Visualization",
		`vllm bench serve --backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 100 --plot-timeline --timeline-itl-thresholds 2,5 --plot-dataset-stats --save-result`},
	{"docs/benchmarking/cli.md@069c00b0 Custom Dataset",
		`vllm bench serve --port 9001 --save-result --save-detailed --backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name custom --dataset-path <path-to-your-data-jsonl> --skip-chat-template --num-prompts 80 --max-concurrency 1 --temperature=0.3 --top-p=0.75 --result-dir "./log/"`},
	{"docs/benchmarking/cli.md@069c00b0 Spec Bench, all categories",
		`vllm bench serve --model meta-llama/Meta-Llama-3-8B-Instruct --dataset-name spec_bench --dataset-path "<YOUR_DOWNLOADED_PATH>/data/spec_bench/question.jsonl" --num-prompts -1`},
	{"docs/benchmarking/cli.md@069c00b0 Spec Bench, one category",
		`vllm bench serve --model meta-llama/Meta-Llama-3-8B-Instruct --dataset-name spec_bench --dataset-path "<YOUR_DOWNLOADED_PATH>/data/spec_bench/question.jsonl" --num-prompts -1 --spec-bench-category "summarization"`},
	{"docs/benchmarking/cli.md@069c00b0 Running With Sampling Parameters",
		`vllm bench serve --backend vllm --model NousResearch/Hermes-3-Llama-3.1-8B --endpoint /v1/completions --dataset-name sharegpt --dataset-path <your data path>/ShareGPT_V3_unfiltered_cleaned_split.json --top-k 10 --top-p 0.9 --temperature 0.5 --num-prompts 10`},
	{"docs/benchmarking/cli.md@069c00b0 Prefix Repetition Dataset (also PR vllm-project/vllm#23012)",
		`vllm bench serve --backend openai --model meta-llama/Llama-2-7b-chat-hf --dataset-name prefix_repetition --num-prompts 100 --prefix-repetition-prefix-len 512 --prefix-repetition-suffix-len 128 --prefix-repetition-num-prefixes 5 --prefix-repetition-output-len 128`},
	{"docs/benchmarking/cli.md@069c00b0 Responses API Benchmark",
		`vllm bench serve --backend openai-responses --endpoint /v1/responses --model openai/gpt-oss-20b --dataset-name random --random-input-len 1024 --random-output-len 1024 --num-prompts 200`},
	{"benchmarks/auto_tune/auto_tune.sh@3ed2c21a, first run",
		`vllm bench serve --backend vllm --model $MODEL --dataset-name random --random-input-len $adjusted_input_len --random-output-len $OUTPUT_LEN --ignore-eos --disable-tqdm --request-rate inf --percentile-metrics ttft,tpot,itl,e2el --goodput e2el:$MAX_LATENCY_ALLOWED_MS --num-prompts 1000 --random-prefix-len $prefix_len --port 8004`},
	{"benchmarks/auto_tune/auto_tune.sh@3ed2c21a, final profiling run",
		`vllm bench serve --backend vllm --model $MODEL --dataset-name random --random-input-len $adjusted_input_len --random-output-len $OUTPUT_LEN --ignore-eos --disable-tqdm --request-rate $best_request_rate --percentile-metrics ttft,tpot,itl,e2el --goodput e2el:$MAX_LATENCY_ALLOWED_MS --num-prompts 100 --random-prefix-len $prefix_len --port 8004 --profile`},
	{"tests/benchmarks/test_serve_cli.py@1dd0d314 test_bench_serve",
		`vllm bench serve --model meta-llama/Llama-3.2-1B-Instruct --host $HOST --port $PORT --dataset-name random --random-input-len 32 --random-output-len 4 --num-prompts 5`},
	{"tests/benchmarks/test_serve_cli.py@1dd0d314 test_bench_serve_chat",
		`vllm bench serve --model meta-llama/Llama-3.2-1B-Instruct --host $HOST --port $PORT --dataset-name random --random-input-len 32 --random-output-len 4 --num-prompts 5 --endpoint /v1/chat/completions --backend openai-chat`},
	{"https://github.com/vllm-project/vllm-ascend/issues/13574 (--random-input: an argparse prefix)",
		`vllm bench serve --model /workspace/shared_assets/QuenchingAction/Toolchain/Model/Qwen3-8B --served-model-name qwen3 --port 8113 --dataset-name random --random-input 200 --num-prompts 200 --request-rate 1 --save-result --result-dir ./`},
	{"https://github.com/vllm-project/vllm-ascend/pull/3218 (--num-prompt: an argparse prefix)",
		`vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --backend vllm --dataset-name sharegpt --dataset-path ${DATASET_PATH} --num-prompt 200`},
	{"https://github.com/vllm-project/vllm-skills/pull/13",
		`vllm bench serve --backend openai-chat --host 127.0.0.1 --port 8000 --endpoint /v1/chat/completions --dataset-name random --num-prompts 1000`},
}

// vllmPlaceholders fills the placeholders of vllmCommands; data is the
// absolute path of testdata/vllmdata.
func vllmPlaceholders(data string) *strings.Replacer {
	return strings.NewReplacer(
		"<your data path>", data,
		"<path-to-your-data-jsonl>", filepath.Join(data, "data.jsonl"),
		"<YOUR_DOWNLOADED_PATH>", data,
		"${DATASET_PATH}", filepath.Join(data, "ShareGPT_V3_unfiltered_cleaned_split.json"),
		"$MODEL", "meta-llama/Llama-3.1-8B-Instruct",
		"$adjusted_input_len", "1500", "$OUTPUT_LEN", "100", "$MAX_LATENCY_ALLOWED_MS", "5000",
		"$prefix_len", "100", "$best_request_rate", "8", "$HOST", "127.0.0.1", "$PORT", "8000",
	)
}

// shellWords splits a command line as a POSIX shell does for these lines:
// blanks separate words, single and double quotes group them.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestVLLMCommandLines runs every command of vllmCommands and checks that
// the result JSON (for those that save one) has the keys, in the order,
// and the JSON types of a vLLM result file for the same flags.
func TestVLLMCommandLines(t *testing.T) {
	t.Parallel()
	if len(vllmCommands) < 15 {
		t.Fatalf("%d command lines, want at least 15", len(vllmCommands))
	}
	data, err := filepath.Abs("testdata/vllmdata")
	if err != nil {
		t.Fatal(err)
	}
	fill := vllmPlaceholders(data)
	for i, c := range vllmCommands {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			args := shellWords(fill.Replace(c.line))
			if args[0] != "vllm" || args[1] != "bench" || args[2] != "serve" {
				t.Fatalf("%s: not a vllm bench serve line", c.source)
			}
			args = append([]string{"bench"}, args[3:]...)
			dir := t.TempDir()
			r := servesimIn(t, dir, nil, args...)
			if r.code != 0 {
				t.Fatalf("%s\n%s: exit %d\n%s", c.source, c.line, r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, "============ Serving Benchmark Result ============\n") {
				t.Errorf("%s: no summary block", c.source)
			}
			var files []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
					files = append(files, p)
				}
				return nil
			})
			saves := slices.Contains(args, "--save-result") || slices.Contains(args, "--append-result")
			if saves != (len(files) == 1) {
				t.Fatalf("%s: result files %v, want one exactly when the line saves", c.source, files)
			}
			if !saves {
				return
			}
			got, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			checkVLLMKeys(t, c.source, got, vllmKeys(t, args))
		})
	}
}

// A jsonKey is a key of vLLM's result file with its JSON type.
type jsonKey struct{ key, kind string }

// kindOf names a decoded JSON value's type: null, str, int, float, bool,
// dict, or list[...] of its first element's kind.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case []any:
		if len(x) == 0 {
			return "list[]"
		}
		return "list[" + kindOf(x[0]) + "]"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// orderedKinds decodes a JSON object and returns its keys in order with
// their kinds.
func orderedKinds(t *testing.T, data []byte) []jsonKey {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.80s", data)
	}
	var out []jsonKey
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, jsonKey{k.(string), kindOf(v)})
	}
	return out
}

// goldenKinds are the kinds of the keys of vLLM's golden result files.
func goldenKinds(t *testing.T) map[string]string {
	t.Helper()
	kinds := map[string]string{}
	for _, f := range []string{"testdata/vllm/result_random.json", "testdata/vllm/result_detailed.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range orderedKinds(t, data) {
			kinds[k.key] = k.kind
		}
	}
	return kinds
}

// vllmKeys returns the keys, in order, and their kinds that vLLM's
// main_async writes for a command line (testdata/vllm/result_keys.md),
// with the kinds of its golden files.
func vllmKeys(t *testing.T, args []string) []jsonKey {
	t.Helper()
	kinds := goldenKinds(t)
	has := func(f string) bool { return slices.Contains(args, f) }
	value := func(f, def string) string {
		for i, a := range args {
			if a == f && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				return v
			}
		}
		return def
	}
	var keys []jsonKey
	add := func(k, kind string) {
		if kind == "" {
			kind = kinds[k]
		}
		keys = append(keys, jsonKey{k, kind})
	}
	for _, k := range []string{"date", "endpoint_type", "backend"} {
		add(k, "")
	}
	add("label", map[bool]string{true: "str", false: "null"}[has("--label")])
	for _, k := range []string{"model_id", "tokenizer_id", "num_prompts"} {
		add(k, "")
	}
	add("request_rate", map[bool]string{true: "str", false: "float"}[value("--request-rate", "inf") == "inf"])
	add("burstiness", "")
	add("max_concurrency", map[bool]string{true: "int", false: "null"}[has("--max-concurrency")])
	if has("--ramp-up-strategy") {
		add("ramp_up_strategy", "str")
		add("ramp_up_start_rps", "int")
		add("ramp_up_end_rps", "int")
	}
	for _, k := range []string{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput"} {
		add(k, "")
	}
	add("request_goodput", map[bool]string{true: "float", false: "null"}[has("--goodput")])
	add("output_throughput", "")
	add("total_token_throughput", "")
	detailed := has("--save-detailed")
	for _, k := range []string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times", "generated_texts", "errors"} {
		if detailed || k == "latencies" || k == "queue_times" {
			add(k, "")
		}
	}
	for _, k := range []string{"max_output_tokens_per_s", "max_concurrent_requests", "rtfx"} {
		add(k, "")
	}
	metrics := strings.Split(value("--percentile-metrics", "ttft,tpot,itl"), ",")
	ps := strings.Split(value("--metric-percentiles", "99"), ",")
	for _, m := range []string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"} {
		if !slices.Contains(metrics, m) {
			continue
		}
		for _, s := range []string{"mean", "median", "std"} {
			add(s+"_"+m+"_ms", "float")
		}
		for _, p := range ps {
			add("p"+p+"_"+m+"_ms", "float")
		}
	}
	return keys
}

// checkVLLMKeys compares a result file's keys, order and kinds (less the
// "servesim" key, last) with want.
func checkVLLMKeys(t *testing.T, what string, data []byte, want []jsonKey) {
	t.Helper()
	got := orderedKinds(t, data)
	if n := len(got); n == 0 || got[n-1].key != "servesim" || got[n-1].kind != "dict" {
		t.Errorf("%s: the last key is not the \"servesim\" object", what)
	} else {
		got = got[:n-1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: keys and kinds differ from vLLM's\n got: %v\nwant: %v", what, got, want)
	}
}
