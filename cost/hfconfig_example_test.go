package cost_test

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// Load DeepSeek-V3's config.json (MLA, 256 routed experts, FP8 weights),
// then ask what a decode step of 64 requests reads on 8 H200s with expert
// parallelism.
func ExampleLoadHFConfig() {
	m, err := cost.LoadHFConfig("testdata/deepseek-v3")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.1fB parameters, %d of %d experts per token\n",
		m.Name, m.TotalParams()/1e9, m.ExpertsPerToken, m.Experts)
	fmt.Printf("weights %.0f GB (%v GEMMs), KV %.0f bytes per token (MLA), max context %d\n",
		m.WeightBytesTotal()/1e9, m.GEMM, m.KVBytesPerToken(), m.MaxContext)

	h200, _ := cost.GPU("h200")
	d := cost.Deployment{Model: m, GPU: h200, TP: 8, EP: 8}
	s := d.Step(cost.DecodeBatch(64, 4096))
	fmt.Printf("TP=8 EP=8: %.1f GB weights per GPU, a decode step reads %.1f GB of weights and %.1f GB of KV per GPU\n",
		d.WeightBytesPerRank()/1e9, s.WeightBytes/1e9, s.KVReadBytes/1e9)
	// Output:
	// deepseek-v3: 671.0B parameters, 8 of 256 experts per token
	// weights 673 GB (fp8 GEMMs), KV 70272 bytes per token (MLA), max context 163840
	// TP=8 EP=8: 85.0 GB weights per GPU, a decode step reads 67.8 GB of weights and 18.4 GB of KV per GPU
}

// Serve Mixtral-8x7B in NVFP4 as NVIDIA's FP4 checkpoints of
// mixture-of-experts models are: the routed experts alone in 4.5 bits,
// attention in BF16, each GEMM at its own peak; then compare the prefill
// of 8,192 tokens on one B200 with the model in BF16 and fully in NVFP4.
func ExampleModelSpec_Quantized() {
	m, err := cost.LoadHFConfig("testdata/mixtral-8x7b")
	if err != nil {
		fmt.Println(err)
		return
	}
	fp4 := m.Quantized(cost.FP4)
	fmt.Printf("%s in nvfp4: weights %.1f GB (bf16 %.1f GB); attention %v, experts %v\n",
		m.Name, fp4.WeightBytesTotal()/1e9, m.WeightBytesTotal()/1e9, fp4.GEMM, fp4.ExpertGEMM)
	b200, _ := cost.GPU("b200")
	prefill := cost.Batch{PrefillTokens: 8192, PrefillSeqs: 1}
	for _, v := range []struct {
		name string
		m    cost.ModelSpec
	}{{"bf16", m}, {"nvfp4 experts", fp4}, {"nvfp4 everywhere", m.WithWeights(cost.FP4)}} {
		d := cost.Deployment{Model: v.m, GPU: b200, TP: 1, Eff: cost.Efficiency{Bandwidth: 1, FLOPs: 1}}
		fmt.Printf("%-16s compute %.1f ms\n", v.name, 1000*d.Step(prefill).ComputeTime)
	}
	// Output:
	// mixtral-8x7b in nvfp4: weights 28.6 GB (bf16 93.4 GB); attention bf16, experts nvfp4
	// bf16             compute 91.9 ms
	// nvfp4 experts    compute 30.3 ms
	// nvfp4 everywhere compute 23.0 ms
}
