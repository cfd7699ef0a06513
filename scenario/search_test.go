package scenario

import (
	"strings"
	"testing"
)

// TestSearchInputs: a scenario seeds a search over deployments only with
// an SLO, without data or expert parallelism of its own and with open-loop
// arrivals; each refusal is the caller's message, checked in that order.
func TestSearchInputs(t *testing.T) {
	t.Parallel()
	const head = "workload: {arrival: {rate: 5}, lengths: {kind: random, input: 256, output: 64}}\n" +
		"server: {kind: vllm, model: llama-3.1-8b, gpu: h100-sxm}\nslo: {ttft_ms: 2000, tpot_ms: 100}\nrequests: 100\n"
	q := Search{NoSLO: "no SLO here", Chooser: "the test chooses", NoArrivals: "no arrivals here"}
	tests := []struct {
		name, old, new, errHas string
	}{
		{"open loop with an SLO", "", "", ""},
		{"no SLO", "slo: {ttft_ms: 2000, tpot_ms: 100}\n", "", "no SLO here"},
		{"no SLO before data parallelism", "gpu: h100-sxm}\nslo: {ttft_ms: 2000, tpot_ms: 100}\n", "gpu: h100-sxm, data_parallel_size: 2}\n", "no SLO here"},
		{"data parallel", "gpu: h100-sxm}", "gpu: h100-sxm, data_parallel_size: 2}", "server.data_parallel_size and server.enable_expert_parallel: the test chooses"},
		{"expert parallel", "llama-3.1-8b, gpu: h100-sxm}", "gpt-oss-20b, gpu: h100-sxm, enable_expert_parallel: true}", "the test chooses"},
		{"closed loop", "arrival: {rate: 5}", "closed: {clients: 4}", "no arrivals here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := head
			if tt.old != "" {
				if !strings.Contains(text, tt.old) {
					t.Fatalf("%q not in the scenario", tt.old)
				}
				text = strings.Replace(text, tt.old, tt.new, 1)
			}
			sc, err := Parse([]byte(text), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			eng, w, err := sc.SearchInputs(q)
			if tt.errHas == "" {
				if err != nil {
					t.Fatal(err)
				}
				if eng.Deployment.Model.Name != "llama-3.1-8b" || w.Arrivals == nil || w.Arrivals.MeanRate() != 5 {
					t.Errorf("engine %s, arrivals %v", eng.Deployment.Model.Name, w.Arrivals)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %v, want %q", err, tt.errHas)
			}
		})
	}
}
