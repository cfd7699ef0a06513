package metrics

// A Latency names one per-request latency metric.
type Latency int

// The per-request latency metrics, in the order results report them:
// vLLM's TTFT, TPOT and E2E, then servesim's queue times.
const (
	TTFT               Latency = iota // FirstToken − Sent
	TPOT                              // (Done − FirstToken)/(Output − 1), Output > 1 only
	E2E                               // Done − Sent (vLLM's e2el)
	QueueTime                         // Start − Sent: at the server before any work
	ClientQueueTime                   // Sent − Arrival: held by a max_concurrency cap
	E2EWithClientQueue                // E2E + ClientQueueTime (vLLM's e2el_including_client_queue)
	NumLatencies                      // the number of metrics above
)

var latencyNames = [NumLatencies]string{"ttft", "tpot", "e2el", "queue_time", "client_queue_time", "e2el_including_client_queue"}

// String returns the metric's name in result fields ("ttft", "e2el", ...).
func (l Latency) String() string {
	if l >= 0 && l < NumLatencies {
		return latencyNames[l]
	}
	return "unknown"
}

// Of returns the metric of a completed request, seconds, and false when it
// is undefined (TPOT of a one-token response).
func (l Latency) Of(r *Request) (float64, bool) {
	switch l {
	case TTFT:
		return r.TTFT(), true
	case TPOT:
		return r.TPOT()
	case E2E:
		return r.E2E(), true
	case QueueTime:
		return r.QueueTime(), true
	case ClientQueueTime:
		return r.ClientQueueTime(), true
	default:
		return r.E2E() + r.ClientQueueTime(), true
	}
}

// Latencies holds one Sample per latency metric of completed, measured
// requests.
type Latencies [NumLatencies]*Sample

// NewSummaryLatencies returns sketch-backed samples for every metric.
func NewSummaryLatencies() *Latencies {
	var l Latencies
	for i := range l {
		l[i] = NewSummarySample()
	}
	return &l
}

// Add records one completed request in every metric.
func (l *Latencies) Add(r *Request) {
	for i, s := range l {
		if v, ok := Latency(i).Of(r); ok {
			s.Add(v)
		}
	}
}

// FromRecords returns the exact sample of metric l over the completed,
// measured requests among records. It computes the moments now and reads
// the values from records when asked for them: each percentile selects
// them afresh in a buffer lent for the call and shared with other such
// work (8 bytes a value while it runs), so samples of several metrics of
// one run cost that much together, not each. records must not change
// while the sample is in use.
func FromRecords(l Latency, records []Request) *Sample {
	s := &Sample{recs: records, lat: l}
	for i := range records {
		q := &records[i]
		if q.Warmup || q.Status != Completed {
			continue
		}
		if v, ok := l.Of(q); ok {
			s.moments(v, 1)
		}
	}
	if s.n == 0 {
		s.recs = nil // nothing to read: an empty exact sample
	}
	return s
}
