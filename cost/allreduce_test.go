package cost

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlphaBetaTime(t *testing.T) {
	t.Parallel()
	ab := AlphaBeta{Alpha: 8e-6, BusBandwidth: 150e9}
	tests := []struct {
		name  string
		bytes float64
		ranks int
		want  float64
	}{
		{"one rank is free", 1 << 20, 1, 0},
		{"zero ranks is free", 1 << 20, 0, 0},
		{"p=2 moves S", 150e3, 2, 8e-6 + 1e-6},
		{"p=4 moves 1.5 S", 100e3, 4, 8e-6 + 1e-6},
		{"empty payload costs alpha", 0, 8, 8e-6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, ab.Time(tt.bytes, tt.ranks), 1e-15)
		})
	}
}

func TestBusBytes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0.0, busBytes(100, 1))
	assert.Equal(t, 100.0, busBytes(100, 2))
	assert.Equal(t, 175.0, busBytes(100, 8))
}

func TestAlphaBetaTableParams(t *testing.T) {
	t.Parallel()
	tab := AlphaBetaTable{{Ranks: 2, Alpha: 2}, {Ranks: 4, Alpha: 4}, {Ranks: 8, Alpha: 8}}
	tests := []struct {
		name string
		tab  AlphaBetaTable
		p    int
		want float64
		ok   bool
	}{
		{"exact", tab, 4, 4, true},
		{"nearest below", tab, 5, 4, true},
		{"tie goes to the larger", tab, 6, 8, true},
		{"beyond the largest", tab, 16, 8, true},
		{"any-rank entry beats nearest", append(AlphaBetaTable{{Ranks: 0, Alpha: 1}}, tab...), 5, 1, true},
		{"exact beats any-rank entry", append(AlphaBetaTable{{Ranks: 0, Alpha: 1}}, tab...), 8, 8, true},
		{"empty", nil, 2, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.tab.Params(tt.p)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got.Alpha)
		})
	}
}

func TestAlphaBetaTableTime(t *testing.T) {
	t.Parallel()
	assert.True(t, math.IsInf(AlphaBetaTable{}.Time(1, 2), 1))
	assert.Equal(t, 0.0, AlphaBetaTable{}.Time(1, 1))
	tab := AlphaBetaTable{{Ranks: 4, Alpha: 1e-5, BusBandwidth: 1e11}}
	assert.InDelta(t, 1e-5+1.5e6/1e11, tab.Time(1e6, 4), 1e-18)
}

func TestAlphaBetaValidate(t *testing.T) {
	t.Parallel()
	err := AlphaBeta{Ranks: -1, Alpha: math.NaN(), BusBandwidth: 0}.validate()
	require.ErrorIs(t, err, ErrInvalidSpec)
	for _, msg := range []string{"ranks -1", "alpha_s NaN", "bus_bandwidth_bytes_per_s 0"} {
		assert.Contains(t, err.Error(), msg)
	}
	require.NoError(t, AlphaBeta{Alpha: 0, BusBandwidth: 1}.validate())
}

// TestEmbeddedAllReduceFitsMatchData refits the α–β parameters embedded in
// the catalog from the NCCL profiles they were derived from.
func TestEmbeddedAllReduceFitsMatchData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want AlphaBetaTable
	}{
		{"h100_dgx_all_reduce.csv", h100DGXAllReduce},
		{"a100_dgx_all_reduce.csv", a100DGXAllReduce},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tab, err := loadNCCLTable(shareddata.Path(t, tt.file), NCCLOptions{})
			require.NoError(t, err)
			got, err := tab.fitAll(0, 0)
			require.NoError(t, err)
			require.Len(t, got, len(tt.want))
			for i := range got {
				assert.Equal(t, tt.want[i].Ranks, got[i].Ranks)
				assert.InEpsilon(t, tt.want[i].Alpha, got[i].Alpha, 0.002)
				assert.InEpsilon(t, tt.want[i].BusBandwidth, got[i].BusBandwidth, 0.002)
			}
		})
	}
}

