package topology

import (
	"os"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/nccl"
)

// NCCLOptions chooses what LoadNCCLTable keeps from a measurement file.
type NCCLOptions struct {
	// Statistic names the time column to read: "median" (the default when
	// empty), "mean", "min" or "max" of time_stats.all_reduce.*.
	Statistic string
	// DevicesPerNode keeps only rows measured with this many GPUs per node.
	// 0 keeps single-node rows only (devices_per_node == num_workers), the
	// layout of tensor parallelism inside one NVLink domain.
	DevicesPerNode int
}

// LoadNCCLTable reads a measured NCCL all-reduce profile from a CSV file,
// such as microsoft/vidur's data/profiling/network/*/all_reduce.csv: the
// columns size (bytes), num_workers, devices_per_node, collective and
// time_stats.all_reduce.{min,max,mean,median} (milliseconds); rows whose
// collective is not all_reduce, or whose layout opt does not select, are
// skipped. It returns the all-reduce the file measured, to set as
// cost.Deployment.Comm: its Time interpolates the measurements, linearly
// in size on a curve made non-decreasing in size (times at one size
// averaged, then isotonic least squares), the smallest size's time below
// the measured sizes, in proportion to size above them, and linearly in
// ranks between measured rank counts (the nearest outside them). It
// allocates nothing per call and is safe for concurrent use.
//
// A file that does not open returns the os error; a file that does not
// parse, or keeps no row, an error that names the file and matches
// cost.ErrInvalidSpec.
func LoadNCCLTable(path string, opt NCCLOptions) (cost.AllReduce, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := nccl.Read(f, opt.Statistic, opt.DevicesPerNode)
	if err != nil {
		return nil, wrapf(cost.ErrInvalidSpec, err, "%s", path)
	}
	return t, nil
}
