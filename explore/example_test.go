package explore_test

import (
	"fmt"

	"github.com/servesim/servesim/explore"
)

// The page's default state, its lambda* search and the servesim command
// that prints the same JSON.
func ExampleSearch() {
	req := explore.Default()
	req.Rate = 10
	c, err := explore.Search(req, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("lambda* in [%.1f, %.1f) req/s after %d runs\n", *c.Lower, *c.Upper, c.Runs)
	fmt.Println(c.Command)
	// Output:
	// lambda* in [25.9, 28.3) req/s after 9 runs
	// servesim capacity --model llama-3.1-8b --gpu h100-sxm --tensor-parallel-size 1 --dataset-name random --random-input-len 1024 --random-output-len 128 --num-prompts 300 --seed 1 --goodput ttft:2000 tpot:100 --slo-target 0.99 --request-rate 10 --num-warmups 30 --replications 1 --boundary-replications 2 --precision 0.1 --json
}

// A bad field is an error naming it, its value and its range.
func ExampleRequest_Validate() {
	req := explore.Default()
	req.TP = 16
	fmt.Println(req.Validate())
	// Output: tp: 16 must be in [1, 8]
}
