package explore

import (
	"fmt"
	"testing"

	"github.com/servesim/servesim/plan"
)

// TestPlanRoundSameWinner checks that the page's plan, one candidate a
// round (planRound), picks the winners servesim plan picks with its
// default rounds of 8 (plan.DefaultSearch; the CLI without --round) over
// models, target rates and GPU sets, and that it runs fewer simulations
// in all.
func TestPlanRoundSameWinner(t *testing.T) {
	models := []string{"llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "llama-3.1-70b"}
	rates := []float64{5, 20, 30, 80}
	gpus := [][]string{{"h100-sxm", "l40s"}, {"h100-sxm", "a100-80gb", "l40s"}}
	if testing.Short() {
		models, rates, gpus = models[:2], rates[1:3], gpus[:1]
	}
	var pageReqs, cliReqs int64
	for _, m := range models {
		for _, rate := range rates {
			for _, g := range gpus {
				r := Default()
				r.Model, r.PlanRate, r.PlanGPUs = m, rate, g
				page, err := Plan(r)
				if err != nil {
					t.Fatal(err)
				}
				cli, err := planRounds(r, plan.DefaultSearch().Round)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := winners(page), winners(cli); got != want {
					t.Errorf("%s at %v req/s on %v: the page's plan (round %d) picks %s, servesim plan (round %d) %s",
						m, rate, g, planRound, got, plan.DefaultSearch().Round, want)
				}
				pageReqs += page.Requests
				cliReqs += cli.Requests
			}
		}
	}
	if pageReqs >= cliReqs {
		t.Errorf("the page's plans simulated %d requests, no fewer than the %d of rounds of %d", pageReqs, cliReqs, plan.DefaultSearch().Round)
	}
	t.Logf("requests simulated: %d with rounds of %d, %d with rounds of %d", pageReqs, planRound, cliReqs, plan.DefaultSearch().Round)
}

// winners names a plan's winners: each one's deployment, replicas and
// cost an hour.
func winners(res *plan.Result) string {
	s := fmt.Sprintf("%d winners:", res.Winners)
	for _, x := range res.Best() {
		s += fmt.Sprintf(" %s x%d $%.4f/h;", x.Candidate.Name, x.Replicas, x.CostPerHour)
	}
	return s
}
