package cost

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// NCCLOptions chooses what readNCCLTable keeps from a measurement file.
type NCCLOptions struct {
	// Statistic names the time column to read: "median" (the default when
	// empty), "mean", "min" or "max" of time_stats.all_reduce.*.
	Statistic string
	// DevicesPerNode keeps only rows measured with this many GPUs per node.
	// 0 keeps single-node rows only (devices_per_node == num_workers), the
	// layout of tensor parallelism inside one NVLink domain.
	DevicesPerNode int
}

// allReduceTable is a measured all-reduce time curve per rank count, read
// from an NCCL profile such as microsoft/vidur's
// data/profiling/network/*/all_reduce.csv (message size in bytes, times in
// milliseconds). It implements AllReduce by interpolation, so a Deployment
// can use measurements in place of the α–β model.
//
// Within each rank count, times at the same size are averaged and then made
// non-decreasing in size by isotonic least squares (pool-adjacent-violators):
// small messages are noisy in these profiles, and an all-reduce never gets
// faster as its message grows. A table is immutable once read and safe for
// concurrent use.
type allReduceTable struct {
	curves []ncclCurve // sorted by ranks
}

type ncclCurve struct {
	ranks  int
	sizes  []float64 // bytes, strictly increasing
	raw    []float64 // seconds, averaged per size
	smooth []float64 // seconds, isotonic fit of raw
}

// LoadNCCLTable reads an NCCL all-reduce profile from a CSV file (the
// format readNCCLTable describes) and returns the all-reduce it measured,
// whose Time interpolates the measurements: set Deployment.Comm to it.
func LoadNCCLTable(path string, opt NCCLOptions) (AllReduce, error) {
	t, err := loadNCCLTable(path, opt)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// loadNCCLTable is LoadNCCLTable, returning the table.
func loadNCCLTable(path string, opt NCCLOptions) (*allReduceTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := readNCCLTable(f, opt)
	if err != nil {
		return nil, within(path, err)
	}
	return t, nil
}

// readNCCLTable reads an NCCL all-reduce profile in CSV with the columns
// size (bytes), num_workers, devices_per_node, collective and
// time_stats.all_reduce.{min,max,mean,median} (milliseconds). Rows whose
// collective is not all_reduce, or whose layout opt does not select, are
// skipped. It fails when no row remains.
func readNCCLTable(r io.Reader, opt NCCLOptions) (*allReduceTable, error) {
	statName := opt.Statistic
	if statName == "" {
		statName = "median"
	}
	switch statName {
	case "median", "mean", "min", "max":
	default:
		return nil, invalidf("nccl statistic %q must be median, mean, min or max", statName)
	}
	if opt.DevicesPerNode < 0 {
		return nil, invalidf("nccl devices_per_node %d must be >= 0", opt.DevicesPerNode)
	}
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, wrapf(ErrInvalidSpec, err, "nccl table header")
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	timeCol := "time_stats.all_reduce." + statName
	for _, name := range []string{"size", "num_workers", timeCol} {
		if _, ok := col[name]; !ok {
			return nil, invalidf("nccl table has no %q column", name)
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
			return nil, wrapf(ErrInvalidSpec, err, "nccl table line %d", line)
		}
		if hasColl && rec[collCol] != "all_reduce" {
			continue
		}
		ranks, err := strconv.Atoi(rec[col["num_workers"]])
		if err != nil || ranks < 1 {
			return nil, invalidf("nccl table line %d: num_workers %q must be an integer >= 1", line, rec[col["num_workers"]])
		}
		if hasDPN {
			dpn, err := strconv.Atoi(rec[dpnCol])
			if err != nil {
				return nil, invalidf("nccl table line %d: devices_per_node %q is not an integer", line, rec[dpnCol])
			}
			want := opt.DevicesPerNode
			if want == 0 {
				want = ranks
			}
			if dpn != want {
				continue
			}
		}
		size, err := strconv.ParseFloat(rec[col["size"]], 64)
		if err != nil || !positiveFinite(size) {
			return nil, invalidf("nccl table line %d: size %q must be a number > 0", line, rec[col["size"]])
		}
		ms, err := strconv.ParseFloat(rec[col[timeCol]], 64)
		if err != nil || !positiveFinite(ms) {
			return nil, invalidf("nccl table line %d: %s %q must be a number > 0", line, timeCol, rec[col[timeCol]])
		}
		byRanks[ranks] = append(byRanks[ranks], point{size, ms * 1e-3})
	}
	if len(byRanks) == 0 {
		return nil, invalidf("nccl table has no all_reduce rows for the selected layout")
	}
	t := &allReduceTable{}
	for ranks, pts := range byRanks {
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].size < pts[j].size })
		c := ncclCurve{ranks: ranks}
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
	slices.SortFunc(t.curves, func(a, b ncclCurve) int { return a.ranks - b.ranks })
	return t, nil
}

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

// ranks returns the rank counts the table holds, ascending.
func (t *allReduceTable) ranks() []int {
	out := make([]int, len(t.curves))
	for i, c := range t.curves {
		out[i] = c.ranks
	}
	return out
}

// points returns copies of the message sizes (bytes) and the averaged,
// unsmoothed times (seconds) measured at ranks ranks, or nil slices when the
// table has no such rank count.
func (t *allReduceTable) points(ranks int) (sizes, times []float64) {
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
func (t *allReduceTable) Time(bytes float64, ranks int) float64 {
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

func (c *ncclCurve) at(s float64) float64 {
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

// fitAlphaBeta fits τ(S) = α + 2(p−1)S/(p·B) to the measurements at ranks
// ranks with message sizes in [minBytes, maxBytes] (maxBytes ≤ 0 means no
// upper limit), by weighted least squares on the unsmoothed times with
// weights 1/τ², i.e. minimising squared relative error so that the latency
// of small messages counts as much as the bandwidth of large ones. A negative
// α is clamped to 0 and B refitted through the origin.
func (t *allReduceTable) fitAlphaBeta(ranks int, minBytes, maxBytes float64) (AlphaBeta, error) {
	if ranks < 2 {
		return AlphaBeta{}, invalidf("all-reduce fit ranks %d must be >= 2", ranks)
	}
	sizes, times := t.points(ranks)
	if sizes == nil {
		return AlphaBeta{}, invalidf("all-reduce fit: no measurements at %d ranks (have %v)", ranks, t.ranks())
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
		return AlphaBeta{}, errorf(ErrFit, "all-reduce fit at %d ranks: %d sizes in [%v, %v] bytes, need >= 2", ranks, len(x), minBytes, maxBytes)
	}
	alpha, invB := stat.LinearRegression(x, y, w, false)
	if alpha < 0 {
		alpha = 0
		_, invB = stat.LinearRegression(x, y, w, true)
	}
	if !(invB > 0) || math.IsInf(invB, 0) {
		return AlphaBeta{}, errorf(ErrFit, "all-reduce fit at %d ranks: slope %v s/byte is not positive", ranks, invB)
	}
	return AlphaBeta{Ranks: ranks, Alpha: alpha, BusBandwidth: 1 / invB}, nil
}

// fitAll fits FitAlphaBeta for every rank count ≥ 2 in the table.
func (t *allReduceTable) fitAll(minBytes, maxBytes float64) (AlphaBetaTable, error) {
	var out AlphaBetaTable
	var errs []error
	for _, c := range t.curves {
		if c.ranks < 2 {
			continue
		}
		ab, err := t.fitAlphaBeta(c.ranks, minBytes, maxBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, ab)
	}
	return out, errors.Join(errs...)
}
