package cost

import (
	"fmt"
	"strings"
)

// ErrorBand is one measured prediction error of a profile: the median
// |predicted/measured − 1| of mean TPOT and mean TTFT over a set of real
// runs, and what that set is.
type ErrorBand struct {
	// TPOT and TTFT are median |relative error|s, fractions (0.06: ±6%);
	// 0: not measured.
	TPOT float64 `json:"tpot" yaml:"tpot"`
	TTFT float64 `json:"ttft" yaml:"ttft"`
	// Runs is how many runs the medians are over.
	Runs int `json:"runs" yaml:"runs"`
	// On says which runs and whether the profile was fitted on them
	// ("held out: ..." or "fitted on: ...").
	On string `json:"on" yaml:"on"`
}

// String writes the band as "TPOT ±5.0%, TTFT ±20.2% (237 runs: on)".
func (e ErrorBand) String() string {
	var parts []string
	if e.TPOT > 0 {
		parts = append(parts, fmt.Sprintf("TPOT ±%.1f%%", 100*e.TPOT))
	}
	if e.TTFT > 0 {
		parts = append(parts, fmt.Sprintf("TTFT ±%.1f%%", 100*e.TTFT))
	}
	if e.Runs == 0 {
		return fmt.Sprintf("%s (%s)", strings.Join(parts, ", "), e.On)
	}
	return fmt.Sprintf("%s (%d %s)", strings.Join(parts, ", "), e.Runs, e.On)
}

// Pricing says in one line what priced a prediction: the profile's GPU
// and version, how its numbers were obtained, and its measured errors
// (MeasuredError), e.g. "profile h100-sxm v7, fitted on serving runs:
// TPOT ±3.0%, TTFT ±11.5% (90 fitted rows, leave one TP degree out); ...".
// A GPU without serving measurements says so: TRANSFERRED (its own
// per-operator timings, H100's CPU-side overheads) or BORROWED (H100's
// numbers altogether, DefaultProfile's carry-over).
func (p Profile) Pricing() string {
	prov := p.Provenance
	var kind string
	switch {
	case prov.BorrowedFrom != "":
		kind = "BORROWED from " + prov.BorrowedFrom + " (no data for this GPU; datasheet peaks and bandwidth)"
	case strings.HasPrefix(prov.Source, "transfer rule"):
		kind = "TRANSFERRED from h100-sxm by this GPU's per-operator timings; no serving run of it fitted"
	case prov.FittedOn != "":
		kind = "fitted on " + firstClause(prov.FittedOn)
	default:
		kind = firstClause(prov.Source)
	}
	bands := MeasuredError(p)
	text := make([]string, len(bands))
	for i, e := range bands {
		text[i] = e.String()
	}
	if len(text) == 0 {
		text = []string{"measured error: none recorded"}
	}
	return fmt.Sprintf("profile %s v%s, %s: %s", p.GPU, prov.Version, kind, strings.Join(text, "; "))
}

// firstClause returns s up to its first " (" or ";" (a provenance's
// headline without its details).
func firstClause(s string) string {
	if i := strings.IndexAny(s, "(;"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// MeasuredError returns the measured prediction errors of profile p: the
// catalog's figures for a catalog profile of its GPU and version (see
// measuredErrors), the expected error of borrowed numbers for a GPU
// without a profile (Provenance.BorrowedFrom), and none for any other
// profile (a user's, a calibrated one: calibrate prints its own errors).
func MeasuredError(p Profile) []ErrorBand {
	if from := p.Provenance.BorrowedFrom; from != "" {
		src, err := CatalogProfile(from)
		bands := measuredErrors[from+" v"+src.Provenance.Version]
		if from == ReferenceProfileGPU || err != nil || len(bands) == 0 {
			return []ErrorBand{borrowedBand}
		}
		out := make([]ErrorBand, len(bands))
		for i, b := range bands {
			b.On = "expected as on " + from + ", same chip: " + b.On
			out[i] = b
		}
		return out
	}
	c, ok := catalogProfiles()[p.GPU]
	if !ok || c.err != nil || c.profile != p {
		return nil
	}
	return measuredErrors[p.GPU+" v"+p.Provenance.Version]
}

// borrowedBand is the measured error of H100's numbers on a GPU without
// a profile: the one such run visible, LLMServingSim's Llama-3.1-8B
// replay on an RTX 4090 (calibrate/testdata/llmservingsim), TPOT 14.9%
// and TTFT 20.4% too slow (calibrate's TestBorrowedProfile). Borrowing
// a same-memory-class card's numbers instead (L40S's, GDDR6 Ada; the RTX
// PRO 6000's, GDDR7) makes that run worse, 27% and 31% TPOT, so H100's
// stay the carry-over. Issue 27 reports another RTX 4090 set, not
// visible here, at up to 23% ITL and 38% TTFT.
var borrowedBand = ErrorBand{TPOT: 0.149, TTFT: 0.204, Runs: 1, On: "held-out RTX 4090 run, the only carry-over GPU measured; expect more on others"}

// measuredErrors are the median |predicted/measured − 1| of mean TPOT and
// TTFT of each catalog profile version on the visible real runs, under
// the default knobs (calibrate's TestProfileErrorBands checks the
// public_serving_runs.csv figures, TestFidelityFull the others). Keyed
// "gpu vVERSION": a new version starts with none until measured.
var measuredErrors = map[string][]ErrorBand{
	"h100-sxm v7": {
		{TPOT: 0.030, TTFT: 0.115, Runs: 90, On: "fitted rows, leave one TP degree out"},
		{TPOT: 0.050, TTFT: 0.202, Runs: 237, On: "aiconfigurator rows, 147 held out"},
		{TPOT: 0.314, TTFT: 0.490, Runs: 14, On: "held-out gpustack vLLM 0.11 bursts, TP 1"},
		{TPOT: 0.079, TTFT: 0.314, Runs: 5, On: "held-out vLLM blog 0.19 runs, TP 1"},
	},
	"a100-80gb v4": {{TPOT: 0.119, TTFT: 0.169, Runs: 10, On: "held-out gpustack vLLM 0.11 bursts, TP 1"}},
	"b200 v8":      {{TPOT: 0.087, TTFT: 0.201, Runs: 623, On: "held-out aiconfigurator rows"}},
	"b300 v7":      {{TPOT: 0.104, TTFT: 0.156, Runs: 132, On: "held-out aiconfigurator rows"}},
}
