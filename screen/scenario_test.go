package screen_test

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/screen"
)

// TestFromScenario: the study takes the scenario's engine, router,
// workload, runs, seed and SLO, and starts each search at the arrival
// rate; a scenario the screen cannot use is refused with the screen's own
// words.
func TestFromScenario(t *testing.T) {
	t.Parallel()
	const head = "workload: {arrival: {rate: 7}, lengths: {kind: random, input: 256, output: 64}}\n" +
		"server: {kind: vllm, model: llama-3.1-8b, gpu: h100-sxm, router: round-robin}\n" +
		"slo: {ttft_ms: 2000, tpot_ms: 100, target: 0.95}\nrequests: 120\nwarmup: 12\nseed: 9\n"
	sc, err := scenario.Parse([]byte(head), "tp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := screen.FromScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine.Deployment.Model.Name != "llama-3.1-8b" || s.Engine.Deployment.GPU.Name != "h100-sxm" || s.Router != batching.RoundRobin {
		t.Errorf("engine %s on %s behind %s", s.Engine.Deployment.Model.Name, s.Engine.Deployment.GPU.Name, s.Router)
	}
	if s.Requests != 120 || s.Warmup != 12 || s.Seed != 9 || s.Start != 7 {
		t.Errorf("requests %d, warm-up %d, seed %d, start %v", s.Requests, s.Warmup, s.Seed, s.Start)
	}
	if c := s.Criteria; c.SLO.TTFT != 2 || c.SLO.TPOT != 0.1 || c.Target != 0.95 {
		t.Errorf("criteria %+v", c)
	}
	if len(s.Candidates) != 0 || s.Replications != 0 {
		t.Errorf("candidates %v, replications %d: the caller's to set", s.Candidates, s.Replications)
	}
	for _, tt := range []struct{ old, new, want string }{
		{"slo: {ttft_ms: 2000, tpot_ms: 100, target: 0.95}\n", "", "no SLO to compare under"},
		{"arrival: {rate: 7}", "closed: {clients: 4}", "the screen needs open-loop arrivals"},
		{"llama-3.1-8b, gpu: h100-sxm,", "gpt-oss-20b, gpu: h100-sxm, data_parallel_size: 2,", "the candidates set the deployment"},
	} {
		sc, err := scenario.Parse([]byte(strings.Replace(head, tt.old, tt.new, 1)), "tp.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := screen.FromScenario(sc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.new, err, tt.want)
		}
	}
}
