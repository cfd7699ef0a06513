package screen

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
)

// WriteTable writes one line per candidate — shape and per-rank memory,
// KV tokens, the λ* bracket and λ* per GPU, and, when commonRate > 0, the
// floor of attainment and per-card goodput at that rate — then the verdict.
// A candidate that cannot run gets one short reason in its row, marked
// [n] when there is more to say, and the full reasons follow the table.
func (rep *Report) WriteTable(w io.Writer, commonRate float64) error {
	var b strings.Builder
	var details []string
	short := func(r Row, err string) string {
		s, more := shortReason(err)
		if !more {
			return s
		}
		details = append(details, fmt.Sprintf("[%d] %s: %s", len(details)+1, r.Candidate, strings.Join(reasonLines(err), "; ")))
		return fmt.Sprintf("%s [%d]", s, len(details))
	}
	common := ""
	if commonRate > 0 {
		common = fmt.Sprintf("at %g req/s: floor, G_card", commonRate)
	}
	// The candidate column fits the longest name ("TP=8 DP=4 EP x1"), at
	// least "candidate".
	width := len("candidate")
	for _, r := range rep.Rows {
		width = max(width, len(r.Candidate.String()))
	}
	fmt.Fprintf(&b, "%-*s %4s  %-42s %10s  %-18s %-16s %s\n", width, "candidate", "GPUs", "shape and memory per rank", "KV tokens", "lambda* (req/s)", "lambda*/GPU", common)
	for _, r := range rep.Rows {
		switch {
		case r.ShapeErr != "":
			fmt.Fprintf(&b, "%-*s %4d  impossible: %s\n", width, r.Candidate, r.GPUs, short(r, r.ShapeErr))
			continue
		case !r.Fits && r.Memory.KVPoolBytes <= 0:
			fmt.Fprintf(&b, "%-*s %4d  does not fit: weights %.1f GiB + runtime %.1f GiB > usable %.1f GiB\n",
				width, r.Candidate, r.GPUs, r.Memory.WeightBytes/cost.GiB, r.Memory.RuntimeBytes/cost.GiB, r.Memory.UsableBytes/cost.GiB)
			continue
		case !r.Fits:
			fmt.Fprintf(&b, "%-*s %4d  cannot run: %s\n", width, r.Candidate, r.GPUs, short(r, r.FitErr))
			continue
		}
		shape := fmt.Sprintf("%d heads, %d kv; weights %.1f + KV %.1f GiB",
			r.Shape.HeadsPerRank, r.Shape.KVHeadsPerRank, r.Memory.WeightBytes/cost.GiB, r.Memory.KVPoolBytes/cost.GiB)
		fmt.Fprintf(&b, "%-*s %4d  %-42s %10d  [%6.2f, %6s) [%5.2f, %6s)",
			width, r.Candidate, r.GPUs, shape, r.Memory.KVTokens, r.Search.Lower, rate(r.Search.Upper), r.LowerPerGPU, rate(r.UpperPerGPU))
		if commonRate > 0 {
			fmt.Fprintf(&b, " %6.2f%%, %5.0f tok/s/GPU", 100*r.CommonAttainment, r.CommonGoodputPerGPU)
		}
		b.WriteByte('\n')
	}
	for _, d := range details {
		fmt.Fprintln(&b, d)
	}
	fmt.Fprintf(&b, "verdict: %s\n", rep.Verdict())
	_, err := io.WriteString(w, b.String())
	return err
}

// fitReason is an engine error as a row's reason: a field error reads
// "field value limit" (the table's short form cuts it at the first ": "),
// or the lower layer's own words when the error only places them.
func fitReason(err error) string {
	fe := fielderr.Of(err)
	switch {
	case fe == nil:
		return err.Error()
	case fe.Limit == "" && fe.Cause != nil:
		return fe.Cause.Error()
	default:
		return fe.Field + " " + fe.Reason()
	}
}

// problemLines is a rejected deployment as a row's reason, one line per
// problem of the cost package's list (errors.Join): a field error as
// "field value limit" (fitReason), any other error in its own words.
func problemLines(err error) string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return fitReason(err)
	}
	var lines []string
	for _, e := range j.Unwrap() {
		lines = append(lines, problemLines(e))
	}
	return strings.Join(lines, "\n")
}

// reasonLines splits an error message into its lines, without the
// packages' prefixes ("cost: ", "batching: ").
func reasonLines(err string) []string {
	var out []string
	for _, l := range strings.Split(err, "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(l, "batching: "), "cost: ")
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// shortReason returns the first clause of an error's first line, and
// whether it leaves anything out.
func shortReason(err string) (string, bool) {
	lines := reasonLines(err)
	if len(lines) == 0 {
		return "", false
	}
	first, rest, cut := strings.Cut(lines[0], ": ")
	return first, cut && rest != "" || len(lines) > 1
}

func rate(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", x)
}
