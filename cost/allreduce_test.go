package cost

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/nccl"
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
	requireProblem(t, err, "all_reduce.ranks", -1, "must be >= 0")
	requireProblem(t, err, "all_reduce.alpha_s", math.NaN(), "must be a finite number >= 0")
	requireProblem(t, err, "all_reduce.bus_bandwidth_bytes_per_s", 0, "must be a finite number > 0")
	assert.Equal(t, "all_reduce.ranks", fielderr.Of(err).Field, "errors.As finds the first field")
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
			got, err := fitAll(loadNCCL(t, shareddata.Path(t, tt.file)), 0, 0)
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

func TestFitAlphaBetaRecoversSyntheticParameters(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("size,num_workers,time_stats.all_reduce.median\n")
	want := AlphaBeta{Ranks: 4, Alpha: 12e-6, BusBandwidth: 200e9}
	for s := 4096.0; s <= 1<<26; s *= 2 {
		b.WriteString(strings.Join([]string{ftoa(s), "4", ftoa(want.Time(s, 4) * 1e3)}, ","))
		b.WriteString("\n")
	}
	tab, err := nccl.Read(strings.NewReader(b.String()), "", 0)
	require.NoError(t, err)
	got, err := fitAlphaBeta(tab, 4, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 4, got.Ranks)
	assert.InEpsilon(t, want.Alpha, got.Alpha, 1e-9)
	assert.InEpsilon(t, want.BusBandwidth, got.BusBandwidth, 1e-9)

	_, err = fitAlphaBeta(tab, 8, 0, 0)
	require.ErrorContains(t, err, "no measurements at 8 ranks")
	_, err = fitAlphaBeta(tab, 1, 0, 0)
	require.ErrorContains(t, err, "ranks 1 must be >= 2")
	_, err = fitAlphaBeta(tab, 4, 1<<30, 0)
	require.ErrorContains(t, err, "0 sizes in [1.073741824e+09, 0] bytes, need >= 2")
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
