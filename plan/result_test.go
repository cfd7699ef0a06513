package plan_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
)

// TestResultOutputs: the table, CSV and JSON of the M/M/1 plan with
// pruning off say the same thing.
func TestResultOutputs(t *testing.T) {
	t.Parallel()
	s := search(1)
	s.NoPrune = true
	res := solve(t, s)

	var table bytes.Buffer
	require.NoError(t, res.WriteTable(&table))
	out := table.String()
	t.Log("\n" + out)
	assert.Contains(t, out, "SLO: E2E <= 1 s for >= 90% of requests")
	assert.Contains(t, out, "5 candidates: 5 pass the screen, 5 simulated, 0 pruned")
	assert.Contains(t, out, "winner: C x3 (3 GPUs), $3.90/h")
	assert.Regexp(t, `(?m)^1\*F? +C +3 +3 +3\.90 `, out)
	assert.Regexp(t, `(?m)^ +3 D +slo-unreachable +one replica misses the SLO`, out)

	var csvBuf bytes.Buffer
	require.NoError(t, res.WriteCSV(&csvBuf))
	rows, err := csv.NewReader(&csvBuf).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+5)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	assert.Equal(t, []string{"C", "ok", "1", "true", "3", "3.9"},
		[]string{rows[1][col["name"]], rows[1][col["status"]], rows[1][col["rank"]], rows[1][col["winner"]], rows[1][col["replicas"]], rows[1][col["cost_per_hour"]]})
	last := rows[len(rows)-1]
	assert.Equal(t, []string{"D", "slo-unreachable"}, []string{last[col["name"]], last[col["status"]]})
	assert.NotEmpty(t, last[col["why"]])
	for _, r := range rows {
		assert.Len(t, r, len(rows[0]))
	}

	b, err := json.Marshal(res)
	require.NoError(t, err)
	var back struct {
		Ranked []struct {
			Name   string `json:"name"`
			Lambda struct {
				Lower float64  `json:"lower"`
				Upper *float64 `json:"upper"`
			} `json:"lambda_per_replica"`
			Frontier bool `json:"frontier"`
		} `json:"ranked"`
		Rejected []struct {
			Reason string `json:"reason"`
		} `json:"rejected"`
		Winners int `json:"winners"`
	}
	require.NoError(t, json.Unmarshal(b, &back))
	require.Len(t, back.Ranked, 4)
	assert.Equal(t, "E", back.Ranked[3].Name)
	assert.Nil(t, back.Ranked[3].Lambda.Upper, "E passes at the target itself: no upper end")
	assert.NotNil(t, back.Ranked[0].Lambda.Upper)
	assert.Equal(t, "slo-unreachable", back.Rejected[0].Reason)
	assert.Equal(t, 1, back.Winners)

	// The frontier: C is cheapest; E (one fast server) has the lowest
	// latency; A and B lie between or behind them.
	var front []string
	for _, x := range res.Frontier() {
		front = append(front, x.Name)
	}
	assert.Contains(t, front, "C")
	assert.Contains(t, front, "E")
	for _, x := range res.Ranked {
		if x.Frontier {
			continue
		}
		dominated := false
		for _, y := range res.Ranked {
			dominated = dominated || (y.CostPerHour <= x.CostPerHour && y.TTFT.P99 <= x.TTFT.P99 && y.TPOT.P99 <= x.TPOT.P99 && y.Name != x.Name)
		}
		assert.True(t, dominated, "%s is off the frontier only when dominated", x.Name)
	}
}

// TestSolveBudgetAndReplicaCap: a budget below every deployment leaves no
// winner, every simulated candidate too expensive; a replica cap below
// what the cheapest needs rejects it with its own reason.
func TestSolveBudgetAndReplicaCap(t *testing.T) {
	t.Parallel()
	s := search(1)
	s.Budget = 3
	res := solve(t, s)
	assert.Zero(t, res.Winners)
	assert.Empty(t, res.Ranked)
	var out bytes.Buffer
	require.NoError(t, res.WriteTable(&out))
	assert.Contains(t, out.String(), "no candidate meets the SLO at the target rate")
	for _, r := range res.Rejected {
		if r.Name != "D" {
			assert.Equal(t, plan.TooExpensive, r.Reason, r.Why)
			assert.Contains(t, r.Why, "above the budget $3.00/h")
			assert.Greater(t, r.CostLowerBound, 3.0)
		}
	}

	s = search(1)
	s.MaxReplicas = 2
	res = solve(t, s)
	reasons := map[string]plan.Reason{}
	for _, r := range res.Rejected {
		reasons[r.Name] = r.Reason
	}
	// A needs 4 and C 3 replicas: more than 2 (A by its roofline already:
	// 30/(11·1.25) > 2).
	assert.Equal(t, plan.TooManyReplicas, reasons["A"])
	assert.Equal(t, plan.TooManyReplicas, reasons["C"])
	assert.Equal(t, []string{"B"}, rankedNames(res))
	assert.True(t, strings.HasPrefix(res.Best()[0].Name, "B"))
}

// TestResultWriteText: servesim plan's text is the table with the
// workload after its first line and the GPUs searched after it, each
// with its price and the price's source; the rank marks explained under
// the ranked table; then one "priced by" line per GPU searched, in order.
func TestResultWriteText(t *testing.T) {
	t.Parallel()
	s := search(1)
	s.NoPrune = true
	res := solve(t, s)
	require.NotEmpty(t, res.Ranked)
	var table, text bytes.Buffer
	require.NoError(t, res.WriteTable(&table))
	h100, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	a100, err := cost.GPU("a100-80gb")
	require.NoError(t, err)
	gpus := []plan.GPUOption{{GPU: h100, PricePerHour: 2.99}, {GPU: a100}}
	require.NoError(t, res.WriteText(&text, "Poisson arrivals", gpus))
	head, rest, _ := strings.Cut(table.String(), "\n")
	summary, tail, _ := strings.Cut(rest, "\n\n")
	ranked, after, _ := strings.Cut(tail, "\n\n")
	searched := fmt.Sprintf("searched 2 GPUs: h100-sxm $2.99/h (given), a100-80gb $%.2f/h; built-in prices: %s; (given) from the plan's prices (--prices)\n",
		plan.DefaultPrices()["a100-80gb"], plan.PriceSource)
	legend := "rank: * a winner (the cheapest $/h that meets the SLO at the rate), F on the Pareto frontier of $/h, p99 TTFT and p99 TPOT (no other candidate is as good in all three and better in one)\n"
	want := head + "\nworkload: Poisson arrivals\n" + searched + summary + "\n\n" + ranked + "\n" + legend + "\n" + after +
		"priced by: " + gpus[0].Pricing() + "\npriced by: " + gpus[1].Pricing() + "\n"
	assert.Equal(t, want, text.String())
	assert.Contains(t, gpus[0].Pricing(), "h100")
	assert.Contains(t, ranked, "1*", "the ranked table's first row carries the winner's mark")
}
