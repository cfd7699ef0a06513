package fleet

import (
	"math"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// Options is one simulated day of a fleet.
type Options struct {
	Day   Day
	Fleet Fleet
	Seed  uint64
	// Tail is how long, seconds after the day's span, requests still in
	// flight may finish (they count against the SLO if they do not); the
	// bill covers the span only. Use DefaultTail.
	Tail float64
	// RecordSteps keeps every step's start, duration and utilisation in
	// Report.Steps: O(steps) memory, for checks on short runs.
	RecordSteps bool
	// RecordITL keeps the day's inter-token latencies in Report.Result.
	// The report's hours, bills and totals have none, and without it the
	// day runs about a tenth faster (sim.Config.NoITL).
	RecordITL bool
}

// DefaultTail is Options.Tail's usual value: 10 minutes.
const DefaultTail = 600.0

// MaxInSystem is the backlog at which a day is stopped as unstable.
const MaxInSystem = 5_000_000

// Validate checks the day, the fleet and the tail.
func (o Options) Validate() error {
	if err := o.Day.Validate(); err != nil {
		return err
	}
	if err := o.Fleet.Validate(); err != nil {
		return err
	}
	if !(o.Tail >= 0) || math.IsInf(o.Tail, 1) {
		return invalidf("tail %v s must be a finite number >= 0", o.Tail)
	}
	return nil
}

// Report is a day's bill and service, by report bucket (the day's rate
// buckets) and in total.
type Report struct {
	Bucket float64      `json:"bucket"`
	SLO    metrics.SLO  `json:"slo"`
	Hours  []Hour       `json:"hours"`
	Pools  []Bill       `json:"pools"`
	Total  Bill         `json:"total"`
	Events []Event      `json:"events"`
	Worst  int          `json:"worst_hour"` // the bucket of least attainment (first of ties)
	Steps  []UtilSample `json:"-"`
	// Result is the run's whole-day metrics (summary mode; its ITL only
	// with Options.RecordITL).
	Result *sim.Result `json:"-"`
}

// Bill is what a pool, or the fleet, cost and served over the span.
type Bill struct {
	Name string `json:"name"`
	// Dollars is Σ price × GPU-hours.
	Dollars float64 `json:"dollars"`
	// GPUHours counts each GPU from the moment its replica is asked for
	// until it stops (or the span ends); StartupGPUHours is the part
	// before it was ready.
	GPUHours        float64 `json:"gpu_hours"`
	StartupGPUHours float64 `json:"startup_gpu_hours"`
	// Joules is Σ over GPUs of idle power × billed time + (board − idle)
	// × Σ step utilisation × step time.
	Joules float64 `json:"joules"`
	// MaxReplicas is the most replicas up (starting, ready or draining)
	// at once.
	MaxReplicas int `json:"max_replicas"`
	// Service, fleet totals only: requests that arrived in the span,
	// those completed, rejected, within the SLO, and the output tokens
	// of the completed ones.
	Requests, Completed, Rejected, Good int64
	OutputTokens                        int64
	// Stats, pools and the fleet only, are the engine counters
	// (batching's: prefix cache, KV offload, ...) of every replica that
	// served, merged by metrics.MergeStats: counts summed, ratios over
	// the summed parts, means over replicas; the fleet's are nil when its
	// pools' engines report different counters.
	Stats []metrics.Stat `json:"stats,omitempty"`
}

// Stat returns the counter named name of b.Stats.
func (b Bill) Stat(name string) (float64, bool) { return metrics.StatValue(b.Stats, name) }

// KWh returns Joules in kilowatt-hours.
func (b Bill) KWh() float64 { return b.Joules / 3.6e6 }

// JoulesPerToken returns Joules over the output tokens (0 without any).
func (b Bill) JoulesPerToken() float64 { return ratio(b.Joules, float64(b.OutputTokens)) }

// Attainment returns Good over Requests.
func (b Bill) Attainment() float64 { return ratio(float64(b.Good), float64(b.Requests)) }

// Hour is one report bucket.
type Hour struct {
	Start float64 `json:"start"`
	Bill
	// Rate is the arrivals over the bucket's seconds; Goodput the good
	// requests over them, requests/s.
	Rate    float64 `json:"rate"`
	Goodput float64 `json:"goodput"`
	// Replicas is the mean count billed over the bucket (GPU-seconds over
	// the bucket over GPUs per replica, summed over pools).
	Replicas float64 `json:"replicas"`
	// P99TTFT and P99TPOT are seconds, over the bucket's completed
	// requests (NaN without any).
	P99TTFT float64 `json:"p99_ttft"`
	P99TPOT float64 `json:"p99_tpot"`
	// CumDollars is the bill up to the bucket's end.
	CumDollars float64 `json:"cum_dollars"`
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// serverConfig builds the run's fleet server and keeps it for the report.
type serverConfig struct {
	o   *Options
	srv *server
}

func (c *serverConfig) Validate() error { return c.o.Fleet.Validate() }

func (c *serverConfig) NewServer(env *sim.Env) (sim.Server, error) {
	s, err := newServer(c.o.Fleet, env, c.o.Day.Span, c.o.Day.Bucket)
	if err != nil {
		return nil, err
	}
	if c.o.RecordSteps {
		s.trace = new([]UtilSample)
	}
	c.srv = s
	return s, nil
}

// Run simulates the day in summary mode (memory follows the requests in
// flight) and returns its report.
func Run(o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	w, err := o.Day.Workload()
	if err != nil {
		return nil, err
	}
	sc := &serverConfig{o: &o}
	res, err := sim.Run(sim.Config{
		Workload: w, Server: sc, Seed: o.Seed, Horizon: o.Day.Span + o.Tail,
		SLO: o.Fleet.SLO, SummaryOnly: true, MaxInSystem: MaxInSystem, NoITL: !o.RecordITL,
	})
	if err != nil {
		return nil, err
	}
	rep := sc.srv.report()
	rep.SLO = o.Fleet.SLO
	rep.Result = res
	return rep, nil
}

// overlap returns the length of [a, b) ∩ [c, d).
func overlap(a, b, c, d float64) float64 { return max(0, min(b, d)-max(a, c)) }

func (s *server) report() *Report {
	B := s.bucket
	out := &Report{Bucket: B, Hours: make([]Hour, s.nb), Events: s.events}
	if s.trace != nil {
		out.Steps = *s.trace
	}
	for _, p := range s.pools {
		b := Bill{Name: p.cfg.Name}
		pw := p.cfg.Power
		g := float64(p.gpus)
		for _, r := range p.reps {
			stop := min(r.stop, s.span)
			for i := range out.Hours {
				h := &out.Hours[i]
				lo, hi := float64(i)*B, min(float64(i+1)*B, s.span)
				sec := overlap(r.start, stop, lo, hi) * g
				j := g * (pw.Idle*overlap(r.start, stop, lo, hi) + (pw.Board-pw.Idle)*r.utilDt[i])
				h.GPUHours += sec / 3600
				h.StartupGPUHours += overlap(r.start, min(stop, r.up), lo, hi) * g / 3600
				h.Dollars += sec / 3600 * p.cfg.Price
				h.Joules += j
				h.Replicas += sec / g / (hi - lo)
				b.GPUHours += sec / 3600
				b.StartupGPUHours += overlap(r.start, min(stop, r.up), lo, hi) * g / 3600
				b.Dollars += sec / 3600 * p.cfg.Price
				b.Joules += j
			}
		}
		b.MaxReplicas = maxUp(s.events, p.cfg.Name, p.cfg.Policy.initial())
		b.Stats = p.mergedStats()
		out.Pools = append(out.Pools, b)
	}
	t := &out.Total
	t.Name = "fleet"
	worst, worstA := 0, math.Inf(1)
	cum := 0.0
	for i := range out.Hours {
		h := &out.Hours[i]
		a := &s.hours[i]
		lo, hi := float64(i)*B, min(float64(i+1)*B, s.span)
		h.Start = lo
		h.Name = "hour"
		h.Requests, h.Completed, h.Rejected, h.Good, h.OutputTokens = a.arrived, a.completed, a.rejected, a.good, a.outTokens
		h.Rate = float64(a.arrived) / (hi - lo)
		h.Goodput = float64(a.good) / (hi - lo)
		h.P99TTFT, h.P99TPOT = math.NaN(), math.NaN()
		if a.ttft.Count() > 0 {
			h.P99TTFT = a.ttft.Percentile(99)
		}
		if a.tpot.Count() > 0 {
			h.P99TPOT = a.tpot.Percentile(99)
		}
		cum += h.Dollars
		h.CumDollars = cum
		if at := h.Attainment(); a.arrived > 0 && at < worstA {
			worst, worstA = i, at
		}
		t.Requests += h.Requests
		t.Completed += h.Completed
		t.Rejected += h.Rejected
		t.Good += h.Good
		t.OutputTokens += h.OutputTokens
	}
	for _, b := range out.Pools {
		t.Dollars += b.Dollars
		t.GPUHours += b.GPUHours
		t.StartupGPUHours += b.StartupGPUHours
		t.Joules += b.Joules
		t.MaxReplicas += b.MaxReplicas
	}
	out.Worst = worst
	lists := make([][]metrics.Stat, 0, len(out.Pools))
	for _, b := range out.Pools {
		if b.Stats != nil {
			lists = append(lists, b.Stats)
		}
	}
	if len(lists) == len(out.Pools) {
		t.Stats, _ = metrics.MergeStats(lists) // nil when they differ
	}
	return out
}

// mergedStats returns the counters of every replica of p that served:
// those stopped and those up at the end (a cancelled one never served).
func (p *poolState) mergedStats() []metrics.Stat {
	lists := p.stats
	for _, r := range p.reps {
		if r.r != nil && r.st != starting {
			lists = append(lists, r.r.Stats())
		}
	}
	out, err := metrics.MergeStats(lists)
	if err != nil {
		return nil // one engine configuration a pool: cannot happen
	}
	return out
}

// maxUp returns the most replicas of pool up at once (starting, ready or
// draining), from its events.
func maxUp(events []Event, pool string, initial int) int {
	up, most := initial, initial
	for _, e := range events {
		if e.Pool != pool {
			continue
		}
		switch e.Kind {
		case Start:
			up++
		case Stop, Cancel:
			up--
		}
		most = max(most, up)
	}
	return most
}

// ReplicasAt returns pool's count (starting plus ready) just after time t,
// from the events.
func (r *Report) ReplicasAt(pool string, t float64) int {
	n := 0
	for _, e := range r.Events {
		if e.Pool == pool && e.Time <= t {
			n = e.Replicas
		}
	}
	return n
}
