// Package nccl reads measured NCCL all-reduce profiles, such as
// microsoft/vidur's data/profiling/network/*/all_reduce.csv, into a table
// whose Time interpolates the measurements. cost/topology.LoadNCCLTable is
// its public face (errors that read as cost's and match cost's sentinels);
// cost's tests read the same files through it to refit the catalog's α–β
// tables. It imports nothing of the project, so both can use it.
package nccl

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Table is a measured all-reduce time curve per rank count (message size
// in bytes, times in seconds). Its Time implements cost.AllReduce, so a
// cost.Deployment can use measurements in place of the α–β model.
//
// Within each rank count, times at the same size are averaged and then
// made non-decreasing in size by isotonic least squares
// (pool-adjacent-violators): small messages are noisy in these profiles,
// and an all-reduce never gets faster as its message grows. A table is
// immutable once read and safe for concurrent use.
type Table struct {
	curves []curve // sorted by ranks
}

type curve struct {
	ranks  int
	sizes  []float64 // bytes, strictly increasing
	raw    []float64 // seconds, averaged per size
	smooth []float64 // seconds, isotonic fit of raw
}

// Read reads an NCCL all-reduce profile in CSV with the columns size
// (bytes), num_workers, devices_per_node, collective and
// time_stats.all_reduce.{min,max,mean,median} (milliseconds). statistic
// names the time column ("median" when empty, "mean", "min" or "max");
// devicesPerNode keeps only rows measured with that many GPUs a node, 0
// the single-node rows (devices_per_node == num_workers). Rows whose
// collective is not all_reduce, or whose layout is not selected, are
// skipped. It fails when no row remains. Errors read as one sentence
// naming the field and its value, without a package prefix.
func Read(r io.Reader, statistic string, devicesPerNode int) (*Table, error) {
	if statistic == "" {
		statistic = "median"
	}
	switch statistic {
	case "median", "mean", "min", "max":
	default:
		return nil, fmt.Errorf("nccl statistic %q must be median, mean, min or max", statistic)
	}
	if devicesPerNode < 0 {
		return nil, fmt.Errorf("nccl devices_per_node %d must be >= 0", devicesPerNode)
	}
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("nccl table header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	timeCol := "time_stats.all_reduce." + statistic
	for _, name := range []string{"size", "num_workers", timeCol} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("nccl table has no %q column", name)
		}
	}
	dpnCol, hasDPN := col["devices_per_node"]
	collCol, hasColl := col["collective"]

	type point struct{ size, t float64 }
	byRanks := map[int][]point{}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("nccl table line %d: %w", line, err)
		}
		if hasColl && rec[collCol] != "all_reduce" {
			continue
		}
		ranks, err := strconv.Atoi(rec[col["num_workers"]])
		if err != nil || ranks < 1 {
			return nil, fmt.Errorf("nccl table line %d: num_workers %q must be an integer >= 1", line, rec[col["num_workers"]])
		}
		if hasDPN {
			dpn, err := strconv.Atoi(rec[dpnCol])
			if err != nil {
				return nil, fmt.Errorf("nccl table line %d: devices_per_node %q is not an integer", line, rec[dpnCol])
			}
			want := devicesPerNode
			if want == 0 {
				want = ranks
			}
			if dpn != want {
				continue
			}
		}
		size, err := strconv.ParseFloat(rec[col["size"]], 64)
		if err != nil || !positiveFinite(size) {
			return nil, fmt.Errorf("nccl table line %d: size %q must be a number > 0", line, rec[col["size"]])
		}
		ms, err := strconv.ParseFloat(rec[col[timeCol]], 64)
		if err != nil || !positiveFinite(ms) {
			return nil, fmt.Errorf("nccl table line %d: %s %q must be a number > 0", line, timeCol, rec[col[timeCol]])
		}
		byRanks[ranks] = append(byRanks[ranks], point{size, ms * 1e-3})
	}
	if len(byRanks) == 0 {
		return nil, fmt.Errorf("nccl table has no all_reduce rows for the selected layout")
	}
	t := &Table{}
	for ranks, pts := range byRanks {
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].size < pts[j].size })
		c := curve{ranks: ranks}
		for i := 0; i < len(pts); {
			j, sum := i, 0.0
			for ; j < len(pts) && pts[j].size == pts[i].size; j++ {
				sum += pts[j].t
			}
			c.sizes = append(c.sizes, pts[i].size)
			c.raw = append(c.raw, sum/float64(j-i))
			i = j
		}
		c.smooth = isotonic(c.raw)
		t.curves = append(t.curves, c)
	}
	slices.SortFunc(t.curves, func(a, b curve) int { return a.ranks - b.ranks })
	return t, nil
}

