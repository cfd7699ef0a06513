package calibrate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// vllmFile is a small result file with fields replaced by repl.
func vllmFile(repl ...string) string {
	base := `{"request_rate": 4, "num_prompts": 10, "completed": 10, "total_input_tokens": 1000, "total_output_tokens": 100, "mean_ttft_ms": 30, "mean_tpot_ms": 9, "mean_itl_ms": 9, "mean_e2el_ms": 120, "output_throughput": 50}`
	return strings.NewReplacer(repl...).Replace(base)
}

// Issue 30's result files that drove calibrate without a limit or
// fitted nonsense: each is an input error naming the file, the field and
// the value.
func TestResultFileLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, want string }{
		{"num_prompts 1e9", vllmFile(`"num_prompts": 10`, `"num_prompts": 1000000000`), "r.json: num_prompts 1000000000 must be from 0 to 1000000"},
		{"num_prompts 2e9", vllmFile(`"num_prompts": 10`, `"num_prompts": 2000000000`), "num_prompts 2000000000"},
		{"completed 1e9", vllmFile(`"completed": 10`, `"completed": 1000000000`, `"num_prompts": 10`, `"num_prompts": 0`), "completed 1000000000"},
		{"completed past num_prompts", vllmFile(`"completed": 10`, `"completed": 11`), "completed 11 exceeds num_prompts 10"},
		{"request_rate NaN", vllmFile(`"request_rate": 4`, `"request_rate": NaN`), "request_rate is missing, null or NaN"},
		{"request_rate null", vllmFile(`"request_rate": 4`, `"request_rate": null`), "request_rate is missing, null or NaN"},
		{"request_rate missing", vllmFile(`"request_rate": 4, `, ``), "request_rate is missing"},
		{"request_rate 1e-300", vllmFile(`"request_rate": 4`, `"request_rate": 1e-300`), "request_rate 1e-300 is below 1e-06"},
		{"negative mean_ttft_ms", vllmFile(`"mean_ttft_ms": 30`, `"mean_ttft_ms": -5`), "mean_ttft_ms -5 must be a finite time >= 0 ms"},
		{"mean_ttft_ms NaN", vllmFile(`"mean_ttft_ms": 30`, `"mean_ttft_ms": NaN`), "mean_ttft_ms is null or NaN"},
		{"mean_tpot_ms NaN with long outputs", vllmFile(`"mean_tpot_ms": 9`, `"mean_tpot_ms": NaN`), "mean_tpot_ms is null or NaN with completed 10 and 100 output tokens"},
		{"max_concurrency NaN", vllmFile(`"request_rate": 4`, `"request_rate": "inf", "max_concurrency": NaN`), `"max_concurrency": NaN: max_concurrency must be a whole number`},
		{"max_concurrency negative", vllmFile(`"request_rate": 4`, `"request_rate": "inf", "max_concurrency": -3`), "max_concurrency -3"},
		{"output_throughput negative", vllmFile(`"output_throughput": 50`, `"output_throughput": -1`), "output_throughput -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadVLLMResults(strings.NewReader(tc.file), "r.json")
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
	if _, err := ReadVLLMResults(strings.NewReader(vllmFile()), "r.json"); err != nil {
		t.Errorf("the valid file: %v", err)
	}
	// vLLM writes NaN TPOT and ITL when every output is one token.
	one := vllmFile(`"total_output_tokens": 100`, `"total_output_tokens": 10`, `"mean_tpot_ms": 9`, `"mean_tpot_ms": NaN`, `"mean_itl_ms": 9`, `"mean_itl_ms": NaN`)
	if _, err := ReadVLLMResults(strings.NewReader(one), "r.json"); err != nil {
		t.Errorf("NaN TPOT of one-token outputs: %v", err)
	}
}

// aiperf and genai-perf exports asking for 10^9 requests, or a rate that
// loses the clock, are refused before any simulation.
func TestAIPerfLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		count int
		load  string
		want  string
	}{
		{"request count 1e9", 1000000000, `{"concurrency": 4}`, "request_count 1000000000 must be from 0 to 1000000"},
		{"concurrency 1e9", 40, `{"concurrency": 1000000000}`, "concurrency 1000000000"},
		{"rate 1e-300", 40, `{"request_rate": 1e-300}`, "request_rate 1e-300"},
	} {
		_, err := ReadAIPerfExport(strings.NewReader(aiperfJSON(10, 2, 50, 1, 100, 10, tc.count, tc.load)), "a.json")
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", tc.name, err, tc.want)
		}
	}
}

// The total work cap applies across appended runs: 11 runs of 10^6
// requests exceed MaxTotalRequests and Predict refuses them at once.
func TestTotalWorkCap(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for range 11 {
		fmt.Fprintln(&b, vllmFile(`"num_prompts": 10`, `"num_prompts": 1000000`))
	}
	pts, err := ReadVLLMResults(strings.NewReader(b.String()), "sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].GPU, pts[i].TP, pts[i].Model = "h100-sxm", 1, "meta-llama/Llama-3.1-8B"
	}
	_, err = Simulator{}.Predict(pts, mustProfile(t, "h100-sxm"))
	if err == nil || !strings.Contains(err.Error(), "more than 10000000 requests in all (MaxTotalRequests; point sweep.json#11") {
		t.Errorf("11 × 10^6 requests: %v, want the total cap", err)
	}
}
