package sim

// metrics accumulates a run's per-request counts over measured
// (non-warm-up) requests. Latency samples are built during the run only in
// summary mode; otherwise the request records are the data and
// latencySamples builds the samples from them on first use.
type metrics struct {
	slo     SLO
	summary bool
	lat     *latencySamples // summary mode only
	itl     *Sample

	measured                      int
	completed, failed, rejected   int
	good                          int
	goodOutput, totalIn, totalOut int64

	firstSend, lastSend       float64
	sends                     int
	lastEnd                   float64
	firstArrival, lastArrival float64
}

// A latency names one per-request latency metric.
type latency int

const (
	latTTFT latency = iota
	latTPOT
	latE2E
	latQueue
	latClientQueue
	latE2EWithCQ
	numLatencies
)

// value returns the metric of a completed request, and false when it is
// undefined (TPOT of a one-token response).
func (l latency) value(r *Request) (float64, bool) {
	switch l {
	case latTTFT:
		return r.TTFT(), true
	case latTPOT:
		return r.TPOT()
	case latE2E:
		return r.E2E(), true
	case latQueue:
		return r.QueueTime(), true
	case latClientQueue:
		return r.ClientQueueTime(), true
	default:
		return r.E2E() + r.ClientQueueTime(), true
	}
}

// latencySamples are the per-request latency statistics of completed,
// measured requests, one Sample per metric.
type latencySamples [numLatencies]*Sample

func newSummaryLatencies() *latencySamples {
	var l latencySamples
	for i := range l {
		l[i] = NewSummarySample()
	}
	return &l
}

// add records one completed request in every metric.
func (l *latencySamples) add(r *Request) {
	for i, s := range l {
		if v, ok := latency(i).value(r); ok {
			s.Add(v)
		}
	}
}

func (m *metrics) init(cfg *Config) {
	m.slo = cfg.SLO
	m.summary = cfg.SummaryOnly
	if m.summary {
		m.lat = newSummaryLatencies()
		m.itl = NewSummarySample()
	} else {
		m.itl = &Sample{}
	}
	m.firstSend, m.lastSend, m.lastEnd, m.firstArrival, m.lastArrival = Unset, Unset, Unset, Unset, Unset
}

// misses returns the measured requests that ended without meeting the SLO.
func (m *metrics) misses() int { return m.completed + m.failed + m.rejected - m.good }

func (m *metrics) arrived(r *Request) {
	if r.Warmup {
		return
	}
	m.measured++
	if m.firstArrival < 0 {
		m.firstArrival = r.Arrival
	}
	m.lastArrival = r.Arrival
}

func (m *metrics) sent(r *Request) {
	if r.Warmup {
		return
	}
	if m.firstSend < 0 || r.Sent < m.firstSend {
		m.firstSend = r.Sent
	}
	m.lastSend = max(m.lastSend, r.Sent)
	m.sends++
}

func (m *metrics) record(r *Request) {
	if r.Warmup {
		return
	}
	m.lastEnd = max(m.lastEnd, r.Done)
	switch r.Status {
	case Failed:
		m.failed++
		return
	case Rejected:
		m.rejected++
		return
	}
	m.completed++
	m.totalIn += int64(r.Input)
	m.totalOut += int64(r.Output)
	if m.summary {
		m.lat.add(r)
	}
	if m.slo.Passes(r) {
		m.good++
		m.goodOutput += int64(r.Output)
	}
}
