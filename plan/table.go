package plan

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/capacity"
)

// DescribeCriteria writes an objective as a sentence: "TTFT <= 2 s and
// TPOT <= 50 ms for >= 99% of requests".
func DescribeCriteria(c capacity.Criteria) string {
	var bounds []string
	for _, b := range []struct {
		name string
		v    float64
	}{{"TTFT", c.SLO.TTFT}, {"TPOT", c.SLO.TPOT}, {"E2E", c.SLO.E2E}} {
		if b.v > 0 {
			bounds = append(bounds, b.name+" <= "+seconds(b.v))
		}
	}
	return fmt.Sprintf("%s for >= %s%% of requests", strings.Join(bounds, " and "), strconv.FormatFloat(100*c.Target, 'g', -1, 64))
}

// seconds writes a duration: "2 s", "50 ms".
func seconds(s float64) string {
	if s >= 1 {
		return strconv.FormatFloat(s, 'g', 4, 64) + " s"
	}
	return strconv.FormatFloat(1000*s, 'g', 4, 64) + " ms"
}

// maxCommands is the number of winners whose command lines WriteTable
// prints.
const maxCommands = 3

// WriteTable writes the plan as text: what was asked and how much was
// simulated; the ranked table, cheapest first (* marks the winners, F the
// Pareto frontier of cost, p99 TTFT and p99 TPOT); the winner or the tie;
// every rejected candidate with its reason; and the vLLM command lines of
// the first three winners.
func (r *Result) WriteTable(w io.Writer) error {
	var b strings.Builder
	model := ""
	if r.Model != "" {
		model = r.Model + " "
	}
	fmt.Fprintf(&b, "plan: %sat %s req/s; SLO: %s\n", model, strconv.FormatFloat(r.Rate, 'g', -1, 64), DescribeCriteria(r.Criteria))
	fmt.Fprintf(&b, "%d candidates: %d pass the screen, %d simulated, %d pruned as too expensive; %d runs, %d simulated requests\n\n",
		r.Candidates, r.Screened, r.Simulated, r.Pruned, r.Runs, r.Requests)
	// The candidate columns fit the longest label, at least 44 wide.
	width := 44
	for _, x := range r.Ranked {
		width = max(width, len(x.label()))
	}
	for _, x := range r.Rejected {
		width = max(width, len(x.label()))
	}
	if len(r.Ranked) > 0 {
		fmt.Fprintf(&b, "%-6s %-*s %4s %4s %8s %8s %-16s %9s %9s %9s %8s\n",
			"rank", width, "candidate", "repl", "GPUs", "$/h", "$/Mtok", "lambda*/replica", "TTFT p99", "TPOT p99", "ITL p99", "attain")
		for i, x := range r.Ranked {
			mark := ""
			if i < r.Winners {
				mark += "*"
			}
			if x.Frontier {
				mark += "F"
			}
			fmt.Fprintf(&b, "%-6s %-*s %4d %4d %8s %8s %-16s %9s %9s %9s %7.2f%%\n",
				strconv.Itoa(i+1)+mark, width, x.label(), x.Replicas, x.TotalGPUs, formatMoney(x.CostPerHour), formatMoney(x.CostPerMTok),
				x.Lambda.String(), latency(x.TTFT.P99), latency(x.TPOT.P99), latency(x.ITL.P99), 100*x.Attainment)
		}
		b.WriteByte('\n')
	}
	switch {
	case r.Winners == 0:
		b.WriteString("no candidate meets the SLO at the target rate\n")
	case r.Winners == 1:
		x := r.Ranked[0]
		fmt.Fprintf(&b, "winner: %s x%d (%s), $%s/h, $%s per million output tokens\n", x.label(), x.Replicas, gpusText(x.TotalGPUs), formatMoney(x.CostPerHour), formatMoney(x.CostPerMTok))
	default:
		fmt.Fprintf(&b, "tie: %d candidates at $%s/h:\n", r.Winners, formatMoney(r.Ranked[0].CostPerHour))
		for _, x := range r.Best() {
			fmt.Fprintf(&b, "  %s x%d (%s)\n", x.label(), x.Replicas, gpusText(x.TotalGPUs))
		}
	}
	if len(r.Rejected) > 0 {
		counts := map[Reason]int{}
		for _, x := range r.Rejected {
			counts[x.Reason]++
		}
		var parts []string
		for reason := Invalid; reason <= TooManyReplicas; reason++ {
			if counts[reason] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", reason, counts[reason]))
			}
		}
		fmt.Fprintf(&b, "\nrejected (%d: %s):\n", len(r.Rejected), strings.Join(parts, ", "))
		for _, x := range r.Rejected {
			fmt.Fprintf(&b, "%4d %-*s %-17s %s\n", x.Index, width, x.label(), x.Reason, x.Why)
		}
	}
	var cmds []string
	for i, x := range r.Best() {
		if i == maxCommands {
			cmds = append(cmds, fmt.Sprintf("  (and %d more tied winners: see the JSON)", r.Winners-maxCommands))
			break
		}
		if x.Serve != "" {
			cmds = append(cmds, "  "+x.Serve, "  "+x.Bench)
		}
	}
	if len(cmds) > 0 {
		fmt.Fprintf(&b, "\nto deploy and check the winner%s on real hardware:\n%s\n", plural(r.Winners), strings.Join(cmds, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// latency writes seconds for the table: "0.52 s" or "31.2 ms".
func latency(s float64) string {
	if s >= 1 {
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(1000*s, 'f', 1, 64) + " ms"
}

// csvHeader names the CSV columns; latencies are in seconds, costs in
// dollars.
var csvHeader = []string{"index", "name", "gpu", "tensor_parallel_size", "data_parallel_size", "enable_expert_parallel", "max_num_seqs", "max_num_batched_tokens",
	"enable_chunked_prefill", "precision", "max_model_len", "gpus_per_replica", "price_per_gpu_hour",
	"status", "rank", "winner", "frontier", "replicas", "gpus", "cost_per_hour", "cost_per_million_output_tokens",
	"lambda_lower", "lambda_upper", "roofline_rate", "attainment",
	"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "itl_p50", "itl_p99", "e2el_p50", "e2el_p99",
	"cost_lower_bound", "why"}

// WriteCSV writes one row per candidate: the ranked ones in rank order
// (status "ok"), then the rejected ones in candidate order (status the
// reason, with why). Empty cells are values that do not apply.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(x float64) string {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 10, 64)
	}
	head := func(c Candidate) []string {
		s := c.Settings
		return []string{strconv.Itoa(c.Index), c.label(), s.GPU, strconv.Itoa(s.TP), strconv.Itoa(max(s.DP, 1)), strconv.FormatBool(s.EP), strconv.Itoa(s.MaxNumSeqs),
			strconv.Itoa(s.MaxNumBatchedTokens), strconv.FormatBool(s.ChunkedPrefill), s.Precision.String(),
			strconv.Itoa(s.MaxModelLen), strconv.Itoa(c.GPUs), f(c.PricePerGPUHour)}
	}
	for i, x := range r.Ranked {
		row := append(head(x.Candidate), "ok", strconv.Itoa(i+1), strconv.FormatBool(i < r.Winners), strconv.FormatBool(x.Frontier),
			strconv.Itoa(x.Replicas), strconv.Itoa(x.TotalGPUs), f(x.CostPerHour), f(x.CostPerMTok),
			f(x.Lambda.Lower), f(x.Lambda.Upper), f(x.MaxRate), f(x.Attainment),
			f(x.TTFT.P50), f(x.TTFT.P99), f(x.TPOT.P50), f(x.TPOT.P99), f(x.ITL.P50), f(x.ITL.P99), f(x.E2E.P50), f(x.E2E.P99),
			"", "")
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, x := range r.Rejected {
		lo, hi := "", ""
		if x.Lambda != nil {
			lo, hi = f(x.Lambda.Lower), f(x.Lambda.Upper)
		}
		bound := ""
		if x.CostLowerBound > 0 {
			bound = f(x.CostLowerBound)
		}
		row := append(head(x.Candidate), x.Reason.String(), "", "false", "false", "", "", "", "", lo, hi, "", "",
			"", "", "", "", "", "", "", "", bound, x.Why)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// gpusText writes "1 GPU" or "n GPUs".
func gpusText(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return strconv.Itoa(n) + " GPUs"
}

// WriteText writes servesim plan's answer: the table (WriteTable) with the
// probed workload's description after its first line, the source of each
// searched GPU's price and profile (GPUOption.Pricing), and where
// speculative decoding stops paying (SpecReport.WriteText) when the space
// searched it.
func (r *Result) WriteText(w io.Writer, workload string, gpus []GPUOption) error {
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		return err
	}
	head, rest, _ := bytes.Cut(b.Bytes(), []byte("\n"))
	fmt.Fprintf(w, "%s\nworkload: %s\n%s", head, workload, searchedText(gpus))
	if len(r.Ranked) > 0 { // the summary line, the table, the legend under it
		summary, tail, _ := bytes.Cut(rest, []byte("\n\n"))
		table, after, _ := bytes.Cut(tail, []byte("\n\n"))
		fmt.Fprintf(w, "%s\n\n%s\n%s\n\n%s", summary, table, rankLegend, after)
	} else {
		w.Write(rest)
	}
	for _, g := range gpus {
		fmt.Fprintf(w, "priced by: %s\n", g.Pricing())
	}
	r.Speculative.WriteText(w)
	return nil
}

// rankLegend explains the rank column's marks.
const rankLegend = "rank: * a winner (the cheapest $/h that meets the SLO at the rate), F on the Pareto frontier of $/h, p99 TTFT and p99 TPOT (no other candidate is as good in all three and better in one)"

// searchedText names the GPUs searched, each with its price per GPU-hour
// and where the price comes from: the built-in list (PriceSource) or the
// plan's own (--prices).
func searchedText(gpus []GPUOption) string {
	var parts []string
	builtIn, given := false, false
	for _, g := range gpus {
		p, err := g.price()
		if err != nil {
			parts = append(parts, g.GPU.Name+" (no price)")
			continue
		}
		text := g.GPU.Name + " $" + formatMoney(p) + "/h"
		if d, ok := defaultPrices[g.GPU.Name]; ok && d == p {
			builtIn = true
		} else {
			text += " (given)"
			given = true
		}
		parts = append(parts, text)
	}
	var src []string
	if builtIn {
		src = append(src, "built-in prices: "+PriceSource)
	}
	if given {
		src = append(src, "(given) from the plan's prices (--prices)")
	}
	return fmt.Sprintf("searched %d GPU%s: %s; %s\n", len(gpus), plural(len(gpus)), strings.Join(parts, ", "), strings.Join(src, "; "))
}
