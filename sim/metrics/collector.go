package metrics

// Counts are a run's per-request tallies over measured (non-warm-up)
// requests.
type Counts struct {
	// Measured counts the measured requests that arrived.
	Measured int
	// Completed, Failed and Rejected count the measured requests that
	// ended each way.
	Completed, Failed, Rejected int
	// Good counts completed requests that met every SLO bound.
	Good int
	// TotalInput and TotalOutput sum the tokens of completed requests;
	// GoodOutputTokens sums the output tokens of good ones.
	TotalInput, TotalOutput, GoodOutputTokens int64
}

// Misses returns the measured requests that ended without meeting the SLO.
func (c *Counts) Misses() int { return c.Completed + c.Failed + c.Rejected - c.Good }

// Window holds the times that bound a run's measured traffic, seconds;
// each is Unset until it happens.
type Window struct {
	FirstArrival, LastArrival float64
	FirstSend, LastSend       float64
	Sends                     int
	LastEnd                   float64
}

// A Collector accumulates a run's statistics as requests arrive, are sent
// and end. Warm-up requests are left out of everything.
//
// In full mode it keeps counts and the ITL sample only: the request
// records are the data, and Latencies builds the per-request samples from
// them when asked. In summary mode it also feeds every latency into a
// sketch-backed Sample as requests end, so nothing grows with the run.
type Collector struct {
	Counts
	Window
	// ITL is the pooled inter-token latency sample, seconds.
	ITL *Sample
	// Latencies holds the per-request latency samples in summary mode,
	// nil in full mode.
	Latencies *Latencies
	// Peak counts measured output tokens in one-second windows from the
	// first measured send (vLLM's max_output_tokens_per_s).
	Peak PeakRate

	slo SLO
}

// NewCollector returns a collector judging requests against slo; summary
// selects summary mode.
func NewCollector(slo SLO, summary bool) *Collector {
	c := &Collector{slo: slo}
	if summary {
		c.Latencies = NewSummaryLatencies()
		c.ITL = NewSummarySample()
	} else {
		c.ITL = &Sample{}
	}
	c.FirstArrival, c.LastArrival, c.FirstSend, c.LastSend, c.LastEnd = Unset, Unset, Unset, Unset, Unset
	return c
}

// Arrived records r's arrival.
func (c *Collector) Arrived(r *Request) {
	if r.Warmup {
		return
	}
	c.Measured++
	if c.FirstArrival < 0 {
		c.FirstArrival = r.Arrival
	}
	c.LastArrival = r.Arrival
}

// Sent records r's send.
func (c *Collector) Sent(r *Request) {
	if r.Warmup {
		return
	}
	if c.FirstSend < 0 || r.Sent < c.FirstSend {
		c.FirstSend = r.Sent
	}
	c.Peak.Start(r.Sent)
	c.LastSend = max(c.LastSend, r.Sent)
	c.Sends++
}

// Ended records r's end (its Status says how it ended).
func (c *Collector) Ended(r *Request) {
	if r.Warmup {
		return
	}
	c.LastEnd = max(c.LastEnd, r.Done)
	switch r.Status {
	case Failed:
		c.Failed++
		return
	case Rejected:
		c.Rejected++
		return
	}
	c.Completed++
	c.TotalInput += int64(r.Input)
	c.TotalOutput += int64(r.Output)
	if c.Latencies != nil {
		c.Latencies.Add(r)
	}
	if c.slo.Passes(r) {
		c.Good++
		c.GoodOutputTokens += int64(r.Output)
	}
}
