package scenario

import "testing"

func TestCatalogName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"llama-3.1-8b":                         "llama-3.1-8b",
		"meta-llama/Llama-3.1-8B-Instruct":     "llama-3.1-8b",
		"meta-llama/Meta-Llama-3.1-70B":        "llama-3.1-70b",
		"Qwen/Qwen2.5-7B-Instruct":             "qwen2.5-7b",
		"Qwen/Qwen2.5-72B":                     "qwen2.5-72b",
		"mistralai/Mistral-7B-Instruct-v0.3":   "mistral-7b",
		"mistralai/Mixtral-8x7B-Instruct-v0.1": "mistralai/Mixtral-8x7B-Instruct-v0.1",
		"gpt2":                                 "gpt2",
	} {
		if got := CatalogName(in); got != want {
			t.Errorf("CatalogName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHFModelID(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte("workload: {arrival: {rate: 1}}\nserver: {model: Qwen/Qwen2.5-7B-Instruct}\n"), "hf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil || m.Name != "qwen2.5-7b" {
		t.Errorf("model = %q, %v; want qwen2.5-7b", m.Name, err)
	}
}
