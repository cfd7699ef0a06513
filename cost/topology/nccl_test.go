package topology

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/nccl"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadNCCLTable reads the DGX H100 profile as an all-reduce: it is
// the table internal/nccl reads, with opt's statistic and layout, and its
// 64 MiB all-reduce at 8 ranks runs at an NVLink-class bus bandwidth.
func TestLoadNCCLTable(t *testing.T) {
	t.Parallel()
	path := shareddata.Path(t, "a100_dgx_all_reduce.csv")
	opt := NCCLOptions{Statistic: "mean", DevicesPerNode: 8}
	comm, err := LoadNCCLTable(path, opt)
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	want, err := nccl.Read(f, opt.Statistic, opt.DevicesPerNode)
	require.NoError(t, err)
	assert.Equal(t, want, comm)

	h100, err := LoadNCCLTable(shareddata.Path(t, "h100_dgx_all_reduce.csv"), NCCLOptions{})
	require.NoError(t, err)
	assert.InDelta(t, 340e9, ringBytes(64<<20, 8)/h100.Time(64<<20, 8), 20e9, "bus bandwidth, bytes/s")
	assert.Zero(t, h100.Time(64<<20, 1))
}

// TestLoadNCCLTableErrors: a missing file returns the os error; a file
// that does not parse names itself and matches cost.ErrInvalidSpec, and a
// CSV syntax error stays reachable under errors.As.
func TestLoadNCCLTableErrors(t *testing.T) {
	t.Parallel()
	_, err := LoadNCCLTable("/nonexistent/all_reduce.csv", NCCLOptions{})
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, cost.ErrInvalidSpec)

	dir := t.TempDir()
	tests := []struct {
		name, csv string
		opt       NCCLOptions
		msg       string
	}{
		{"bad statistic", "size,num_workers,time_stats.all_reduce.p99\n", NCCLOptions{Statistic: "p99"},
			`nccl statistic "p99" must be median, mean, min or max`},
		{"bad size", "size,num_workers,time_stats.all_reduce.median\nx,2,0.1\n", NCCLOptions{},
			`nccl table line 2: size "x" must be a number > 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".csv")
			require.NoError(t, os.WriteFile(path, []byte(tt.csv), 0o644))
			_, err := LoadNCCLTable(path, tt.opt)
			require.ErrorIs(t, err, cost.ErrInvalidSpec)
			assert.EqualError(t, err, "cost: "+path+": "+tt.msg)
		})
	}

	path := filepath.Join(dir, "quote.csv")
	require.NoError(t, os.WriteFile(path, []byte("size,num_workers,time_stats.all_reduce.median\n\"1,2,3\n"), 0o644))
	_, err = LoadNCCLTable(path, NCCLOptions{})
	require.ErrorIs(t, err, cost.ErrInvalidSpec)
	var perr *csv.ParseError
	assert.True(t, errors.As(err, &perr), "%v", err)
}
