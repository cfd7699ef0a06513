package topology

import (
	"encoding/csv"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"

	"github.com/servesim/servesim/internal/shareddata"
)

// a3megaTable is the out-of-place column (size bytes, time µs) of an
// nccl-tests all_reduce_perf run on two Google Cloud A3 Mega nodes (8 H100
// each, 16 ranks): lessizzmore/create-a3mega-ztan-fork,
// ztan-NCCL-test-result, 64 KiB to 8 GiB.
var a3megaTable = [][2]float64{
	{65536, 159.4}, {131072, 159.3}, {262144, 167.1}, {524288, 174.2}, {1048576, 203.2},
	{2097152, 254.0}, {4194304, 364.6}, {8388608, 571.9}, {16777216, 977.6}, {33554432, 1059.9},
	{67108864, 1261.6}, {134217728, 1652.2}, {268435456, 2360.9}, {536870912, 3817.5},
	{1073741824, 6759.0}, {2147483648, 12646}, {4294967296, 24361}, {8589934592, 47535},
}

// ociA100Table is the out-of-place column (size bytes, time µs) of an
// nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g 1 run (NCCL 2.19.3) on two
// Oracle Cloud BM.GPU4.8 nodes (8 A100-SXM4-40GB each, 16 ranks, RoCE v2
// cluster network): oracle-quickstart/oci-hpc-oke@1402938d README.md,
// "Optional - Run the NCCL test", 8 B to 8 GiB.
var ociA100Table = [][2]float64{
	{8, 36.47}, {16, 38.86}, {32, 38.53}, {64, 39.25}, {128, 38.85}, {256, 40.68}, {512, 39.27},
	{1024, 41.97}, {2048, 43.36}, {4096, 44.54}, {8192, 48.16}, {16384, 49.40}, {32768, 49.66},
	{65536, 51.69}, {131072, 54.86}, {262144, 67.95}, {524288, 73.94}, {1048576, 85.58},
	{2097152, 99.19}, {4194304, 127.0}, {8388608, 174.3}, {16777216, 282.7}, {33554432, 452.3},
	{67108864, 821.7}, {134217728, 1542.0}, {268435456, 3042.7}, {536870912, 6436.0},
	{1073741824, 9187.8}, {2147483648, 18289}, {4294967296, 34176}, {8589934592, 67689},
}

// ndrH100Table is the out-of-place column (size bytes, time µs) of an
// nccl-tests all_reduce_perf_mpi -b 8 -e 16g -f 2 -g 1 run (NCCL 2.26.2,
// NVLink SHARP on) on two Dell XE9680 HGX nodes (8 H100 SXM each, one CX-7
// 400 Gb/s NDR InfiniBand NIC per GPU, 16 ranks), posted in
// https://github.com/NVIDIA/nccl-tests/issues/309 (its first message),
// 8 B to 16 GiB.
var ndrH100Table = [][2]float64{
	{8, 68.52}, {16, 24.96}, {32, 24.93}, {64, 25.29}, {128, 25.68}, {256, 94.40}, {512, 32.35},
	{1024, 29.75}, {2048, 28.19}, {4096, 30.24}, {8192, 32.12}, {16384, 32.74}, {32768, 34.10},
	{65536, 33.84}, {131072, 38.77}, {262144, 48.67}, {524288, 77.69}, {1048576, 71.93},
	{2097152, 76.24}, {4194304, 94.38}, {8388608, 132.6}, {16777216, 185.4}, {33554432, 267.9},
	{67108864, 466.1}, {134217728, 748.3}, {268435456, 1282.8}, {536870912, 2357.6},
	{1073741824, 4484.9}, {2147483648, 8729.8}, {4294967296, 17262}, {8589934592, 34381},
	{17179869184, 68652},
}

// topologyPoints returns the measured 16-rank points of a catalog topology.
func topologyPoints(t *testing.T, name string) []Point {
	t.Helper()
	switch name {
	case "h100-a3mega-tcpxo":
		return tablePoints(a3megaTable)
	case "a100-oci-roce":
		return tablePoints(ociA100Table)
	case "h100-ndr-xe9680":
		return tablePoints(ndrH100Table)
	case "a100-dgx-vidur":
		return vidurPoints(t, shareddata.Path(t, "a100_dgx_all_reduce.csv"))
	}
	t.Fatalf("no points for %s", name)
	return nil
}

// vidurPoints reads Vidur's all-reduce profile at path and returns its
// 16-rank, 8-devices-a-node rows as points: per message size, the mean of
// the rows' median times (milliseconds), ascending in size.
func vidurPoints(t *testing.T, path string) []Point {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	sum, n := map[float64]float64{}, map[float64]int{}
	for _, r := range rows[1:] {
		if r[col["collective"]] != "all_reduce" || r[col["num_workers"]] != "16" || r[col["devices_per_node"]] != "8" {
			continue
		}
		size, err := strconv.ParseFloat(r[col["size"]], 64)
		require.NoError(t, err)
		ms, err := strconv.ParseFloat(r[col["time_stats.all_reduce.median"]], 64)
		require.NoError(t, err)
		sum[size] += ms * 1e-3
		n[size]++
	}
	require.NotEmpty(t, sum)
	var out []Point
	for _, size := range slices.Sorted(maps.Keys(sum)) {
		out = append(out, Point{Ranks: 16, GPUsPerNode: 8, Bytes: size, Seconds: sum[size] / float64(n[size])})
	}
	return out
}

