package fleet

import (
	"fmt"
	"io"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// A DaySpec is a day of traffic on a fleet of one model's replicas, as
// `servesim day` names it: one pool per GPU under Policy (or, with Rank,
// every ranked policy on every GPU as a fleet of its own), a diurnal rate,
// the arrivals' shape, the SLO and the prices. Options builds the run.
type DaySpec struct {
	Model cost.ModelSpec
	// GPUs get a pool each; TP is the GPUs per replica.
	GPUs []cost.GPUSpec
	TP   int
	// Policy sizes every pool; Rank, when set, lists the policies ranked
	// instead.
	Policy Policy
	Rank   []NamedPolicy
	// Rate is the day's mean request rate (requests/s); Hours the hours
	// simulated; the rate follows a 24-hour sine peaking at PeakHour whose
	// lowest rate is Trough times the peak.
	Rate, Hours, PeakHour, Trough float64
	// Trace, when set, gives the arrivals their shape and, without
	// Lengths, the lengths (repeated); nil: Poisson arrivals.
	Trace *workload.Trace
	// Lengths, when set, draws every request's lengths; nil: the trace's
	// rows, or without a trace the Azure conversation lengths.
	Lengths workload.Lengths
	SLO     metrics.SLO
	// Prices are dollars per GPU-hour over the built-in list
	// (DefaultPrice).
	Prices plan.Prices
	// StorageBandwidth is the weight-loading bandwidth at start-up,
	// bytes/s (DefaultStartup's other times stay).
	StorageBandwidth float64
	// Attainment is the day's SLO attainment a ranked fleet must reach, a
	// fraction in [0, 1].
	Attainment float64
	// KVOffload, when set, gives every replica of every pool a host
	// buffer for KV blocks (vLLM's --kv-offloading-size; batching.KVOffload,
	// docs/kv-offload.md); nil: none.
	KVOffload *batching.KVOffload
	Seed      uint64
}

// A NamedPolicy is a policy and its name (as the user wrote it, say).
type NamedPolicy struct {
	Name   string
	Policy Policy
}

// MaxDayHours is the longest day a DaySpec simulates: a week.
const MaxDayHours = 24 * 7

// Validate checks the numbers of d, that it has GPUs, and that no
// policy is a bare "fixed" (a plan's count, RankPlan's alone); Options
// checks the rest (a GPU without a price, the policies' fields).
func (d DaySpec) Validate() error {
	if !(d.Rate > 0) {
		return fielderr.New("rate", d.Rate, "must be a number of requests/s in (0, 1e7]")
	}
	if err := d.ValidateDay(); err != nil {
		return err
	}
	if len(d.GPUs) == 0 {
		return fielderr.New("gpus", nil, "is empty: give a GPU per pool")
	}
	if d.Policy.Kind == Fixed && d.Policy.Replicas == 0 {
		return fielderr.New("policy", "fixed", "needs a count: give fixed:N (a bare fixed is the plan's count, in servesim plan --policies)")
	}
	for _, np := range d.Rank {
		if np.Policy.Kind == Fixed && np.Policy.Replicas == 0 {
			return fielderr.New("rank", np.Name, "needs a count: give fixed:N (a bare fixed is the plan's count, in servesim plan --policies)")
		}
	}
	return d.validateOffload()
}

// validateOffload checks d.KVOffload alone and against each GPU's engine
// (its host blocks, prefix caching); an engine's other errors are the
// run's to report. Its errors name the flag-style field
// (offloadField).
func (d DaySpec) validateOffload() error {
	if d.KVOffload == nil {
		return nil
	}
	if err := d.KVOffload.Validate(); err != nil {
		return fielderr.Rename(err, offloadField)
	}
	for _, gpu := range d.GPUs {
		err := d.engine(gpu).Validate()
		if fe := fielderr.Of(err); fe != nil && strings.HasPrefix(fe.Field, "kv_offload") {
			return fielderr.Rename(err, offloadField)
		}
	}
	return nil
}

// offloadFlags names the flag of each batching.KVOffload field.
var offloadFlags = map[string]string{"kv_offload": "kv-offloading-size", "kv_offloading_size": "kv-offloading-size",
	"kv_offloading_backend": "kv-offloading-backend", "pcie_bandwidth": "pcie-bandwidth"}

// offloadField names a batching.KVOffload field (or the engine's
// kv_offload.FIELD) as DaySpec's errors do: its flag, or kv-offload.FIELD
// for those without one (pcie_latency, block_size).
func offloadField(f string) string {
	if f != "kv_offload" {
		f = strings.TrimPrefix(f, "kv_offload.")
	}
	if n, ok := offloadFlags[f]; ok {
		return n
	}
	return "kv-offload." + f
}

// engine returns a replica of the day's model on gpu: batching.Defaults
// at TP, offloading to d.KVOffload (a copy of its own) when set.
func (d DaySpec) engine(gpu cost.GPUSpec) batching.Config {
	eng := batching.Defaults(d.Model, gpu)
	eng.Deployment.TP = d.TP
	if d.KVOffload != nil {
		o := *d.KVOffload
		eng.KVOffload = &o
	}
	return eng
}

// ValidateDay checks the numbers of the day alone, as RankPlan takes
// it: the rate (0: the plan's), trough, hours and attainment target.
func (d DaySpec) ValidateDay() error {
	switch {
	case !(d.Rate >= 0) || d.Rate > 1e7:
		return fielderr.New("rate", d.Rate, "must be a number of requests/s in [0, 1e7] (0 in a plan: the day whose busiest hour is the plan's rate)")
	case !(d.Trough > 0 && d.Trough <= 1):
		return fielderr.New("trough", d.Trough, "must be in (0, 1]")
	case !(d.Hours > 0 && d.Hours <= MaxDayHours):
		return fielderr.New("hours", d.Hours, "must be in (0, %d]", MaxDayHours)
	case !(d.Attainment >= 0 && d.Attainment <= 1):
		return fielderr.New("attainment", d.Attainment, "must be a fraction in [0, 1] (0.99 for 99%%)")
	}
	return nil
}

// Options returns the day's run: its fleet of one pool per GPU, and, with
// d.Rank, one Case per ranked policy and GPU (named "GPU POLICY") to
// Compare on the same day.
func (d DaySpec) Options() (Options, []Case, error) {
	if err := d.Validate(); err != nil {
		return Options{}, nil, err
	}
	var pools []Pool
	var cases []Case
	for _, gpu := range d.GPUs {
		eng := d.engine(gpu)
		price, ok := d.Prices[gpu.Name]
		if !ok {
			var err error
			if price, err = DefaultPrice(gpu.Name); err != nil {
				return Options{}, nil, fmt.Errorf("%w (or pass --prices %s=DOLLARS)", err, gpu.Name)
			}
		}
		pw, err := DefaultPower(gpu.Name)
		if err != nil {
			return Options{}, nil, err
		}
		pools = append(pools, Pool{Name: gpu.Name, Engine: eng, Policy: d.Policy, Price: price, Power: pw})
		for _, np := range d.Rank {
			cases = append(cases, Case{Name: gpu.Name + " " + np.Name,
				Pools: []Pool{{Name: gpu.Name, Engine: eng, Policy: np.Policy, Price: price, Power: pw}}})
		}
	}
	return d.options(pools), cases, nil
}

// options returns the day of d on pools: its hourly rates (the diurnal
// sine, repeated past 24 hours), arrivals, lengths, start-up and SLO.
func (d DaySpec) options(pools []Pool) Options {
	day := Day{Span: d.Hours * 3600, Bucket: 3600, Rates: Scaled(d.Rate, Sinusoid(24, d.PeakHour, d.Trough))}
	for float64(len(day.Rates))*day.Bucket < day.Span {
		day.Rates = append(day.Rates, day.Rates[:24]...)
	}
	day.Trace = d.Trace
	switch {
	case d.Lengths != nil:
		day.Phases = []Phase{{From: 0, Lengths: d.Lengths}}
	case d.Trace == nil:
		day.Phases = []Phase{{From: 0, Lengths: workload.AzureConversation()}}
	}
	st := DefaultStartup
	st.StorageBandwidth = d.StorageBandwidth
	return Options{Day: day, Seed: d.Seed, Tail: DefaultTail, Fleet: Fleet{Pools: pools, Startup: st, SLO: d.SLO}}
}

// WriteRanked runs every case on the day of o and writes them ranked by
// the day's dollars at attainment target (RankCases), then the cheapest
// that meets it; what heads the first line.
func WriteRanked(w io.Writer, o Options, cases []Case, target float64, what string) error {
	r, err := RankCases(o, cases, target)
	if err != nil {
		return err
	}
	return r.Write(w, what)
}

// A Ranking is cases run on the same day, in Rank's order: Met of them,
// leading, reach the attainment Target.
type Ranking struct {
	Cases   []Case
	Reports []*Report
	Met     int
	Target  float64
}

// RankCases runs every case on the day of o (Compare) and orders them by
// the day's dollars at attainment target (Rank).
func RankCases(o Options, cases []Case, target float64) (Ranking, error) {
	reports, err := Compare(o, cases)
	if err != nil {
		return Ranking{}, err
	}
	order, met := Rank(reports, target)
	r := Ranking{Cases: make([]Case, len(order)), Reports: make([]*Report, len(order)), Met: met, Target: target}
	for i, k := range order {
		r.Cases[i], r.Reports[i] = cases[k], reports[k]
	}
	return r, nil
}

// Write writes the ranked table (WriteComparison) and the cheapest case
// that meets the target; what heads the first line.
func (r Ranking) Write(w io.Writer, what string) error {
	rc, rr, target := r.Cases, r.Reports, r.Target
	fmt.Fprintf(w, "%s (%d requests): %d fleets ranked by the day's dollars at >= %.4g%% attainment\n", what, rr[0].Total.Requests, len(rc), 100*target)
	if err := WriteComparison(w, rc, rr); err != nil {
		return err
	}
	if r.Met == 0 {
		_, err := fmt.Fprintf(w, "none reaches %.4g%% attainment: the best is %s at %.2f%%\n", 100*target, rc[0].Name, 100*rr[0].Total.Attainment())
		return err
	}
	_, err := fmt.Fprintf(w, "cheapest at >= %.4g%% attainment: %s, $%.2f (%d of %d fleets reach it)\n", 100*target, rc[0].Name, rr[0].Total.Dollars, r.Met, len(rc))
	return err
}