func positiveFinite(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// isotonic returns the non-decreasing sequence closest to y in least
// squares (pool-adjacent-violators, equal weights).
func isotonic(y []float64) []float64 {
	type block struct {
		sum float64
		n   int
	}
	blocks := make([]block, 0, len(y))
	for _, v := range y {
		blocks = append(blocks, block{v, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) <= b.sum/float64(b.n) {
				break
			}
			blocks = blocks[:len(blocks)-1]
			blocks[len(blocks)-1] = block{a.sum + b.sum, a.n + b.n}
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range blocks {
		m := b.sum / float64(b.n)
		for range b.n {
			out = append(out, m)
		}
	}
	return out
}

// Ranks returns the rank counts the table holds, ascending.
func (t *Table) Ranks() []int {
	out := make([]int, len(t.curves))
	for i, c := range t.curves {
		out[i] = c.ranks
	}
	return out
}

// Points returns copies of the message sizes (bytes) and the averaged,
// unsmoothed times (seconds) measured at ranks ranks, or nil slices when
// the table has no such rank count.
func (t *Table) Points(ranks int) (sizes, times []float64) {
	for _, c := range t.curves {
		if c.ranks == ranks {
			return slices.Clone(c.sizes), slices.Clone(c.raw)
		}
	}
	return nil, nil
}

// Time returns the interpolated time of one all-reduce of bytes bytes over
// ranks ranks, in seconds, and 0 for ranks ≤ 1. Within a rank count it
// interpolates the smoothed curve linearly in size; below the smallest
// measured size it returns the smallest size's time (latency floor); above
// the largest it scales the largest size's time in proportion to size
// (bandwidth-bound). Between measured rank counts it interpolates linearly
// in ranks; outside them it uses the nearest. A nil or empty table returns
// 0. O(log n), no allocation.
func (t *Table) Time(bytes float64, ranks int) float64 {
	if t == nil || ranks <= 1 || len(t.curves) == 0 {
		return 0
	}
	i := sort.Search(len(t.curves), func(i int) bool { return t.curves[i].ranks >= ranks })
	switch {
	case i == len(t.curves):
		return t.curves[i-1].at(bytes)
	case t.curves[i].ranks == ranks || i == 0:
		return t.curves[i].at(bytes)
	}
	lo, hi := &t.curves[i-1], &t.curves[i]
	w := float64(ranks-lo.ranks) / float64(hi.ranks-lo.ranks)
	a, b := lo.at(bytes), hi.at(bytes)
	return a + w*(b-a)
}

// at returns the smoothed time of s bytes at the curve's rank count.
func (c *curve) at(s float64) float64 {
	n := len(c.sizes)
	if s <= c.sizes[0] {
		return c.smooth[0]
	}
	if s >= c.sizes[n-1] {
		return c.smooth[n-1] * s / c.sizes[n-1]
	}
	j := sort.SearchFloat64s(c.sizes, s) // c.sizes[j-1] < s ≤ c.sizes[j]
	s0, s1 := c.sizes[j-1], c.sizes[j]
	w := (s - s0) / (s1 - s0)
	return c.smooth[j-1] + w*(c.smooth[j]-c.smooth[j-1])
}