// tablePoints returns a 16-rank table's (bytes, µs) rows as points.
func tablePoints(tab [][2]float64) []Point {
	out := make([]Point, len(tab))
	for i, r := range tab {
		out[i] = Point{Ranks: 16, GPUsPerNode: 8, Bytes: r[0], Seconds: r[1] * 1e-6}
	}
	return out
}

// TestTopologyCatalog: each topology's inter-node α–β is the fit of its
// measured table (refitted here from the published points, to 0.5%), and
// the hierarchical all-reduce with it reproduces every measured time in
// the fitted range within the entry's stated MaxError; beyond 64 MiB
// (training sizes) it is not claimed.
func TestTopologyCatalog(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			top, err := ByName(name)
			require.NoError(t, err)
			g, err := cost.GPU(top.GPU)
			require.NoError(t, err)
			pts := topologyPoints(t, name)
			fit, err := Fit(pts, g.AllReduce, top.FitBytes[0], top.FitBytes[1])
			require.NoError(t, err)
			t.Logf("%s: alpha %.4g s, bus bandwidth %.4g B/s", name, fit.Alpha, fit.BusBandwidth)
			assert.InEpsilon(t, top.Inter.Alpha, fit.Alpha, 5e-3)
			assert.InEpsilon(t, top.Inter.BusBandwidth, fit.BusBandwidth, 5e-3)
			m, err := top.MultiNode(g)
			require.NoError(t, err)
			worst, n := 0.0, 0
			for _, p := range pts {
				if p.Bytes < top.FitBytes[0] || p.Bytes > top.FitBytes[1] {
					continue
				}
				n++
				rel := math.Abs(m.Time(p.Bytes, p.Ranks)-p.Seconds) / p.Seconds
				worst = max(worst, rel)
			}
			t.Logf("%s: %d points, worst relative error %.3f", name, n, worst)
			assert.GreaterOrEqual(t, n, 8)
			assert.LessOrEqual(t, worst, top.MaxError)
			// The stated bound is tight: within 10 points of the worst.
			assert.Greater(t, worst, top.MaxError-0.10)
		})
	}
}

// TestTopologyMismatch: a topology measured on one GPU is refused for
// another; an unknown name lists the catalog.
func TestTopologyMismatch(t *testing.T) {
	top, err := ByName("H100-A3MEGA-TCPXO")
	require.NoError(t, err)
	a100, err := cost.GPU("a100-80gb")
	require.NoError(t, err)
	_, err = top.MultiNode(a100)
	require.ErrorIs(t, err, cost.ErrInvalidSpec)
	assert.Contains(t, err.Error(), "measured on h100-sxm, not a100-80gb")
	_, err = ByName("ib-ndr")
	require.ErrorIs(t, err, cost.ErrUnknownName)
	assert.Contains(t, err.Error(), "a100-dgx-vidur, a100-oci-roce, h100-a3mega-tcpxo, h100-ndr-xe9680")
}

// TestFitInterNodeRecovers: points generated by a known MultiNode are
// fitted back to its inter-node α–β (an independent check of the fit's
// algebra: the generator is MultiNode.Time, the fit a regression).
func TestFitInterNodeRecovers(t *testing.T) {
	h100, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	truth := cost.AlphaBeta{Alpha: 25e-6, BusBandwidth: 42e9}
	m := MultiNode{GPUsPerNode: 8, Intra: h100.AllReduce, Inter: truth}
	var pts []Point
	for _, ranks := range []int{16, 32} {
		for s := float64(1 << 14); s <= 1<<28; s *= 4 {
			pts = append(pts, Point{Ranks: ranks, GPUsPerNode: 8, Bytes: s, Seconds: m.Time(s, ranks)})
		}
	}
	fit, err := Fit(pts, h100.AllReduce, 0, 0)
	require.NoError(t, err)
	assert.InEpsilon(t, truth.Alpha, fit.Alpha, 1e-6)
	assert.InEpsilon(t, truth.BusBandwidth, fit.BusBandwidth, 1e-6)

	for _, tc := range []struct {
		pts  []Point
		kind error
		want string
	}{
		{[]Point{{Ranks: 8, GPUsPerNode: 8, Bytes: 1, Seconds: 1}}, cost.ErrInvalidSpec, "is not several whole nodes"},
		{[]Point{{Ranks: 16, GPUsPerNode: 8, Bytes: 1, Seconds: 1}, {Ranks: 8, GPUsPerNode: 4, Bytes: 1, Seconds: 1}}, cost.ErrInvalidSpec, "fit one layout at a time"},
		{[]Point{{Ranks: 16, GPUsPerNode: 8, Bytes: math.NaN(), Seconds: 1}}, cost.ErrInvalidSpec, "bytes NaN"},
		{[]Point{{Ranks: 16, GPUsPerNode: 8, Bytes: 1, Seconds: 1}}, ErrFit, "need >= 2"},
	} {
		_, err := Fit(tc.pts, h100.AllReduce, 0, 0)
		require.ErrorIs(t, err, tc.kind)
		assert.Contains(t, err.Error(), tc.want)
	}
}
