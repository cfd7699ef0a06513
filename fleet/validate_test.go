package fleet

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/servesim/servesim/workload"
)

// TestValidate: bad input returns an ErrInvalid error naming the field
// and its value, never a panic or a silent default.
func TestValidate(t *testing.T) {
	t.Parallel()
	okDay := Day{Span: 60, Bucket: 60, Rates: []float64{1}, Phases: []Phase{{0, workload.Fixed{Input: 8, Output: 2}}}}
	okPool := Pool{Name: "a", Engine: stepEngine(0.01, 8), Policy: Policy{Kind: Fixed, Replicas: 1}, Price: 1, Power: testPower}
	okFleet := Fleet{Pools: []Pool{okPool}, Startup: DefaultStartup}
	mod := func(f func(o *Options)) Options {
		o := Options{Day: okDay, Fleet: okFleet, Tail: 1}
		o.Fleet.Pools = []Pool{okPool}
		o.Day.Phases = append([]Phase(nil), okDay.Phases...)
		f(&o)
		return o
	}
	for _, c := range []struct {
		name, want string
		o          Options
	}{
		{"span", "day span 0", mod(func(o *Options) { o.Day.Span = 0 })},
		{"bucket", "day bucket NaN", mod(func(o *Options) { o.Day.Bucket = math.NaN() })},
		{"short rates", "less than the span 120", mod(func(o *Options) { o.Day.Span = 120 })},
		{"negative rate", "rates[0] -1", mod(func(o *Options) { o.Day.Rates = []float64{-1} })},
		{"all zero", "all 0", mod(func(o *Options) { o.Day.Rates = []float64{0} })},
		{"no lengths", "neither phases nor a trace", mod(func(o *Options) { o.Day.Phases = nil })},
		{"phase order", "phases[0] starts at 5", mod(func(o *Options) { o.Day.Phases[0].From = 5 })},
		{"one-row trace", "trace has 1 rows", mod(func(o *Options) { o.Day.Trace = &workload.Trace{Rows: []workload.TraceRow{{}}} })},
		{"no pools", "0 pools", mod(func(o *Options) { o.Fleet.Pools = nil })},
		{"pool name", "pool name is empty", mod(func(o *Options) { o.Fleet.Pools[0].Name = "" })},
		{"twice", "used twice", mod(func(o *Options) { o.Fleet.Pools = []Pool{okPool, okPool} })},
		{"price", "price -1", mod(func(o *Options) { o.Fleet.Pools[0].Price = -1 })},
		{"power", "idle 100 W and board 50 W", mod(func(o *Options) { o.Fleet.Pools[0].Power.Board = 50 })},
		{"fixed 0", "replicas 0 must be >= 1", mod(func(o *Options) { o.Fleet.Pools[0].Policy.Replicas = 0 })},
		{"kind", `kind "hpa"`, mod(func(o *Options) { o.Fleet.Pools[0].Policy.Kind = "hpa" })},
		{"schedule start", "start with a step at 0", mod(func(o *Options) {
			o.Fleet.Pools[0].Policy = Policy{Kind: Scheduled, Schedule: []Step{{At: 10, Replicas: 1}}}
		})},
		{"schedule order", "schedule[1] at 0 s must be after", mod(func(o *Options) {
			o.Fleet.Pools[0].Policy = Policy{Kind: Scheduled, Schedule: []Step{{0, 1}, {0, 2}}}
		})},
		{"metric", `metric "gpu-util"`, mod(func(o *Options) { o.Fleet.Pools[0].Policy = Target("gpu-util", 1, 1, 2) })},
		{"kv target", "must be a fraction", mod(func(o *Options) { o.Fleet.Pools[0].Policy = Target(KVUsage, 70, 1, 2) })},
		{"period", "period 0 s", mod(func(o *Options) { p := Target(Running, 1, 1, 2); p.Period = 0; o.Fleet.Pools[0].Policy = p })},
		{"min", "min 0", mod(func(o *Options) { o.Fleet.Pools[0].Policy = Target(Running, 1, 0, 2) })},
		{"max", "max 1 must be >= min 2", mod(func(o *Options) { o.Fleet.Pools[0].Policy = Target(Running, 1, 2, 1) })},
		{"too many", "max 20000 must be in [0, 10000]", mod(func(o *Options) { o.Fleet.Pools[0].Policy = Target(Running, 1, 1, 20000) })},
		{"startup", "node_start -1", mod(func(o *Options) { o.Fleet.Startup.NodeStart = -1 })},
		{"bandwidth", "storage_bandwidth 0", mod(func(o *Options) { o.Fleet.Startup.StorageBandwidth = 0 })},
		{"engine", "max_num_seqs: 0", mod(func(o *Options) { o.Fleet.Pools[0].Engine.MaxNumSeqs = 0 })},
		{"tail", "tail -1", mod(func(o *Options) { o.Tail = -1 })},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(c.o)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Run: %v, want an ErrInvalid error containing %q", err, c.want)
			}
		})
	}
	if _, err := Run(mod(func(*Options) {})); err != nil {
		t.Errorf("the valid options fail: %v", err)
	}
}

// TestDayArrivals: the time-changed arrivals put exactly the expected
// count in each bucket for a trace shape (points u_k = k), and, for
// Poisson, within 4 standard deviations.
func TestDayArrivals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		trace *workload.Trace
		exact bool
	}{{"trace", evenTrace(7), true}, {"poisson", nil, false}} {
		d := Day{Span: 400, Bucket: 100, Rates: []float64{2, 0, 10, 0.5}, Trace: c.trace,
			Phases: []Phase{{0, workload.Fixed{Input: 1, Output: 1}}}}
		w, err := d.Workload()
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.Arrivals.Stream(newTestRand(), 0)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, 4)
		prev := 0.0
		for x := s.Next(); !math.IsInf(x, 1); x = s.Next() {
			if x < prev {
				t.Fatalf("%s: arrival %v before %v", c.name, x, prev)
			}
			prev = x
			counts[int(x/100)]++
		}
		for i, r := range d.Rates {
			want := r * 100
			tol := 4 * math.Sqrt(want)
			if c.exact {
				tol = 1 // the point at the bucket's start may fall either side
			}
			if math.Abs(float64(counts[i])-want) > tol {
				t.Errorf("%s: bucket %d has %d arrivals, want %v ± %v", c.name, i, counts[i], want, tol)
			}
		}
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