func TestNCCLTableFromData(t *testing.T) {
	t.Parallel()
	h100, err := loadNCCLTable(shareddata.Path(t, "h100_dgx_all_reduce.csv"), NCCLOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4, 8}, h100.ranks())

	a100, err := loadNCCLTable(shareddata.Path(t, "a100_dgx_all_reduce.csv"), NCCLOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4, 8}, a100.ranks(), "multi-node rows are left out by default")

	a100x8, err := loadNCCLTable(shareddata.Path(t, "a100_dgx_all_reduce.csv"), NCCLOptions{DevicesPerNode: 8, Statistic: "mean"})
	require.NoError(t, err)
	assert.Equal(t, []int{8, 16}, a100x8.ranks())

	sizes, times := h100.points(8)
	require.Len(t, sizes, 993)
	assert.Equal(t, 2048.0, sizes[0])
	assert.Equal(t, 64.0*(1<<20), sizes[len(sizes)-1])
	assert.InDelta(t, 0.322e-3, times[len(times)-1], 1e-9, "median of the 64 MiB row, ms → s")

	// 64 MiB at 8 ranks: bus bandwidth ≈ 340 GB/s on the smoothed curve,
	// NVLink-class.
	busbw := busBytes(64<<20, 8) / h100.Time(64<<20, 8)
	assert.InDelta(t, 340e9, busbw, 20e9)
}

func TestNCCLTableInterpolation(t *testing.T) {
	tab, err := loadNCCLTable(shareddata.Path(t, "h100_dgx_all_reduce.csv"), NCCLOptions{})
	require.NoError(t, err)
	sizes, _ := tab.points(4)

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

func TestReadNCCLTableSmoothsAndAverages(t *testing.T) {
	t.Parallel()
	tab, err := readNCCLTable(strings.NewReader(tinyNCCL), NCCLOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{2}, tab.ranks(), "the 4-rank row spans two nodes; all_gather is skipped")
	sizes, raw := tab.points(2)
	assert.Equal(t, []float64{1000, 2000, 3000}, sizes)
	assert.InDeltaSlice(t, []float64{20e-6, 10e-6, 40e-6}, raw, 1e-15, "duplicates averaged")
	assert.InDelta(t, 15e-6, tab.Time(1000, 2), 1e-15, "isotonic: the dip at 2000 is pooled")
	assert.InDelta(t, 15e-6, tab.Time(2000, 2), 1e-15)
	assert.InDelta(t, 27.5e-6, tab.Time(2500, 2), 1e-15)
}

func TestReadNCCLTableErrors(t *testing.T) {
	t.Parallel()
	header := "size,num_workers,time_stats.all_reduce.median\n"
	tests := []struct {
		name, csv string
		opt       NCCLOptions
		msg       string
	}{
		{"bad statistic", header, NCCLOptions{Statistic: "p99"}, `statistic "p99"`},
		{"negative devices", header, NCCLOptions{DevicesPerNode: -1}, "devices_per_node -1"},
		{"missing column", "size,num_workers\n", NCCLOptions{}, `"time_stats.all_reduce.median"`},
		{"no rows", header, NCCLOptions{}, "no all_reduce rows"},
		{"bad size", header + "x,2,0.1\n", NCCLOptions{}, `size "x"`},
		{"negative time", header + "10,2,-1\n", NCCLOptions{}, `median "-1"`},
		{"bad ranks", header + "10,0,0.1\n", NCCLOptions{}, `num_workers "0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readNCCLTable(strings.NewReader(tt.csv), tt.opt)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestFitAlphaBetaRecoversSyntheticParameters(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("size,num_workers,time_stats.all_reduce.median\n")
	want := AlphaBeta{Ranks: 4, Alpha: 12e-6, BusBandwidth: 200e9}
	for s := 4096.0; s <= 1<<26; s *= 2 {
		b.WriteString(strings.Join([]string{ftoa(s), "4", ftoa(want.Time(s, 4) * 1e3)}, ","))
		b.WriteString("\n")
	}
	tab, err := readNCCLTable(strings.NewReader(b.String()), NCCLOptions{})
	require.NoError(t, err)
	got, err := tab.fitAlphaBeta(4, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 4, got.Ranks)
	assert.InEpsilon(t, want.Alpha, got.Alpha, 1e-9)
	assert.InEpsilon(t, want.BusBandwidth, got.BusBandwidth, 1e-9)

	_, err = tab.fitAlphaBeta(8, 0, 0)
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = tab.fitAlphaBeta(1, 0, 0)
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = tab.fitAlphaBeta(4, 1<<30, 0)
	require.ErrorIs(t, err, ErrFit)
}

func TestLoadNCCLTableMissingFile(t *testing.T) {
	t.Parallel()
	_, err := loadNCCLTable("/nonexistent/all_reduce.csv", NCCLOptions{})
	require.Error(t, err)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
