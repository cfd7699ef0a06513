package calibrate

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
)

// TestPredictNoneCompletedSaysWhy: a point whose every request is longer
// than the engine's context completes no request; the error says so with
// the numbers (the shortest request against max_model_len, and where
// max_model_len came from) and what to give, instead of only "the run
// completed no request".
func TestPredictNoneCompletedSaysWhy(t *testing.T) {
	t.Parallel()
	g, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	base := Point{ID: "run", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Rate: 10, NumPrompts: 5}
	for _, tt := range []struct {
		name          string
		input, output int
		maxModelLen   int // -1: the model's context, as vllm serve's default
		want          []string
	}{
		{"longer than the model's context", 140000, 100, -1, []string{
			"prompt + output is 140000 + 100 = 140100 tokens, more than max_model_len 131072 (meta-llama/Meta-Llama-3.1-8B's context length, the default)",
			"give the --max-model-len the measured server ran with (at least 140100)"}},
		{"longer than the max_model_len given", 1024, 128, 512, []string{
			"1024 + 128 = 1152 tokens, more than max_model_len 512 (the max_model_len given)", "(at least 1152)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pt := base
			pt.Input, pt.Output = tt.input, tt.output
			s := Simulator{}
			s.Adjust = func(_ Point, c *batching.Config) error {
				c.MaxModelLen = tt.maxModelLen
				if tt.maxModelLen < 0 {
					c.MaxModelLen = c.Deployment.Model.MaxContext
				}
				return nil
			}
			_, err := s.Predict([]Point{pt}, cost.DefaultProfile(g))
			if err == nil {
				t.Fatal("Predict of requests longer than the context: no error")
			}
			for _, w := range append(tt.want, "the run completed no request (0 of 5)") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
