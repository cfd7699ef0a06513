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
	fmt.Printf("%s: %.1fB parameters, %.1fB active, %d of %d experts per token\n",
		m.Name, m.TotalParams()/1e9, m.ActiveParams()/1e9, m.ExpertsPerToken, m.Experts)
	fmt.Printf("weights %.0f GB (%v GEMMs), KV %.0f bytes per token (MLA), max context %d\n",
		m.WeightBytesTotal()/1e9, m.GEMM, m.KVBytesPerToken(), m.MaxContext)
	fmt.Printf("64 tokens touch %.1f distinct experts per layer\n", m.ExpectedDistinctExperts(64))

	h200, _ := cost.GPU("h200")
	d := cost.Deployment{Model: m, GPU: h200, TP: 8, EP: 8}
	s := d.Step(cost.DecodeBatch(64, 4096))
	fmt.Printf("TP=8 EP=8: %.1f GB weights per GPU, a decode step reads %.1f GB of weights and %.1f GB of KV per GPU\n",
		d.WeightBytesPerRank()/1e9, s.WeightBytes/1e9, s.KVReadBytes/1e9)
	// Output:
	// deepseek-v3: 671.0B parameters, 37.6B active, 8 of 256 experts per token
	// weights 673 GB (fp8 GEMMs), KV 70272 bytes per token (MLA), max context 163840
	// 64 tokens touch 202.7 distinct experts per layer
	// TP=8 EP=8: 85.0 GB weights per GPU, a decode step reads 67.8 GB of weights and 18.4 GB of KV per GPU
}
