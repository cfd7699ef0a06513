package sim

import (
	"iter"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// Result is one run's outcome. Counts, totals and statistics cover measured
// requests only: warm-up requests are left out of all of them. Times are in
// seconds, throughputs per second; the JSON form uses vLLM's result field
// names (milliseconds for latencies) with servesim's extra fields beside them.
type Result struct {
	// Seed is the run's seed; Replication its index under Replicate.
	Seed        uint64
	Replication int

	// RequestRate is the offered open-loop rate (+Inf for closed loops and
	// for rate inf); Burstiness the Gamma shape of the arrival gaps (1 for
	// Poisson, 0 when it does not apply); MaxConcurrency the open loop's
	// client cap or the closed loop's client count (0: none).
	RequestRate    float64
	Burstiness     float64
	MaxConcurrency int
	Closed         bool

	// Injected counts every generated request, warm-up included; Warmup
	// how many were warm-up.
	Injected, Warmup int
	// Counts tallies the measured requests: Measured, and Completed,
	// Failed and Rejected by how they ended, Good (met every SLO bound),
	// and the token totals of completed (TotalInput, TotalOutput) and good
	// (GoodOutputTokens) requests.
	metrics.Counts
	// InFlight counts the measured requests not ended at the stop,
	// including those still held in the client.
	InFlight int

	// Duration is from the first measured send to the last measured end
	// (the drain tail included), or to the stop time when requests remain.
	Duration float64
	// Throughputs over Duration: completed requests, output tokens (NOT
	// 1/TPOT), input plus output tokens.
	RequestThroughput, OutputThroughput, TotalTokenThroughput float64

	// SLO is the run's objective.
	SLO metrics.SLO
	// Attainment is Good over AttainmentDenominator: completed, failed and
	// rejected requests, plus those still in flight that have already
	// missed a bound (in-flight requests that may yet pass are censored).
	Attainment            float64
	AttainmentDenominator int
	// RequestGoodput is Good/Duration (vLLM's request_goodput).
	RequestGoodput float64
	// GPUs is the server's GPU count (1 unless it is a GPUCounter);
	// GoodputPerGPU is GoodOutputTokens/(Duration·GPUs): per-card goodput
	// G_card, tokens/s.
	GPUs          int
	GoodputPerGPU float64

	// ArrivalRate is the rate the arrival process realised over the
	// measured window: (n−1)/(last arrival − first arrival) of the n
	// measured requests (scheduled arrivals; send times in closed loops).
	ArrivalRate float64
	// SendRate is the actual send rate over the measured window:
	// (n−1)/(last send − first send) over the n measured requests sent. It
	// equals the arrival rate of the trace unless a max_concurrency cap
	// held requests back (vLLM warns of exactly this).
	SendRate float64
	// MaxConcurrent is the most requests in flight at once.
	MaxConcurrent int
	// MaxOutputTokensPerS is the most output tokens of measured requests
	// that left in one second, in one-second windows from the first
	// measured send (vLLM's max_output_tokens_per_s). A server that
	// reports no token events (an FCFS queue with a service-time law)
	// counts a request's tokens at its end.
	MaxOutputTokensPerS float64

	itl     *metrics.Sample
	lat     metrics.Latencies // built from Requests on first use unless summary mode filled them
	latOnce [metrics.NumLatencies]sync.Once

	// MeanInSystem is the time-average number of requests in the system
	// (sent, not ended) over [0, End]; InSystemArea is its integral and
	// SojournSum the sum of every request's time in the system up to End,
	// warm-up included. InSystemArea = SojournSum is Little's law on the
	// sample path.
	MeanInSystem, InSystemArea, SojournSum float64

	// Stability is the verdict on queue growth (open loops only).
	Stability metrics.Stability

	// StoppedBy says why the run ended before its stop rule, if it did.
	StoppedBy StopReason

	// End is the simulated time the run stopped; Events the events fired.
	End    float64
	Events uint64

	// Server holds the server's own counters, if it reports any, and
	// Series their bounded time series (not in the JSON form).
	Server []metrics.Stat
	Series []*metrics.Series

	// Percentiles are those the JSON form reports.
	Percentiles []float64

	// Requests are the records of every injected request in ID order, nil
	// in summary mode.
	Requests []metrics.Request

	steps []float64 // token step times (Config.TokenSteps)
}

func (e *run) result(end float64) *Result {
	cfg := e.cfg
	m := e.m
	e.eng.SetNow(end)
	e.advance()
	res := &Result{
		Seed:                cfg.Seed,
		Closed:              cfg.Workload.Closed(),
		MaxConcurrency:      cfg.Workload.MaxConcurrency,
		Injected:            e.injected,
		Warmup:              min(cfg.Warmup, e.injected),
		Counts:              m.Counts,
		SLO:                 cfg.SLO,
		GPUs:                1,
		MaxConcurrent:       e.maxConcurrent,
		steps:               e.steps,
		MaxOutputTokensPerS: m.Peak.Max(),
		itl:                 m.ITL,
		InSystemArea:        e.area,
		End:                 end,
		Events:              e.eng.Fired() + e.ff,
		Percentiles:         append([]float64(nil), cfg.Percentiles...),
	}
	if len(res.Percentiles) == 0 {
		res.Percentiles = metrics.DefaultPercentiles()
	}
	if res.Closed {
		res.RequestRate = math.Inf(1)
		res.MaxConcurrency = cfg.Workload.Clients
	} else {
		res.RequestRate = cfg.Workload.Arrivals.MeanRate()
		if g, ok := cfg.Workload.Arrivals.(workload.GammaGaps); ok {
			res.Burstiness = g.GammaShape()
		}
	}
	if m.Latencies != nil {
		res.lat = *m.Latencies
	}
	if g, ok := e.server.(GPUCounter); ok {
		res.GPUs = g.GPUs()
	}
	if s, ok := e.server.(StatsReporter); ok {
		res.Server = s.Stats()
	}
	if s, ok := e.server.(SeriesReporter); ok {
		res.Series = s.Series()
	}

	// Requests not ended: in flight (or held in the client) at the stop.
	res.SojournSum = e.sojourn
	var censoredMisses int
	for i := 0; e.ended < e.injected && i < e.store.n; i++ {
		r := e.store.slot(i)
		if r.Status.Ended() {
			continue
		}
		if r.Status == metrics.InFlight {
			res.SojournSum += end - r.Sent
		}
		if r.Warmup {
			continue
		}
		res.InFlight++
		if cfg.SLO.ViolatedBy(r, end) {
			censoredMisses++
		}
	}
	if !cfg.SummaryOnly {
		res.Requests = e.store.all()
	}

	if m.FirstSend >= 0 {
		last := m.LastEnd
		if res.InFlight > 0 || last < 0 {
			last = end
		}
		res.Duration = last - m.FirstSend
	}
	if res.Duration > 0 {
		d := res.Duration
		res.RequestThroughput = float64(res.Completed) / d
		res.OutputThroughput = float64(res.TotalOutput) / d
		res.TotalTokenThroughput = float64(res.TotalInput+res.TotalOutput) / d
		res.RequestGoodput = float64(res.Good) / d
		res.GoodputPerGPU = float64(res.GoodOutputTokens) / (d * float64(res.GPUs))
	}
	res.AttainmentDenominator = res.Completed + res.Failed + res.Rejected + censoredMisses
	if res.AttainmentDenominator > 0 {
		res.Attainment = float64(res.Good) / float64(res.AttainmentDenominator)
	}
	if m.Sends > 1 && m.LastSend > m.FirstSend {
		res.SendRate = float64(m.Sends-1) / (m.LastSend - m.FirstSend)
	}
	if end > 0 {
		res.MeanInSystem = e.area / end
	}
	if m.Measured > 1 && m.LastArrival > m.FirstArrival {
		res.ArrivalRate = float64(m.Measured-1) / (m.LastArrival - m.FirstArrival)
	}
	switch {
	case res.Closed:
		res.Stability.Judged = metrics.JudgedClosed
	case math.IsInf(res.RequestRate, 1):
		res.Stability.Judged = metrics.JudgedBurst
	default:
		res.Stability = e.trend.Verdict()
	}
	res.StoppedBy = e.stoppedBy
	if e.stoppedBy == StopMaxInSystem {
		res.Stability.Unstable = true
		res.Stability.StoppedEarly = true
		res.Stability.Reason = "requests in the system reached max_in_system " + strconv.Itoa(e.maxSys)
	}
	return res
}

// Latency returns the sample of latency metric l over completed measured
// requests, seconds: metrics.TTFT, TPOT, E2E, QueueTime (Start − Sent),
// ClientQueueTime (Sent − Arrival: time held back by a max_concurrency
// cap) or E2EWithClientQueue (vLLM's e2el_including_client_queue: the
// latency a user behind the cap sees). A run that kept records builds the
// sample from them on first use; only the metrics asked for are built.
func (r *Result) Latency(l metrics.Latency) *metrics.Sample {
	r.latOnce[l].Do(func() {
		if r.lat[l] == nil {
			r.lat[l] = metrics.FromRecords(l, r.Requests)
		}
	})
	return r.lat[l]
}

// TTFT returns the time-to-first-token sample (FirstToken − Sent) of
// completed measured requests, seconds.
func (r *Result) TTFT() *metrics.Sample { return r.Latency(metrics.TTFT) }

// TPOT returns the time-per-output-token sample, (E2E − TTFT)/(O − 1),
// leaving out requests with one output token.
func (r *Result) TPOT() *metrics.Sample { return r.Latency(metrics.TPOT) }

// ITL returns the inter-token latency sample: every gap between
// consecutive tokens of a measured request, pooled over requests
// (token-weighted), as vLLM reports it. A batching engine records gaps as
// tokens leave, so a run cut by a horizon includes the gaps of requests
// still in flight (vLLM would report only finished requests').
func (r *Result) ITL() *metrics.Sample { return r.itl }

// E2E returns the end-to-end latency sample (Done − Sent; vLLM's e2el).
func (r *Result) E2E() *metrics.Sample { return r.Latency(metrics.E2E) }

// TokenGaps returns the gaps between request q's consecutive output
// tokens, seconds (vLLM's per-request itls): Output − 1 values for a
// completed request, none otherwise. With Config.TokenSteps and a server
// that gives every running request a token per step (the batching
// engine), they are the exact gaps between the steps after its first
// token up to its last; otherwise (no step log, or a request that
// preemption took out of some steps) its decode time spread evenly. Their
// sum is Done − FirstToken either way.
func (r *Result) TokenGaps(q *metrics.Request) []float64 {
	n := q.Output - 1
	if q.Status != metrics.Completed || n <= 0 {
		return []float64{}
	}
	lo, _ := slices.BinarySearch(r.steps, q.FirstToken)
	if lo < len(r.steps) && r.steps[lo] == q.FirstToken {
		lo++
	}
	hi, found := slices.BinarySearch(r.steps, q.Done)
	if found {
		hi++
	}
	gaps := make([]float64, n)
	if hi-lo == n && hi > 0 && r.steps[hi-1] == q.Done {
		prev := q.FirstToken
		for i, t := range r.steps[lo:hi] {
			gaps[i], prev = t-prev, t
		}
		return gaps
	}
	g := (q.Done - q.FirstToken) / float64(n)
	for i := range gaps {
		gaps[i] = g
	}
	return gaps
}

// Stat returns the server counter called name and whether it exists.
func (r *Result) Stat(name string) (float64, bool) { return metrics.StatValue(r.Server, name) }

// latencyMetrics lists the JSON metric names and their samples, in output
// order: vLLM's four, then servesim's queue times.
func (r *Result) latencyMetrics() []struct {
	name string
	s    *metrics.Sample
} {
	return []struct {
		name string
		s    *metrics.Sample
	}{
		{"ttft", r.TTFT()}, {"tpot", r.TPOT()}, {"itl", r.ITL()}, {"e2el", r.E2E()},
		{"queue_time", r.Latency(metrics.QueueTime)}, {"client_queue_time", r.Latency(metrics.ClientQueueTime)},
		{"e2el_including_client_queue", r.Latency(metrics.E2EWithClientQueue)},
	}
}

// MarshalJSON writes the result's Fields as one JSON object, in their
// order, non-finite floats as null. Key order is fixed, so equal results
// give identical bytes.
func (r *Result) MarshalJSON() ([]byte, error) {
	var o resultWriter
	for key, v := range r.Fields() {
		o.field(key, v)
	}
	return o.end()
}

// Fields yields the members of the result's JSON object, each key with
// its typed value (a number, bool, string, nil or a struct that encodes
// itself): vLLM's field names first (duration, completed, failed,
// total_input_tokens, ..., and mean_/median_/std_/p{P}_{ttft,tpot,itl,
// e2el}_ms), then servesim's fields. A reader in the same process (a
// report, a result file's servesim block) reads them instead of parsing
// MarshalJSON's bytes.
func (r *Result) Fields() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		more := true
		field := func(key string, v any) {
			more = more && yield(key, v)
		}
		r.fields(field)
	}
}

