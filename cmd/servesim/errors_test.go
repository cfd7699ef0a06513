package main

import (
	"strings"
	"testing"
)

// Bad input exits 2 with one "servesim: ..." line on stderr, nothing on
// stdout and never a Go panic trace.
func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // substrings of the stderr line
	}{
		{"no command", nil, []string{"no command given"}},
		{"unknown command", []string{"benchmark"}, []string{`unknown command "benchmark"`, "bench, run, merge, capacity, tp"}},
		{"capacity without slo", []string{"capacity"}, []string{"capacity: no SLO to search under"}},
		{"capacity bad grid", []string{"capacity", "--goodput", "ttft:500", "--grid", "1,x"}, []string{`--grid "1,x"`}},
		{"capacity shard without grid", []string{"capacity", "--goodput", "ttft:500", "--shard", "0/2"}, []string{"--shard applies to --grid"}},
		{"capacity bad shard", []string{"capacity", "--goodput", "ttft:500", "--grid", "1", "--shard", "2/2"}, []string{"shard 2/2"}},
		{"capacity two files", []string{"capacity", "a.yaml", "b.yaml"}, []string{"one scenario file at most"}},
		{"capacity closed loop", []string{"capacity", "--goodput", "ttft:500", "--request-rate", "inf"}, []string{"capacity:"}},
		{"tp without slo", []string{"tp"}, []string{"tp: no SLO to compare under"}},
		{"tp bad candidates", []string{"tp", "--goodput", "ttft:500", "--candidates", "4by1"}, []string{`"4by1" is neither PxK nor tpP[dpD][ep][xK]`}},
		{"tp with tp flag", []string{"tp", "--goodput", "ttft:500", "--tensor-parallel-size", "2"}, []string{"--tensor-parallel-size: the candidates set the deployment"}},
		{"unknown flag", []string{"bench", "--request-ratio", "5"}, []string{"bench: unknown flag --request-ratio"}},
		{"ambiguous prefix", []string{"bench", "--random-in", "5", "--ra", "1"}, []string{"bench: ambiguous flag --ra could match --ramp-up-end-rps, --ramp-up-start-rps", "--random-input-len", "(see servesim bench -h)"}},
		{"zero concurrency", []string{"bench", "--max-concurrency", "0"}, []string{"--max-concurrency: 0 must be greater than 0"}},
		{"pipeline parallel replicas", []string{"bench", "-pp", "2", "--replicas", "2"}, []string{"--pipeline-parallel-size: 2 with 2 replicas is not modelled"}},
		{"pipeline parallel size", []string{"bench", "-pp", "100"}, []string{"--pipeline-parallel-size: 100 must be in [1, 64]"}},
		{"hf dataset", []string{"bench", "--dataset-name", "hf", "--dataset-path", "philschmid/mt-bench"}, []string{"token lengths of vLLM's MTBenchDataset are not published", "save the rows as a .jsonl file and give that file as --dataset-path"}},
		{"fractional ramp", []string{"bench", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1.5", "--ramp-up-end-rps", "5"}, []string{`invalid value "1.5" for --ramp-up-start-rps`}},
		{"unknown quantization", []string{"bench", "--quantization", "hqq"}, []string{`--quantization: "hqq" is not modelled`}},
		{"negative rate", []string{"bench", "--request-rate", "-1"}, []string{`invalid value "-1" for --request-rate`, "number > 0"}},
		{"text rate", []string{"bench", "--request-rate", "abc"}, []string{`invalid value "abc" for --request-rate`}},
		{"zero rate", []string{"bench", "--request-rate", "0"}, []string{`invalid value "0" for --request-rate`}},
		{"flag without value", []string{"bench", "--num-prompts"}, []string{"--num-prompts needs a value"}},
		{"bad int", []string{"bench", "--num-prompts", "ten"}, []string{`invalid value "ten" for --num-prompts`}},
		{"unknown model", []string{"bench", "--model", "llama-9b"}, []string{`--model: unknown model "llama-9b"`, "llama-3.1-8b", "qwen2.5-7b", "mistral-7b"}},
		{"unknown gpu", []string{"bench", "--gpu", "h1000"}, []string{`--gpu: unknown gpu "h1000"`, "h100-sxm", "a100-80gb", "mi300x"}},
		{"missing spec file", []string{"bench", "--model", "no/such/model.yaml"}, []string{"--model:", "no/such/model.yaml"}},
		{"bad goodput", []string{"bench", "--goodput", "ttft=800"}, []string{`"ttft=800": want KEY:VALUE`}},
		{"bad goodput key", []string{"bench", "--goodput", "itl:5"}, []string{`unknown metric "itl"`}},
		{"stray argument", []string{"bench", "ttft:800"}, []string{`unexpected argument "ttft:800"`}},
		{"engine knob", []string{"bench", "--max-num-seqs", "0"}, []string{`invalid value "0" for --max-num-seqs: must be >= 1`}},
		{"tp shape", []string{"bench", "--tensor-parallel-size", "3"}, []string{`--tensor-parallel-size: 3 must divide heads 32 of model "llama-3.1-8b"`}},
		{"bad bool", []string{"bench", "--enable-chunked-prefill=maybe"}, []string{`invalid value "maybe" for --enable-chunked-prefill`}},
		{"bad bytes", []string{"bench", "--kv-cache-memory", "lots"}, []string{`invalid value "lots" for --kv-cache-memory`}},
		{"unknown server", []string{"bench", "--server", "tgi"}, []string{`--server: unknown kind "tgi"`}},
		{"bad service", []string{"bench", "--server", "fcfs", "--service-time", "exp:-1"}, []string{"--service-time:", `"exp:-1"`}},
		{"engine flag on fcfs", []string{"bench", "--server", "fcfs", "--max-num-seqs", "8"}, []string{"--max-num-seqs applies to --server vllm"}},
		{"fcfs flag on vllm", []string{"bench", "--servers", "2"}, []string{"--servers and --service-time apply to --server fcfs"}},
		{"dataset without file", []string{"bench", "--dataset-name", "sharegpt"}, []string{"--dataset-name sharegpt needs --dataset-path FILE"}},
		{"unknown dataset", []string{"bench", "--dataset-name", "lmsys"}, []string{`--dataset-name: invalid choice "lmsys"`}},
		{"trace without file", []string{"bench", "--dataset-name", "trace"}, []string{"needs --dataset-path"}},
		{"bad metric", []string{"bench", "--percentile-metrics", "ttft,latency"}, []string{`unknown metric "latency"`}},
		{"bad percentile", []string{"bench", "--metric-percentiles", "99,x"}, []string{`--metric-percentiles "99,x"`}},
		{"percentile out of range", []string{"bench", "--metric-percentiles", "101"}, []string{"--metric-percentiles:", "101"}},
		{"ramp without ends", []string{"bench", "--ramp-up-strategy", "linear"}, []string{"needs --ramp-up-start-rps and --ramp-up-end-rps"}},
		{"bad slo target", []string{"bench", "--slo-target", "95"}, []string{"--slo-target: 95 must be in (0, 1]"}},
		{"run without file", []string{"run"}, []string{"want one scenario file, got 0"}},
		{"run missing file", []string{"run", "testdata/none.yaml"}, []string{"testdata/none.yaml"}},
		{"malformed yaml", []string{"run", "testdata/bad-syntax.yaml"}, []string{"testdata/bad-syntax.yaml:2:"}},
		{"bad field value", []string{"run", "testdata/bad-line.yaml"}, []string{"testdata/bad-line.yaml:6: server.max_num_seqs: -4 must be >= 1"}},
		{"unknown yaml field", []string{"run", "testdata/bad-field.yaml"}, []string{`testdata/bad-field.yaml:4: unknown field "lenghts" in workload`}},
		{"bad format", []string{"run", "testdata/small.yaml", "--format", "xml"}, []string{`--format "xml": want table, csv or json`}},
		{"bad plot name", []string{"run", "testdata/small.yaml", "--plot", "out.jpg"}, []string{"--plot:", ".png or .svg"}},
		{"bad shard", []string{"run", "testdata/small.yaml", "--shard", "3/3"}, []string{"--shard:", "3/3"}},
		{"bad shard syntax", []string{"run", "testdata/small.yaml", "--shard", "first"}, []string{"--shard:", `"first"`}},
		{"shard as table", []string{"run", "testdata/small.yaml", "--shard", "0/2", "--format", "table"}, []string{"--shard writes JSON"}},
		{"merge nothing", []string{"merge"}, []string{"merge: no files given"}},
		{"merge not json", []string{"merge", "testdata/small.yaml"}, []string{"not a servesim run output"}},
		{"help unknown", []string{"help", "benchmark"}, []string{`help: unknown command "benchmark"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each line is a process that stops at its first error
			r := servesim(t, tt.args...)
			if r.code != 2 {
				t.Errorf("exit status %d, want 2", r.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "servesim: ") {
				t.Errorf("stderr does not end with a servesim: line:\n%s", r.stderr)
			}
			if tt.args != nil && len(lines) != 1 {
				t.Errorf("stderr has %d lines, want 1:\n%s", len(lines), r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(last, w) {
					t.Errorf("stderr %q lacks %q", last, w)
				}
			}
			for _, bad := range []string{"panic", "goroutine ", ".go:"} {
				if strings.Contains(r.stderr, bad) {
					t.Errorf("stderr shows a Go trace (%q):\n%s", bad, r.stderr)
				}
			}
		})
	}
}
