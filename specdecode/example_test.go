package specdecode_test

import (
	"fmt"

	"github.com/servesim/servesim/specdecode"
)

// vLLM's --speculative-config, with the per-position acceptance rates its
// spec-decode metrics print: the mean acceptance length is 1 + Σ r_i.
func ExampleParse() {
	c, err := specdecode.Parse(`{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
		"num_speculative_tokens": 3, "acceptance_rates": [0.75, 0.5, 0.3]}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	acc, _ := c.Acceptance()
	fmt.Printf("%s k=%d mean acceptance length %.2f\n", c.Method, c.NumSpeculativeTokens, acc.MeanLength())
	_, err = specdecode.Parse(`{"method": "eagle3", "num_speculative_tokens": 3}`)
	fmt.Println(err != nil)
	// Output:
	// eagle3 k=3 mean acceptance length 2.55
	// true
}

// A measured row of the built-in table: EAGLE-3 on MT-Bench at k = 4.
func ExampleDefaultTable() {
	c := specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: 4, AcceptanceDataset: "mt-bench"}
	acc, err := c.Acceptance()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean acceptance length %.2f, α %.3f\n", acc.MeanLength(), specdecode.AlphaForLength(acc.MeanLength(), 4))
	// Output:
	// mean acceptance length 3.08, α 0.755
}
