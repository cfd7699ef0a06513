package main

import (
	"fmt"
	"io"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/scenario"
)

// printScenarioPricing writes "priced by: ..." for the scenario's engine
// when it has a profile.
func printScenarioPricing(w io.Writer, sc *scenario.Scenario) {
	if p := sc.Pricing(); p != "" {
		fmt.Fprintf(w, "priced by: %s\n", p)
	}
}

// pricedBy returns what prices eng's steps (cost.Profile.Pricing), or
// "" for an engine without a profile (the three-number efficiency).
func pricedBy(eng batching.Config) string {
	if eng.Deployment.Profile == nil {
		return ""
	}
	return eng.Deployment.Profile.Pricing()
}

// printPricedBy writes "priced by: ..." for each GPU option of a plan (its
// own profile, or the GPU's default).
func printPricedBy(w io.Writer, gpus []plan.GPUOption) {
	for _, g := range gpus {
		p := cost.DefaultProfile(g.GPU)
		if g.Profile != nil {
			p = *g.Profile
		}
		fmt.Fprintf(w, "priced by: %s\n", p.Pricing())
	}
}
