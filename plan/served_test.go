package plan_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/servesim/servesim/plan"
)

func TestWithServedName(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"serve", "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --max-num-seqs 256",
			"vllm serve Qwen/Qwen3-8B --served-model-name qwen3 --tensor-parallel-size 1 --max-num-seqs 256"},
		{"bench", "vllm bench serve --model Qwen/Qwen3-8B --dataset-name random",
			"vllm bench serve --model Qwen/Qwen3-8B --served-model-name qwen3 --dataset-name random"},
		{"bare serve", "vllm serve Qwen/Qwen3-8B", "vllm serve Qwen/Qwen3-8B --served-model-name qwen3"},
		{"a P/D deployment's lines, indented, and its proxy left alone",
			"vllm serve Qwen/Qwen3-8B --port 8100   # prefill 0\n  vllm serve Qwen/Qwen3-8B --port 8200   # decode 0\n  python toy_proxy_server.py --port 8000",
			"vllm serve Qwen/Qwen3-8B --served-model-name qwen3 --port 8100   # prefill 0\n  vllm serve Qwen/Qwen3-8B --served-model-name qwen3 --port 8200   # decode 0\n  python toy_proxy_server.py --port 8000"},
		{"not a vllm line", "echo vllm serve", "echo vllm serve"},
	}
	for _, tt := range tests {
		if got := plan.WithServedName(tt.in, "qwen3"); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if got := plan.WithServedName("vllm serve m", ""); got != "vllm serve m" {
		t.Errorf("no name: %q", got)
	}
}

func TestValidateServedName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "qwen3", "Qwen/Qwen2.5-0.5B-Instruct", "my-model:v1.2@prod+x"} {
		if err := plan.ValidateServedName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"my model", "a'b", "x;rm", "tab\tname", "$HOME"} {
		err := plan.ValidateServedName(bad)
		if !errors.Is(err, plan.ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", bad, err)
		}
	}
}

// A deployment served under an API name of its own: the server loads the
// checkpoint and answers to the name; the benchmark client keeps --model
// for its tokenizer and sends the name.
func ExampleWithServedName() {
	fmt.Println(plan.WithServedName("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4", "qwen3-next"))
	fmt.Println(plan.WithServedName("vllm bench serve --model Qwen/Qwen3-Next-80B-A3B-Instruct --dataset-name random", "qwen3-next"))
	// Output:
	// vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --served-model-name qwen3-next --tensor-parallel-size 4
	// vllm bench serve --model Qwen/Qwen3-Next-80B-A3B-Instruct --served-model-name qwen3-next --dataset-name random
}
