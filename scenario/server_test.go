package scenario

import (
	"strings"
	"testing"
)

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
		"RedHatAI/Llama-3.1-8B-Instruct-FP8":   "llama-3.1-8b",
		"NousResearch/Hermes-3-Llama-3.1-8B":   "llama-3.1-8b",
		"meta-llama/Meta-Llama-3-8B-Instruct":  "llama-3-8b",
		"Qwen/Qwen3-8B":                        "qwen3-8b",
		"meta-llama/Llama-2-7b-chat-hf":        "llama-2-7b",
		"/models/Qwen3-32B-AWQ":                "qwen3-32b",
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
	// the registry's entry, with the Instruct checkpoint's own context
	// (its config.json: 32768), not the base model's 131072
	if err != nil || m.Name != "Qwen/Qwen2.5-7B-Instruct" || m.MaxContext != 32768 {
		t.Errorf("model = %q (context %d), %v; want Qwen/Qwen2.5-7B-Instruct, 32768", m.Name, m.MaxContext, err)
	}
}

// A Hugging Face id's quantization suffix, --quantization, --dtype and
// --kv-cache-dtype set the model's precisions.
func TestModelPrecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, quant, dtype, kv string
		weightBytes, kvBytes    float64
		gemm                    string
		expertBytes             float64
		expertGEMM              string
	}{
		{"meta-llama/Llama-3.1-8B-Instruct", "", "auto", "auto", 2, 2, "bf16", 0, ""},
		{"RedHatAI/Llama-3.1-8B-Instruct-FP8", "", "auto", "auto", 1, 2, "fp8", 0, ""},
		{"Qwen/Qwen3-32B-AWQ", "", "auto", "fp8", 4.15625 / 8, 1, "int4", 0, ""},
		{"llama-3.1-8b", "fp8", "auto", "fp8_e5m2", 1, 1, "fp8", 0, ""},
		{"llama-3.1-8b", "", "half", "auto", 2, 2, "fp16", 0, ""},
		// --dtype sets the 16-bit layers; the MXFP4 experts stay MXFP4
		{"gpt-oss-120b", "", "half", "auto", 2, 2, "fp16", 4.25 / 8, "mxfp4"},
		{"gpt-oss-120b", "fp8", "auto", "auto", 1, 2, "fp8", 0, ""},
	}
	for _, tt := range tests {
		s := Default()
		s.Server.Model, s.Server.Quantization, s.Server.DType, s.Server.KVCacheDType = tt.model, tt.quant, tt.dtype, tt.kv
		m, err := s.Model()
		if err != nil {
			t.Errorf("%+v: %v", tt, err)
			continue
		}
		if m.WeightBytes != tt.weightBytes || m.KVBytes != tt.kvBytes || m.GEMM.String() != tt.gemm ||
			m.ExpertWeightBytes != tt.expertBytes || m.ExpertGEMM.String() != tt.expertGEMM {
			t.Errorf("%s q=%q dtype=%q kv=%q: weight %v kv %v gemm %q experts %v %q; want %v %v %q %v %q", tt.model, tt.quant, tt.dtype, tt.kv,
				m.WeightBytes, m.KVBytes, m.GEMM, m.ExpertWeightBytes, m.ExpertGEMM, tt.weightBytes, tt.kvBytes, tt.gemm, tt.expertBytes, tt.expertGEMM)
		}
	}
	for _, bad := range []Server{{Model: "llama-3.1-8b", Quantization: "hqq"}, {Model: "llama-3.1-8b", DType: "float32"}, {Model: "llama-3.1-8b", KVCacheDType: "turboquant_4bit_nc"}} {
		s := Default()
		s.Server.Model, s.Server.Quantization, s.Server.DType, s.Server.KVCacheDType = bad.Model, bad.Quantization, bad.DType, bad.KVCacheDType
		if _, err := s.Model(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A directory with a Hugging Face config.json, or the file itself, is a
// model as vLLM loads it.
func TestModelDirectory(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"../cost/testdata/mixtral-8x7b", "../cost/testdata/mixtral-8x7b/config.json"} {
		s := Default()
		s.Server.Model = path
		m, err := s.Model()
		if err != nil || m.Experts != 8 {
			t.Errorf("%s: experts %d, %v; want Mixtral's 8", path, m.Experts, err)
		}
	}
	s := Default()
	s.Server.Model = "../cost"
	if _, err := s.Model(); err == nil || !strings.Contains(err.Error(), "holds no config.json") {
		t.Errorf("a directory without config.json: %v", err)
	}
}

// TestEfficiencyChoice: which efficiency prices an engine's steps. An
// empty server.profile is the GPU's built-in profile; an efficiency block
// or profile "none" is the three-number efficiency; both a profile and an
// efficiency block is an error naming the field.
func TestEfficiencyChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, server string
		profileGPU   string // "" for no profile
		bandwidth    float64
		err          string
	}{
		{"empty is the built-in profile", "", "h100-sxm", 0.8, ""},
		{"default", "{profile: default}", "h100-sxm", 0.8, ""},
		{"none", "{profile: none}", "", 0.8, ""},
		{"efficiency block", "{efficiency: {bandwidth: 0.7, flops: 0.5}}", "", 0.7, ""},
		{"efficiency with none", "{profile: none, efficiency: {bandwidth: 0.7, flops: 0.5}}", "", 0.7, ""},
		{"efficiency beside a profile", "{profile: default, efficiency: {bandwidth: 0.7, flops: 0.5}}", "", 0, "server.efficiency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := "{model: llama-3.1-8b, gpu: h100-sxm}"
			if tc.server != "" {
				extra := strings.TrimSuffix(strings.TrimPrefix(tc.server, "{"), "}")
				server = "{model: llama-3.1-8b, gpu: h100-sxm, " + extra + "}"
			}
			s, err := Parse([]byte("workload: {arrival: {rate: 1}}\nserver: "+server+"\n"), "e.yaml")
			if err == nil {
				_, err = s.Engine()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := s.Engine()
			if err != nil {
				t.Fatal(err)
			}
			d := e.Deployment
			switch {
			case tc.profileGPU == "" && d.Profile != nil:
				t.Errorf("profile %q, want none", d.Profile.GPU)
			case tc.profileGPU != "" && (d.Profile == nil || d.Profile.GPU != tc.profileGPU):
				t.Errorf("profile %v, want %s's", d.Profile, tc.profileGPU)
			}
			if d.Eff.Bandwidth != tc.bandwidth {
				t.Errorf("efficiency bandwidth %v, want %v", d.Eff.Bandwidth, tc.bandwidth)
			}
		})
	}
}
