package specdecode

import (
	"slices"
	"strings"
)

// Row is one measured acceptance of the built-in table: the mean
// acceptance length a proposer reached on a dataset at several k. A row
// gives the mean length exactly; the per-position shape behind it is
// taken i.i.d. (AlphaForLength), which is an assumption, not a
// measurement.
type Row struct {
	Method  Method
	Dataset string
	// Target and Draft are the checkpoints measured.
	Target, Draft string
	// Lengths maps k to the measured mean acceptance length (vLLM's
	// 1 + accepted/drafts).
	Lengths map[int]float64
	// Source says where the numbers come from.
	Source string
}

// LengthAt returns the mean acceptance length measured at k.
func (r Row) LengthAt(k int) (float64, bool) {
	l, ok := r.Lengths[k]
	return l, ok
}

// Ks returns the k measured, ascending.
func (r Row) Ks() []int {
	var ks []int
	for k := range r.Lengths {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// DefaultTable returns the built-in acceptance measurements.
func DefaultTable() []Row {
	return []Row{
		{
			Method: Eagle3, Dataset: "mt-bench", Target: "meta-llama/Llama-3.1-8B-Instruct",
			Draft:   "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
			Lengths: map[int]float64{2: 2.36, 3: 2.79, 4: 3.08, 5: 3.32, 6: 3.46, 7: 3.54},
			Source:  "vllm-project/vllm#20780 (vLLM v1, MT-Bench 80 prompts, greedy, batch 1)",
		},
		{
			Method: Eagle, Dataset: "mt-bench", Target: "meta-llama/Llama-3.1-8B-Instruct",
			Draft:   "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
			Lengths: map[int]float64{2: 2.1, 3: 2.29, 4: 2.39, 5: 2.43, 6: 2.45, 7: 2.47},
			Source:  "vllm-project/vllm#20780 (vLLM v1, MT-Bench 80 prompts, greedy, batch 1)",
		},
		{
			Method: MTP, Dataset: "deepseek-v3-report", Target: "deepseek-ai/DeepSeek-V3",
			Draft:   "the checkpoint's MTP module (num_nextn_predict_layers 1)",
			Lengths: map[int]float64{1: 1.85},
			Source:  "DeepSeek-V3 Technical Report, arXiv:2412.19437, §5.4.3: the second token is accepted 85–90% of the time (the low end taken)",
		},
	}
}

// TableDatasets lists the "method/dataset" rows of DefaultTable.
func TableDatasets() []string {
	var out []string
	for _, r := range DefaultTable() {
		out = append(out, string(r.Method)+"/"+r.Dataset)
	}
	return out
}

// lookup returns the row of dataset for method m; dataset may also be
// written "method/dataset".
func lookup(m Method, dataset string) (Row, error) {
	if meth, ds, ok := strings.Cut(dataset, "/"); ok {
		if Canonical(Method(meth), "") != m {
			return Row{}, invalidf("acceptance_dataset %q is for method %q, not %q", dataset, meth, m)
		}
		dataset = ds
	}
	for _, r := range DefaultTable() {
		if r.Method == m && r.Dataset == dataset {
			return r, nil
		}
	}
	return Row{}, invalidf("acceptance_dataset %q has no row for method %q: the table has %s", dataset, m, strings.Join(TableDatasets(), ", "))
}
