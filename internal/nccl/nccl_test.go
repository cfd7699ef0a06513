package nccl

import (
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// load reads the shared data file name with Read.
func load(t *testing.T, name, statistic string, devicesPerNode int) *Table {
	t.Helper()
	f, err := os.Open(shareddata.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	tab, err := Read(f, statistic, devicesPerNode)
	require.NoError(t, err)
	return tab
}

func TestTableFromData(t *testing.T) {
	t.Parallel()
	h100 := load(t, "h100_dgx_all_reduce.csv", "", 0)
	assert.Equal(t, []int{2, 4, 8}, h100.Ranks())

	a100 := load(t, "a100_dgx_all_reduce.csv", "", 0)
	assert.Equal(t, []int{2, 4, 8}, a100.Ranks(), "multi-node rows are left out by default")

	a100x8 := load(t, "a100_dgx_all_reduce.csv", "mean", 8)
	assert.Equal(t, []int{8, 16}, a100x8.Ranks())

	sizes, times := h100.Points(8)
	require.Len(t, sizes, 993)
	assert.Equal(t, 2048.0, sizes[0])
	assert.Equal(t, 64.0*(1<<20), sizes[len(sizes)-1])
	assert.InDelta(t, 0.322e-3, times[len(times)-1], 1e-9, "median of the 64 MiB row, ms → s")

	// 64 MiB at 8 ranks: bus bandwidth ≈ 340 GB/s on the smoothed curve,
	// NVLink-class.
	busbw := 2 * 7.0 / 8 * (64 << 20) / h100.Time(64<<20, 8) // 2(p−1)/p·S over τ
	assert.InDelta(t, 340e9, busbw, 20e9)
}

func TestTableInterpolation(t *testing.T) {
	tab := load(t, "h100_dgx_all_reduce.csv", "", 0)
	sizes, _ := tab.Points(4)

	t.Run("non-decreasing in size", func(t *testing.T) {
		prev := 0.0
		for s := 1024.0; s < 200<<20; s *= 1.1 {
			got := tab.Time(s, 4)
			require.GreaterOrEqual(t, got, prev*(1-1e-12), "size %v", s)
			prev = got
		}
	})
	t.Run("latency floor below the smallest size", func(t *testing.T) {
		assert.Equal(t, tab.Time(sizes[0], 4), tab.Time(1, 4))
	})
	t.Run("bandwidth-bound beyond the largest size", func(t *testing.T) {
		last := sizes[len(sizes)-1]
		assert.InEpsilon(t, 2*tab.Time(last, 4), tab.Time(2*last, 4), 1e-12)
	})
	t.Run("linear between rank counts", func(t *testing.T) {
		s := 1 << 20
		assert.InDelta(t, (tab.Time(float64(s), 4)+tab.Time(float64(s), 8))/2, tab.Time(float64(s), 6), 1e-15)
	})
	t.Run("nearest outside rank counts", func(t *testing.T) {
		assert.Equal(t, tab.Time(1<<20, 8), tab.Time(1<<20, 16))
		assert.Equal(t, 0.0, tab.Time(1<<20, 1))
	})
	t.Run("no allocation", func(t *testing.T) {
		var sink float64
		allocs := testing.AllocsPerRun(100, func() { sink += tab.Time(300e3, 6) })
		assert.Zero(t, allocs)
		assert.Positive(t, sink)
	})
}

const tinyNCCL = `,time_stats.all_reduce.min,time_stats.all_reduce.max,time_stats.all_reduce.mean,time_stats.all_reduce.median,time_stats.all_reduce.std,rank,num_workers,size,collective,devices_per_node,max_devices_per_node
0,0.01,0.03,0.02,0.020,0,0,2,1000,all_reduce,2,8
1,0.01,0.03,0.02,0.010,0,0,2,2000,all_reduce,2,8
2,0.01,0.03,0.02,0.030,0,0,2,3000,all_reduce,2,8
3,0.01,0.03,0.02,0.050,0,0,2,3000,all_reduce,2,8
4,0.01,0.03,0.02,0.500,0,0,4,1000,all_reduce,2,8
5,0.01,0.03,0.02,0.500,0,0,2,1000,all_gather,2,8
`

func TestReadSmoothsAndAverages(t *testing.T) {
	t.Parallel()
	tab, err := Read(strings.NewReader(tinyNCCL), "", 0)
	require.NoError(t, err)
	assert.Equal(t, []int{2}, tab.Ranks(), "the 4-rank row spans two nodes; all_gather is skipped")
	sizes, raw := tab.Points(2)
	assert.Equal(t, []float64{1000, 2000, 3000}, sizes)
	assert.InDeltaSlice(t, []float64{20e-6, 10e-6, 40e-6}, raw, 1e-15, "duplicates averaged")
	assert.InDelta(t, 15e-6, tab.Time(1000, 2), 1e-15, "isotonic: the dip at 2000 is pooled")
	assert.InDelta(t, 15e-6, tab.Time(2000, 2), 1e-15)
	assert.InDelta(t, 27.5e-6, tab.Time(2500, 2), 1e-15)
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	header := "size,num_workers,time_stats.all_reduce.median\n"
	tests := []struct {
		name, csv string
		statistic string
		devices   int
		msg       string
	}{
		{"bad statistic", header, "p99", 0, `nccl statistic "p99" must be median, mean, min or max`},
		{"negative devices", header, "", -1, "nccl devices_per_node -1 must be >= 0"},
		{"missing column", "size,num_workers\n", "", 0, `nccl table has no "time_stats.all_reduce.median" column`},
		{"no rows", header, "", 0, "nccl table has no all_reduce rows for the selected layout"},
		{"bad size", header + "x,2,0.1\n", "", 0, `nccl table line 2: size "x" must be a number > 0`},
		{"negative time", header + "10,2,-1\n", "", 0, `nccl table line 2: time_stats.all_reduce.median "-1" must be a number > 0`},
		{"bad ranks", header + "10,0,0.1\n", "", 0, `nccl table line 2: num_workers "0" must be an integer >= 1`},
		{"empty file", "", "", 0, "nccl table header: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.csv), tt.statistic, tt.devices)
			require.EqualError(t, err, tt.msg)
		})
	}
}
