package cost

import (
	"errors"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/servesim/servesim/internal/nccl"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// The catalog's α–β tables (GPUSpec.AllReduce, VLLMAllReduce) were fitted
// to NCCL and vLLM all-reduce measurements; the tests refit them from the
// files with fitAlphaBeta and fitAll. cost/topology.LoadNCCLTable reads the
// same files for users, through the same reader (internal/nccl).

// loadNCCL reads the NCCL all-reduce profile at path, single-node rows,
// median times.
func loadNCCL(t *testing.T, path string) *nccl.Table {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tab, err := nccl.Read(f, "", 0)
	require.NoError(t, err, path)
	return tab
}

// fitAlphaBeta fits τ(S) = α + 2(p−1)S/(p·B) to tab's measurements at
// ranks ranks with message sizes in [minBytes, maxBytes] (maxBytes ≤ 0
// means no upper limit), by weighted least squares on the unsmoothed times
// with weights 1/τ², i.e. minimising squared relative error so that the
// latency of small messages counts as much as the bandwidth of large ones.
// A negative α is clamped to 0 and B refitted through the origin.
func fitAlphaBeta(tab *nccl.Table, ranks int, minBytes, maxBytes float64) (AlphaBeta, error) {
	if ranks < 2 {
		return AlphaBeta{}, fmt.Errorf("all-reduce fit ranks %d must be >= 2", ranks)
	}
	sizes, times := tab.Points(ranks)
	if sizes == nil {
		return AlphaBeta{}, fmt.Errorf("all-reduce fit: no measurements at %d ranks (have %v)", ranks, tab.Ranks())
	}
	var x, y, w []float64
	for i, s := range sizes {
		if s < minBytes || (maxBytes > 0 && s > maxBytes) {
			continue
		}
		x = append(x, busBytes(s, ranks))
		y = append(y, times[i])
		w = append(w, 1/(times[i]*times[i]))
	}
	if len(x) < 2 {
		return AlphaBeta{}, fmt.Errorf("all-reduce fit at %d ranks: %d sizes in [%v, %v] bytes, need >= 2", ranks, len(x), minBytes, maxBytes)
	}
	alpha, invB := stat.LinearRegression(x, y, w, false)
	if alpha < 0 {
		alpha = 0
		_, invB = stat.LinearRegression(x, y, w, true)
	}
	if !(invB > 0) || math.IsInf(invB, 0) {
		return AlphaBeta{}, fmt.Errorf("all-reduce fit at %d ranks: slope %v s/byte is not positive", ranks, invB)
	}
	return AlphaBeta{Ranks: ranks, Alpha: alpha, BusBandwidth: 1 / invB}, nil
}

// fitAll fits fitAlphaBeta for every rank count ≥ 2 in tab.
func fitAll(tab *nccl.Table, minBytes, maxBytes float64) (AlphaBetaTable, error) {
	var out AlphaBetaTable
	var errs []error
	for _, ranks := range tab.Ranks() {
		if ranks < 2 {
			continue
		}
		ab, err := fitAlphaBeta(tab, ranks, minBytes, maxBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, ab)
	}
	return out, errors.Join(errs...)
}
