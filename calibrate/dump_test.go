package calibrate

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDumpCatalogPredictions writes, to the file $SERVESIM_DUMP names, one
// tab-separated line per run and metric of the regime study's rows
// (regimeRows): the run's setup, the measured and the predicted mean
// under the catalog profiles (cost.DefaultProfile of each GPU), and
// predicted/measured − 1. It is the quick look (about 10 s) behind a
// change to the step model: group its lines by model, GPU, TP, load or
// vLLM version to see where a term is off before running the studies.
// It fails if a run's prediction is not a positive finite time.
func TestDumpCatalogPredictions(t *testing.T) {
	path := os.Getenv("SERVESIM_DUMP")
	if path == "" {
		t.Skip("set SERVESIM_DUMP to a file to write the catalog profiles' prediction of every visible run")
	}
	s := Simulator{ModelDir: modelDir(t)}
	kept, _, _, _ := regimeRows(t, s)
	rs := defaultProfileResiduals(t, s, kept, []Metric{TPOT, TTFT})
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id\tsource\tmodel\tgpu\ttp\tprecision\tkv_cache\tvllm\tclients\trate\tinput\toutput\tmetric\tmeasured_s\tpredicted_s\terror")
	for _, r := range rs {
		p := r.Point
		if !(r.Predicted > 0) || math.IsInf(r.Predicted, 0) {
			t.Errorf("%s %v: predicted %v, want a positive finite time", p.ID, r.Metric, r.Predicted)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d\t%g\t%d\t%d\t%v\t%g\t%g\t%.4f\n", p.ID, servingSource(p), p.Model, p.GPU, p.TP,
			p.Precision, p.KVCache, p.BackendVersion, p.Concurrency, p.Rate, p.Input, p.Output, r.Metric, r.Measured, r.Predicted, r.Error())
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	t.Logf("%d residuals of %d runs written to %s", len(rs), len(kept), path)
}
