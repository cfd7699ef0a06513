package metrics

// A Series is a bounded time series of a server's counters, sampled
// against simulated time. Servers keep one with Record; its memory is
// bounded by MaxSeriesPoints whatever the run's length: when full, every
// other point is dropped and the sampling interval doubles.
type Series struct {
	// Name says whose counters these are (a replica, say).
	Name string `json:"name"`
	// Names are the counters, in the order of each row of Values.
	Names []string `json:"names"`
	// Times are the sample times in seconds, increasing.
	Times []float64 `json:"times"`
	// Values[i] holds the counters at Times[i].
	Values [][]float64 `json:"values"`

	interval, next float64
}

// MaxSeriesPoints bounds a Series' length.
const MaxSeriesPoints = 512

// NewSeries returns an empty series of the named counters, sampled at most
// every interval seconds at first (the interval grows as the run does).
func NewSeries(name string, interval float64, names ...string) *Series {
	return &Series{Name: name, Names: names, interval: interval}
}

// Due reports whether a sample at time t would be kept; callers can skip
// computing the values otherwise.
func (s *Series) Due(t float64) bool { return t >= s.next }

// Record adds the counters at time t if a sample is due, copying values.
func (s *Series) Record(t float64, values ...float64) {
	if t < s.next {
		return
	}
	if len(s.Times) == MaxSeriesPoints {
		k := 0
		for i := 0; i < len(s.Times); i += 2 {
			s.Times[k], s.Values[k] = s.Times[i], s.Values[i]
			k++
		}
		for i := k; i < len(s.Values); i++ {
			s.Values[i] = nil
		}
		s.Times, s.Values = s.Times[:k], s.Values[:k]
		s.interval *= 2
	}
	s.Times = append(s.Times, t)
	s.Values = append(s.Values, append([]float64(nil), values...))
	s.next = t + s.interval
}
