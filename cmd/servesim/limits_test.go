package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs servesim in process, through run, as main does.
func runCLI(args ...string) result {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return result{out.String(), errb.String(), code}
}

// scenarioFile writes a scenario into dir and returns its path.
func scenarioFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLimits drives every item of "no crash, no silent nonsense" through
// the CLI: a bad or extreme input exits 2 with one line naming the flag
// or field, the value and the limit; an input that runs says on stderr
// what went wrong when requests fail.
func TestLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yaml := func(name, body string) string { return scenarioFile(t, dir, name, body) }
	const open = "workload:\n  arrival: {rate: 5}\n"
	grid := mustRunCLI(t, "capacity", "--quiet", "--goodput", "ttft:500", "--num-prompts", "40", "--grid", "5", "--replications", "1", "--shard", "0/1")
	gridFile := yaml("grid.json", grid.stdout)
	runOut := mustRunCLI(t, "run", "--quiet", yaml("tiny.yaml", "requests: 40\n"+open), "--format", "json")
	runFile := yaml("run.json", runOut.stdout)
	many := strings.Repeat("1,", 100) + "2" // 101 rates

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string // substrings of stderr (its last line when code is 2)
		stdout []string // substrings of stdout
	}{
		// Crashes and unbounded runs: hard limits, each named with its reason.
		{"num-prompts 1e9", []string{"bench", "--num-prompts", "1e9"}, 2, []string{"--num-prompts 1000000000 exceeds 10000000", "every request's record", "--summary-only"}, nil},
		{"num-warmups 1e9", []string{"capacity", "--goodput", "ttft:100", "--num-warmups", "1e9"}, 2, []string{"--num-prompts 1000 + --num-warmups 1000000000 = 1000001000 requests exceed 10000000", "--summary-only"}, nil},
		{"num-prompts past the summary limit", []string{"bench", "--summary-only", "--num-prompts", "2e9"}, 2, []string{`invalid value "2e9" for --num-prompts: exceeds 1000000000`}, nil},
		{"summary-only and save-detailed", []string{"bench", "--summary-only", "--save-detailed"}, 2, []string{"--save-detailed needs every request's record: drop --summary-only"}, nil},
		{"capacity replications 1e8", []string{"capacity", "--goodput", "ttft:500", "--replications", "1e8"}, 2, []string{`invalid value "1e8" for --replications: exceeds 1000`, "runs a probe may have"}, nil},
		{"tp replications 1e8", []string{"tp", "--goodput", "ttft:500", "--replications", "100000000"}, 2, []string{`invalid value "100000000" for --replications: exceeds 1000`}, nil},
		{"capacity grid too large", []string{"capacity", "--goodput", "ttft:500", "--grid", many, "--replications", "1000"}, 2, []string{"101 rates × 1000 replications = 101000 runs exceed 100000"}, nil},
		{"capacity scenario replications", []string{"capacity", yaml("reps5000.yaml", "replications: 5000\nslo: {ttft_ms: 500}\n"+open)}, 2, []string{"replications 5000 exceed 1000", "--replications"}, nil},
		{"scenario replications 1e8", []string{"run", yaml("reps1e8.yaml", "replications: 1e8\n"+open)}, 2, []string{"reps1e8.yaml:1: replications: 100000000 exceeds 100000", "split it"}, nil},
		{"scenario replications 1e12", []string{"run", yaml("reps1e12.yaml", "replications: 1e12\n"+open)}, 2, []string{"replications: 1000000000000 exceeds 100000"}, nil},
		{"scenario replications 1e30", []string{"run", yaml("reps1e30.yaml", "replications: 1e30\n"+open)}, 2, []string{"reps1e30.yaml:1: replications: 1e30 is out of range"}, nil},
		{"scenario replications 1.5", []string{"run", yaml("reps15.yaml", "replications: 1.5\n"+open)}, 2, []string{"reps15.yaml:1: replications: 1.5 must be a whole number"}, nil},
		{"scenario jobs", []string{"run", yaml("jobs.yaml", "replications: 50000\n"+open+"sweep: {param: workload.arrival.rate, values: [1, 2, 3]}\n")}, 2, []string{"replications: 50000 replications × 3 sweep points = 150000 jobs exceed 100000"}, nil},
		{"scenario requests 1e8", []string{"run", yaml("req1e8.yaml", "requests: 1e8\n"+open)}, 2, []string{"requests: 100000000 exceeds 10000000", "summary_only: true"}, nil},
		{"scenario summary requests 2e9", []string{"run", yaml("req2e9.yaml", "requests: 2e9\nsummary_only: true\n"+open)}, 2, []string{"requests: 2000000000 exceeds 1000000000"}, nil},
		{"scenario horizon", []string{"run", yaml("horizon.yaml", "requests: 0\nhorizon: 1e9\n"+open)}, 2, []string{"horizon: 1e+09 s at 5 requests/s brings about 5e+09 requests, more than 10000000"}, nil},
		{"kv-cache-memory 2e24", []string{"bench", "--kv-cache-memory", "2e24"}, 2, []string{"--kv-cache-memory: cost: llama-3.1-8b on 1×h100-sxm does not fit", "exceed the GPU's 80.0 GiB"}, nil},
		{"kv-cache-memory 1e30", []string{"bench", "--kv-cache-memory", "1e30"}, 2, []string{"--kv-cache-memory: cost: llama-3.1-8b on 1×h100-sxm does not fit", "exceed the GPU's 80.0 GiB"}, nil},
		{"replicas", []string{"bench", "--data-parallel-size", "2147483647"}, 2, []string{"--data-parallel-size: 2147483647 exceeds 1024, the most data-parallel engines or groups"}, nil},
		{"fcfs servers", []string{"bench", "--server", "fcfs", "--servers", "2147483647"}, 2, []string{"--servers: 2147483647 exceeds 1000000, the most FCFS servers"}, nil},
		{"input length overflow", []string{"bench", "--random-input-len", "2000000000"}, 2, []string{"--random-input-len: 2000000000 exceeds 536870912 tokens"}, nil},
		{"scenario input length overflow", []string{"run", yaml("len.yaml", open+"  lengths: {kind: fixed, input: 2e9, output: 1}\n")}, 2, []string{"workload.lengths.input: 2000000000 exceeds 1073741824 tokens"}, nil},

		// Numbers that mean nothing: lengths against max_model_len and the
		// model's context, memory against the card.
		{"prompts above max-model-len", []string{"bench", "--max-model-len", "512"}, 2, []string{"--random-input-len: the shortest request has input 1024 + output 128 = 1152 tokens, more than max_model_len 512: no request can run"}, nil},
		{"prompts above the model's context", []string{"bench", "--random-input-len", "200000"}, 2, []string{"input 200000 + output 128 = 200128 tokens, more than max_model_len 131072 (llama-3.1-8b's context length, the default)"}, nil},
		{"max-model-len above the context", []string{"bench", "--max-model-len", "300000"}, 2, []string{"--max-model-len: 300000 exceeds llama-3.1-8b's context length 131072"}, nil},
		{"default max-model-len above the pool", []string{"bench", "--model", "qwen2.5-7b", "--gpu", "rtx4090"}, 2, []string{"--max-model-len: 131072 (qwen2.5-7b's context length, vLLM's default) exceeds the KV pool's 129088 tokens", "lower it to <= 129088"}, nil},
		{"kv-cache-memory above the card", []string{"bench", "--kv-cache-memory", "1000GiB"}, 2, []string{"--kv-cache-memory: cost: llama-3.1-8b on 1×h100-sxm does not fit: weights 15.0 GiB + runtime 1.0 GiB + kv_cache_memory 1000.0 GiB per rank exceed the GPU's 80.0 GiB"}, nil},
		{"every request fails", []string{"bench", "--num-prompts", "1", "--random-input-len", "1000", "--random-range-ratio", "0.5", "--max-model-len", "1200", "--seed", "4"}, 0,
			[]string{"servesim: warning: all 1 requests failed: the engine rejects requests with input+output above --max-model-len 1200", "reach input 1500 + output 192 = 1692 tokens"},
			[]string{"Successful requests:                     0 ", "Failed requests:                         1 "}},
		{"every request of a point fails", []string{"run", "--quiet", yaml("fail.yaml", "requests: 1\n"+open+"  lengths: {input: 1000, output: 100, range_ratio: 0.5}\nserver: {max_model_len: 1200}\n")}, 0,
			[]string{"servesim: warning: every request failed (1): the engine rejects requests with input+output above server.max_model_len 1200"}, []string{"failed"}},
		{"seed sweep", []string{"run", yaml("seeds.yaml", open+"sweep: {param: seed, values: [1, 2]}\n")}, 2, []string{"sweep.param: seed cannot be swept"}, nil},

		// Zero and negative values: an error, or a documented meaning.
		{"negative workers", []string{"capacity", "--goodput", "ttft:500", "--workers", "-1"}, 2, []string{`invalid value "-1" for --workers: must be >= 0`}, nil},
		{"negative run workers", []string{"run", "testdata/small.yaml", "--workers", "-2"}, 2, []string{`invalid value "-2" for --workers: must be >= 0`}, nil},
		{"zero goodput bound", []string{"bench", "--goodput", "ttft:0"}, 2, []string{`"ttft:0": the bound must be a finite number of milliseconds > 0`}, nil},
		{"negative start", []string{"capacity", "--goodput", "ttft:500", "--start", "-5"}, 2, []string{`invalid value "-5" for --start: must be a finite number >= 0 (0: the workload's rate)`}, nil},
		{"negative common rate", []string{"tp", "--goodput", "ttft:500", "--common-rate", "-1"}, 2, []string{`invalid value "-1" for --common-rate: must be a finite number >= 0 (0: skip)`}, nil},
		{"zero grid rate", []string{"capacity", "--goodput", "ttft:500", "--grid", "5,0"}, 2, []string{`--grid "5,0": rates[1]: 0 must be a finite number > 0`}, nil},
		{"boundary below replications", []string{"capacity", "--goodput", "ttft:500", "--replications", "5", "--boundary-replications", "4"}, 2, []string{"--boundary-replications 4 must be >= --replications 5"}, nil},
		{"trace speedup without a replay", []string{"bench", "--trace-speedup", "0.5"}, 2, []string{"--trace-speedup applies to --trace-timestamps"}, nil},
		{"zero trace speedup", []string{"bench", "--trace-speedup", "0"}, 2, []string{`invalid value "0" for --trace-speedup: must be a finite number > 0`}, nil},
		{"negative budget in a scenario", []string{"run", yaml("budget.yaml", open+"server: {max_num_batched_tokens: -1}\n")}, 2, []string{"server.max_num_batched_tokens: -1 must be >= 1 (or 0: vLLM's default)"}, nil},

		// Conflicting duplicates name both.
		{"tp twice", []string{"bench", "-tp", "2", "--tensor-parallel-size", "4"}, 2, []string{"--tensor-parallel-size 4 and -tp 2 set the same thing to different values"}, nil},
		{"dp twice", []string{"bench", "--data-parallel-size", "2", "-dp", "3"}, 2, []string{"--data-parallel-size 2 and -dp 3"}, nil},
		{"dp times replicas", []string{"bench", "--data-parallel-size", "64", "--replicas", "32"}, 2, []string{"--data-parallel-size: 64 times 32 replicas exceeds 1024"}, nil},
		{"replicas of a data-parallel MoE deployment", []string{"bench", "--model", "gpt-oss-20b", "--data-parallel-size", "8", "--replicas", "200"}, 2, []string{"--replicas: 200 replicas of a deployment with data_parallel_size 8 make 1600 data-parallel groups, more than 1024"}, nil},
		{"prefix-aware over data-parallel MoE replicas", []string{"bench", "--model", "gpt-oss-20b", "--data-parallel-size", "2", "--replicas", "2", "--router", "prefix-aware"}, 2, []string{`--router: "prefix-aware" over replicas of a deployment with data_parallel_size 2 is not modelled`}, nil},
		{"replicas of a data-parallel MoE deployment run", []string{"bench", "--quiet", "--num-prompts", "40", "--model", "gpt-oss-20b", "--data-parallel-size", "2", "--replicas", "2"}, 0, nil, []string{"gpt-oss-20b on h100-sxm"}},
		{"expert parallel on a dense model", []string{"bench", "--enable-expert-parallel"}, 2, []string{"--enable-expert-parallel: needs a mixture-of-experts model; llama-3.1-8b is dense"}, nil},
		{"expert parallel over experts it does not divide", []string{"bench", "--model", "gpt-oss-20b", "--data-parallel-size", "3", "--enable-expert-parallel"}, 2, []string{"--enable-expert-parallel: sets ep 3, which must divide tp×dp 3 and experts 32"}, nil},
		{"plan with -dp", []string{"plan", "--model", "gpt-oss-20b", "-dp", "2", "--goodput", "ttft:2000"}, 2, []string{"plan: --dp: the plan chooses the deployment"}, nil},
		{"tp with expert parallel", []string{"tp", "--model", "gpt-oss-20b", "--enable-expert-parallel", "--goodput", "ttft:2000"}, 2, []string{"tp: --enable-expert-parallel: the candidates set the deployment"}, nil},
		{"plan of a data-parallel scenario", []string{"plan", yaml("dpplan.yaml", "workload: {arrival: {rate: 5}}\nslo: {ttft_ms: 2000}\nserver: {model: gpt-oss-20b, data_parallel_size: 2}\n")}, 2, []string{"plan: server.data_parallel_size and server.enable_expert_parallel: the plan chooses the deployment (plan.data_parallel, plan.expert_parallel)"}, nil},
		{"plan of data parallelism for a dense model", []string{"plan", "--goodput", "ttft:2000", "--gpus", "h100-sxm", "--dp-degrees", "1,2"}, 2, []string{"plan: invalid plan: data_parallel[1]: 2 on the dense llama-3.1-8b: a dense model's data-parallel engines are the plan's replicas"}, nil},
		{"plan of expert parallelism for a dense model", []string{"plan", "--goodput", "ttft:2000", "--gpus", "h100-sxm", "--expert-parallel-options", "off,on"}, 2, []string{"expert_parallel: llama-3.1-8b is dense"}, nil},
		{"plan of too many groups", []string{"plan", "--model", "gpt-oss-20b", "--goodput", "ttft:2000", "--gpus", "h100-sxm", "--dp-degrees", "64"}, 2, []string{"data_parallel[0]: 64 times max_replicas 64 make 4096 data-parallel groups, more than 1024"}, nil},
		{"plan with a bad expert-parallel option", []string{"plan", "--model", "gpt-oss-20b", "--goodput", "ttft:2000", "--expert-parallel-options", "maybe"}, 2, []string{`--expert-parallel-options: "maybe": want on or off`}, nil},
		{"kv memory twice", []string{"bench", "--kv-cache-memory", "8GiB", "--kv-cache-memory-bytes", "4GiB"}, 2, []string{"--kv-cache-memory 8589934592 and --kv-cache-memory-bytes 4294967296"}, nil},
		{"tp twice, one value", []string{"bench", "--quiet", "--num-prompts", "20", "-tp", "2", "--tensor-parallel-size", "2"}, 0, nil, []string{"llama-3.1-8b on h100-sxm, TP 2"}},

		// Errors that say what is wrong.
		{"empty prompts", []string{"bench", "--random-input-len", "0"}, 2, []string{"--random-prefix-len 0 + --random-input-len 0 (its low end at --random-range-ratio 0) leave prompts of no token"}, nil},
		{"empty prompts in a range", []string{"run", yaml("empty.yaml", open+"  lengths: {input: 1, output: 8, range_ratio: 0.5}\n")}, 2, []string{"workload.lengths.input: the shortest prompt has 0 tokens: the vLLM engine needs at least 1"}, nil},
		{"negative seed", []string{"bench", "--seed", "-1"}, 2, []string{`invalid value "-1" for --seed: must be a whole number in [0, 18446744073709551615]`}, nil},
		{"float count", []string{"bench", "--num-prompts", "2.5"}, 2, []string{`invalid value "2.5" for --num-prompts: must be a whole number in [-1, 1000000000]`}, nil},
		{"text float", []string{"bench", "--gpu-memory-utilization", "most"}, 2, []string{`invalid value "most" for --gpu-memory-utilization: must be a number`}, nil},
		{"merge a capacity shard", []string{"merge", gridFile}, 2, []string{"grid.json is a 'servesim capacity --grid --shard' output: join those with servesim capacity --merge"}, nil},
		{"capacity merge of a run output", []string{"capacity", "--merge", runFile}, 2, []string{"run.json is a 'servesim run --format json' (or --shard) output: join those with servesim merge"}, nil},
		{"merge a directory", []string{"merge", dir}, 2, []string{"is a directory: give the shard files themselves"}, nil},
		{"dataset path a directory", []string{"bench", "--dataset-name", "trace", "--dataset-path", dir}, 2, []string{"--dataset-path: " + dir + " is a directory: want a CSV or JSONL file"}, nil},
		{"impossible tp candidate", []string{"tp", "--quiet", "--goodput", "ttft:500", "--num-prompts", "200", "--candidates", "3x1,1x1"}, 0, nil,
			[]string{"\nTP=3 x1      3  impossible: tp 3 must divide heads 32 of model \"llama-3.1-8b\" [1]\n", "\n[1] TP=3 x1: tp 3 must divide heads 32 of model \"llama-3.1-8b\"; tp 3 must divide intermediate 14336 of model \"llama-3.1-8b\"; tp 3 must divide, or be a multiple of, kv_heads 8 of model \"llama-3.1-8b\"\n",
				"\nworkload: Poisson arrivals at each probed rate; random lengths 1024 in / 128 out (range ratio 0); 200 requests per run (0 warm-up); seed 0\n"}},
		{"tp memory reason", []string{"tp", "--quiet", "--model", "llama-3.1-70b", "--goodput", "ttft:500", "--num-prompts", "100", "--candidates", "2x1"}, 0, nil,
			[]string{"cannot run: max_model_len 131072 (llama-3.1-70b's context length, vLLM's default) exceeds the KV pool's 45152 tokens [1]\n", "lower it to <= 45152"}},
		{"capacity rows stopped early", []string{"capacity", "--quiet", "--goodput", "ttft:2000", "tpot:100"}, 0, nil,
			[]string{"\nworkload: Poisson arrivals at each probed rate; random lengths 1024 in / 128 out (range ratio 0); 1000 requests per run (0 warm-up); seed 0\n",
				"  FAIL*    80.82%  88.97%* 80.82%* 86.09%*  (SLO misses, queue growing)\n", "  FAIL+   100.00%", "\n  FAIL*: runs marked * stopped early", "\n  FAIL+: every run met the attainment target but failed another criterion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit status %d, want %d\nstderr: %s", r.code, tt.code, r.stderr)
			}
			got := r.stderr
			if tt.code == 2 {
				if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "servesim: ") {
					t.Errorf("want one servesim: line on stderr and nothing on stdout; stdout %q, stderr %q", r.stdout, r.stderr)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(got, w) {
					t.Errorf("stderr %q lacks %q", got, w)
				}
			}
			for _, w := range tt.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

// mustRunCLI runs servesim in process and fails the test unless it exits 0.
func mustRunCLI(t *testing.T, args ...string) result {
	t.Helper()
	r := runCLI(args...)
	if r.code != 0 {
		t.Fatalf("servesim %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// TestZeroMeansInHelp checks that every flag whose 0 stands for a default
// or for "none" says so in --help.
func TestZeroMeansInHelp(t *testing.T) {
	t.Parallel()
	for cmd, flags := range map[string][]string{
		"bench":    {"max-concurrency", "max-num-batched-tokens", "max-model-len", "kv-cache-memory"},
		"capacity": {"start", "replications", "boundary-replications", "workers"},
		"tp":       {"common-rate", "start", "workers"},
		"run":      {"workers"},
	} {
		help := mustRunCLI(t, cmd, "-h").stdout
		for _, f := range flags {
			_, after, ok := strings.Cut(help, "\n  --"+f+" ")
			if !ok {
				_, after, ok = strings.Cut(help, "\n  --"+f+"\n")
			}
			line, _, _ := strings.Cut(strings.TrimLeft(after, " "), "\n  --")
			if !ok || !strings.Contains(line, "(0: ") {
				t.Errorf("servesim %s -h: --%s does not say what 0 means: %q", cmd, f, line)
			}
		}
	}
}

// TestSummaryOnly: --summary-only runs with sketches and says so in the
// summary and the JSON.
func TestSummaryOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	r := mustRunCLI(t, "bench", "--quiet", "--summary-only", "--num-prompts", "100", "--save-result", "--result-filename", path)
	if !strings.Contains(r.stdout, "Percentiles:                             from quantile sketches, within 0.5% (--summary-only)") {
		t.Errorf("summary does not say its percentiles are sketched:\n%s", r.stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"summary_only":true`) {
		t.Errorf("result JSON lacks summary_only: %v %.300s", err, b)
	}
}
