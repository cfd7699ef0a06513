package calibrate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenAIPerfWarmupAndDataset: a genai-perf export's warm-up request
// count and dataset size, in both of its layouts, become the point's
// warm-up repeats (at most the measured requests and the dataset) and
// dataset entries; aiperf's exports and open loops get none, and a count
// that is not a whole number in range is an error naming its field.
func TestGenAIPerfWarmupAndDataset(t *testing.T) {
	t.Parallel()
	const stats = `"time_to_first_token": {"unit": "ms", "avg": 250}, "inter_token_latency": {"unit": "ms", "avg": 21},
		"input_sequence_length": {"avg": 512}, "output_sequence_length": {"avg": 128}`
	for _, tc := range []struct {
		name             string
		config           string
		repeats, entries int
	}{
		{"genai-perf, perf_analyzer block", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}, "warmup_request_count": 8},
			"input": {"num_dataset_entries": 100}, "request_count": 40}`, 8, 100},
		{"genai-perf, a dataset smaller than the warm-up", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}, "warmup_request_count": 8},
			"input": {"num_dataset_entries": 5}, "request_count": 40}`, 5, 5},
		{"genai-perf, a warm-up longer than the run", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}, "warmup_request_count": 80}, "request_count": 40}`, 40, 0},
		{"genai-perf, no warm-up recorded", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}}, "input": {"num_dataset_entries": 12}, "request_count": 40}`, 0, 12},
		{"genai-perf before 2025-03, --num-prompts", `{"model": ["m/d"], "concurrency": 2, "request_count": 20, "warmup_request_count": 4, "num_prompts": 10}`, 4, 10},
		{"genai-perf before 2025-03, --num-dataset-entries", `{"model": ["m/d"], "concurrency": 2, "request_count": 20, "warmup_request_count": 4,
			"num_dataset_entries": 30, "num_prompts": 10}`, 4, 30},
		{"genai-perf, a request rate", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"request_rate": 6}, "warmup_request_count": 8},
			"input": {"num_dataset_entries": 100}, "request_count": 60}`, 0, 0},
		{"aiperf, its own warm-up", `{"concurrency": 16, "request_rate_mode": "concurrency_burst", "request_count": 160, "warmup_request_count": 32}`, 0, 0},
	} {
		p, err := ReadAIPerfExport(strings.NewReader(`{`+stats+`, "input_config": `+tc.config+`}`), "x.json")
		if !assert.NoError(t, err, tc.name) {
			continue
		}
		assert.Equal(t, tc.repeats, p.WarmupRepeats, "%s: warm-up repeats", tc.name)
		assert.Equal(t, tc.entries, p.DatasetEntries, "%s: dataset entries", tc.name)
	}
	for _, tc := range []struct{ config, want string }{
		{`{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}, "warmup_request_count": -1}}`, "perf_analyzer.warmup_request_count -1 must be a whole number >= 0"},
		{`{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}}, "input": {"num_dataset_entries": 0}}`, "input.num_dataset_entries 0 must be a whole number >= 1"},
		{`{"model": ["m/d"], "concurrency": 2, "num_prompts": 2.5}`, "num_prompts 2.5 must be a whole number >= 1"},
		{`{"model": ["m/d"], "concurrency": 2, "warmup_request_count": 1e12}`, "warmup_request_count 1e+12 must be a whole number >= 0"},
	} {
		_, err := ReadAIPerfExport(strings.NewReader(`{`+stats+`, "request_count": {"avg": 40}, "input_config": `+tc.config+`}`), "x.json")
		if assert.ErrorIs(t, err, ErrInvalid, tc.config) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// TestDatasetCycle: requests that cycle through a dataset of 10 prompts
// hit the prefix cache from the eleventh on. At one client every request
// runs alone on an idle engine, so each request's TTFT is its prompt's
// cold or cached prefill, and the run's mean TTFT over 30 requests is the
// mix of 10 cold and 20 cached ones: the mean of a run with no repeats and
// of a run whose every request repeats a warm-up prompt, weighed 1:2.
func TestDatasetCycle(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	prof := mustProfile(t, "h100-sxm")
	base := Point{ID: "cycle", Model: "Qwen/Qwen3-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Concurrency: 1,
		Input: 4096, Output: 8, NumPrompts: 30}
	cycle, cold, warm := base, base, base
	cycle.DatasetEntries = 10
	warm.WarmupRepeats, warm.DatasetEntries = 10, 10 // every request repeats one of 10 cached prompts
	large := base
	large.DatasetEntries = 30 // as large as the run: no prompt repeats
	m, err := s.Predict([]Point{cycle, cold, warm, large}, prof)
	require.NoError(t, err)
	want := (10*m[1].TTFT + 20*m[2].TTFT) / 30
	assert.Less(t, m[2].TTFT, 0.5*m[1].TTFT, "a cached 4096-token prompt prefills one block: cached %v s, cold %v s", m[2].TTFT, m[1].TTFT)
	assert.InEpsilon(t, want, m[0].TTFT, 1e-9, "cycling run's mean TTFT %v s, the 1:2 mix %v s", m[0].TTFT, want)
	assert.Equal(t, m[1], m[3], "a dataset as large as the run changes nothing")
	t.Logf("TTFT cycle %.4f cold %.4f warm %.4f", m[0].TTFT, m[1].TTFT, m[2].TTFT)

	bad := base
	bad.DatasetEntries = -1
	_, err = s.Predict([]Point{bad}, prof)
	assert.ErrorIs(t, err, ErrInvalid)
}
