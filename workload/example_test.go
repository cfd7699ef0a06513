package workload_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/servesim/servesim/workload"
)

// A Poisson stream at 10 requests per second: gaps average 0.1 s.
func ExamplePoisson() {
	p := workload.Poisson{Rate: 10}
	s, err := p.Stream(rand.New(rand.NewPCG(1, 2)), 0)
	if err != nil {
		panic(err)
	}
	for range 5 {
		fmt.Printf("%.3f s\n", s.Next())
	}
	// Over many requests the rate settles at 10/s.
	const n = 100_000
	var last float64
	for range n {
		last = s.Next()
	}
	fmt.Printf("rate over %d more requests: %.1f/s\n", n, (n+5)/last)
	// Output:
	// 0.113 s
	// 0.175 s
	// 0.246 s
	// 0.302 s
	// 0.462 s
	// rate over 100000 more requests: 10.0/s
}

// vLLM's `random` dataset: input 1024 ± 25% and output 128 ± 25% tokens,
// uniform integers, drawn independently.
func ExampleRandom() {
	lengths := workload.Random{InputLen: 1024, OutputLen: 128, RangeRatio: 0.25}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 4 {
		in, out := lengths.Sample(r, i)
		fmt.Printf("request %d: L=%d O=%d\n", i, in, out)
	}
	meanIn, meanOut := lengths.Mean()
	fmt.Printf("mean L=%.0f O=%.0f\n", meanIn, meanOut)
	// Output:
	// request 0: L=1162 O=136
	// request 1: L=1170 O=147
	// request 2: L=888 O=98
	// request 3: L=1024 O=125
	// mean L=1024 O=128
}