// fields passes each member of the result's JSON object to field, in order.
func (r *Result) fields(field func(key string, v any)) {
	field("duration", r.Duration)
	field("completed", r.Completed)
	field("failed", r.Failed+r.Rejected)
	field("total_input_tokens", r.TotalInput)
	field("total_output_tokens", r.TotalOutput)
	field("request_throughput", r.RequestThroughput)
	field("request_goodput", r.RequestGoodput)
	field("output_throughput", r.OutputThroughput)
	field("total_token_throughput", r.TotalTokenThroughput)
	field("max_concurrent_requests", r.MaxConcurrent)
	for _, lm := range r.latencyMetrics() {
		field("mean_"+lm.name+"_ms", lm.s.Mean()*1000)
		field("median_"+lm.name+"_ms", lm.s.Median()*1000)
		field("std_"+lm.name+"_ms", lm.s.Std()*1000)
		for _, p := range r.Percentiles {
			field("p"+metrics.PercentileKey(p)+"_"+lm.name+"_ms", lm.s.Percentile(p)*1000)
		}
	}
	if math.IsInf(r.RequestRate, 1) {
		field("request_rate", "inf")
	} else {
		field("request_rate", r.RequestRate)
	}
	field("burstiness", r.Burstiness)
	if r.MaxConcurrency > 0 {
		field("max_concurrency", r.MaxConcurrency)
	} else {
		field("max_concurrency", nil)
	}
	// servesim's own fields.
	field("seed", r.Seed)
	field("replication", r.Replication)
	field("closed_loop", r.Closed)
	field("num_requests", r.Injected)
	field("num_warmups", r.Warmup)
	field("measured", r.Measured)
	field("rejected", r.Rejected)
	field("in_flight", r.InFlight)
	field("arrival_rate", r.ArrivalRate)
	field("send_rate", r.SendRate)
	field("slo", r.SLO)
	field("good_requests", r.Good)
	field("slo_attainment", r.Attainment)
	field("attainment_denominator", r.AttainmentDenominator)
	field("good_output_tokens", r.GoodOutputTokens)
	field("gpus", r.GPUs)
	field("goodput_per_gpu", r.GoodputPerGPU)
	field("mean_in_system", r.MeanInSystem)
	field("stability", r.Stability)
	if r.StoppedBy != StopNone {
		field("stopped_by", r.StoppedBy)
	}
	field("end_time", r.End)
	field("events", r.Events)
	for _, s := range r.Server {
		field(s.Name, s.Value)
	}
}

// resultWriter adds fields to an ordered JSON object, keeping the first
// error.
type resultWriter struct {
	obj jsonobj.Object
	err error
}

func (o *resultWriter) field(key string, v any) {
	if o.err == nil {
		o.err = o.obj.Add(key, v)
	}
}

func (o *resultWriter) end() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	return o.obj.MarshalJSON()
}
