package calibrate

import (
	"errors"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
)

// modelDir is the shared folder of Hugging Face configs.
func modelDir(t testing.TB) string { return shareddata.Path(t, "model_configs") }

// TestLoadModelQwen3 checks the Qwen3-32B spec that cost.LoadHFConfig reads
// from its config.json against the published numbers, and that it gives
// the step times of a spec written from them by hand (what this package
// used before it read configs) to the bit.
func TestLoadModelQwen3(t *testing.T) {
	t.Parallel()
	m, err := LoadModel(modelDir(t), "qwen/QWEN3-32B")
	if err != nil {
		t.Fatal(err)
	}
	// https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json
	published := cost.ModelSpec{Name: m.Name, Hidden: 5120, Intermediate: 25600, Layers: 64, Heads: 64,
		KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxContext: 40960, WeightBytes: 2, KVBytes: 2, ActBytes: 2}
	if want := published; func() cost.ModelSpec { m.GEMM = cost.PrecisionUnset; return m }() != want {
		t.Errorf("config gives %+v, want %+v", m, want)
	}
	g, _ := cost.GPU("h100-sxm")
	p := testProfile()
	for _, tp := range []int{2, 8} {
		got := cost.Deployment{Model: m, GPU: g, TP: tp, Profile: &p}
		want := cost.Deployment{Model: published, GPU: g, TP: tp, Profile: &p}
		var b cost.Batch
		b.DecodeSeqs, b.DecodeContext = 64, 64*1500
		b.AddPrefill(1024, 512)
		if x, y := got.Step(b), want.Step(b); x != y {
			t.Errorf("tp%d: step %+v, want %+v", tp, x, y)
		}
	}
}

func TestLoadModelAliasesAndCatalog(t *testing.T) {
	t.Parallel()
	dir := modelDir(t)
	renamed, err := LoadModel(dir, "meta-llama/Llama-3.1-70B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Hidden != 8192 || renamed.Layers != 80 || renamed.Name != "meta-llama--Meta-Llama-3.1-70B" {
		t.Errorf("Llama-3.1-70B from its Meta- file: %+v", renamed)
	}
	// without a directory: servesim's registry, the same published config
	reg, err := LoadModel("", "meta-llama/Meta-Llama-3.1-8B")
	fromDir, derr := LoadModel(dir, "meta-llama/Meta-Llama-3.1-8B")
	if err != nil || derr != nil || reg.Name != "meta-llama/Meta-Llama-3.1-8B" || reg.TotalParams() != fromDir.TotalParams() || reg.MaxContext != fromDir.MaxContext {
		t.Errorf("registry fallback: %+v, %v; the directory's: %+v, %v", reg, err, fromDir, derr)
	}
	cat, err := LoadModel("", "meta-llama/Llama-2-7b-chat-hf")
	if err != nil || cat.Name != "llama-2-7b" {
		t.Errorf("catalog fallback for an instruct checkpoint the registry names: %+v, %v", cat, err)
	}
	if _, err := LoadModel(dir, "nobody/nothing"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown model: %v, want ErrInvalid", err)
	}
	if _, err := LoadModel("", "Qwen/Qwen3-32B-Chatty"); !errors.Is(err, ErrInvalid) {
		t.Errorf("an unregistered id without a directory: %v, want ErrInvalid", err)
	}
}

func TestServed(t *testing.T) {
	t.Parallel()
	dir := modelDir(t)
	llama, _ := LoadModel(dir, "meta-llama/Llama-3.1-70B")
	fp8, err := Served(llama, "fp8")
	if err != nil || fp8.GEMM != cost.FP8 || fp8.WeightBytes != 1 || fp8.KVBytes != 2 || fp8.EmbeddingBytes != 2 {
		t.Errorf("Llama-3.1-70B in fp8: %+v, %v", fp8, err)
	}
	if same, _ := Served(llama, "bf16"); same != llama {
		t.Errorf("bf16 changed a bf16 checkpoint: %+v", same)
	}
	oss, _ := LoadModel(dir, "openai/gpt-oss-120b")
	if got, _ := Served(oss, "fp4"); got != oss || got.ExpertGEMM != cost.MXFP4 || got.GEMM != cost.BF16 {
		t.Errorf("gpt-oss in fp4 should stay the MXFP4 checkpoint: %+v", got)
	}
	// NVIDIA's NVFP4 checkpoints of mixture-of-experts models quantize the
	// routed experts alone: MiniMax-M2.5's FP8 attention becomes BF16.
	minimax, _ := LoadModel(dir, "MiniMaxAI/MiniMax-M2.5")
	fp4, err := Served(minimax, "fp4")
	if err != nil || fp4.GEMM != cost.BF16 || fp4.WeightBytes != 2 || fp4.ExpertGEMM != cost.FP4 || fp4.ExpertWeightBytes != cost.FP4.Bytes() {
		t.Errorf("MiniMax-M2.5 in fp4: %+v, %v", fp4, err)
	}
	if fp4.WeightBytesTotal() >= minimax.WeightBytesTotal() {
		t.Errorf("MiniMax-M2.5 in fp4 holds %.3g bytes, not fewer than its FP8 checkpoint's %.3g", fp4.WeightBytesTotal(), minimax.WeightBytesTotal())
	}
	kimi, _ := LoadModel(dir, "moonshotai/Kimi-K2.5")
	if got, _ := Served(kimi, "fp4"); got.GEMM != cost.BF16 || got.ExpertGEMM != cost.FP4 || got.WeightBytes != 2 {
		t.Errorf("Kimi-K2.5 in fp4: attention and shared experts should stay BF16: %+v", got)
	}
	if _, err := Served(fp8, "bf16"); !errors.Is(err, ErrInvalid) {
		t.Errorf("an fp8 checkpoint in bf16: %v, want ErrInvalid", err)
	}
	if _, err := Served(llama, "fp7"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown precision: %v, want ErrInvalid", err)
	}
}
