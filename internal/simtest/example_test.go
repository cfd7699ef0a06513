package simtest_test

import (
	"bytes"
	"fmt"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/internal/simtest"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// Two runs of the same configuration and seed dump the same bytes; a
// different seed does not.
func ExampleDump() {
	cfg := sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 5}, Lengths: workload.Fixed{Input: 1, Output: 1}},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}},
		Requests: 200, Seed: 1,
	}
	dump := func(c sim.Config) []byte {
		res, err := sim.Run(c)
		if err != nil {
			panic(err)
		}
		b, err := simtest.Dump(res)
		if err != nil {
			panic(err)
		}
		return b
	}
	a, b := dump(cfg), dump(cfg)
	cfg.Seed = 2
	c := dump(cfg)
	fmt.Println(bytes.Equal(a, b), bytes.Equal(a, c))
	// Output: true false
}
