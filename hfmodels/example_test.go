package hfmodels_test

import (
	"fmt"

	"github.com/servesim/servesim/hfmodels"
)

// An Instruct checkpoint has its own context: Qwen2.5-7B-Instruct's
// config.json says 32768, its base model's 131072.
func ExampleLookup() {
	for _, id := range []string{"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"} {
		e, err := hfmodels.Lookup(id)
		if err != nil {
			fmt.Println(err)
			return
		}
		m, _ := e.Model()
		fmt.Printf("%s: %d layers, %.2fB parameters, context %d\n", e.ID, m.Layers, m.TotalParams()/1e9, m.MaxContext)
	}
	// Output:
	// Qwen/Qwen2.5-7B-Instruct: 28 layers, 7.62B parameters, context 32768
	// Qwen/Qwen2.5-7B: 28 layers, 7.62B parameters, context 131072
}

// A quantized repackaging resolves to its checkpoint with the quantization
// its name implies.
func ExampleResolve() {
	e, quant, err := hfmodels.Resolve("RedHatAI/Qwen3-14B-FP8-dynamic")
	fmt.Println(e.ID, quant, err)
	// Output: Qwen/Qwen3-14B fp8 <nil>
}
