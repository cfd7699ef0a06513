package metrics

import "slices"

// PeakConcurrent returns the most completed, measured (not warm-up)
// requests in flight at once, from their records: the largest count of
// those sent but not done, where a request that ends at the instant
// another is sent is not counted with it. It keeps two time arrays (16
// bytes a request) and sorts them; the records are not modified.
func PeakConcurrent(rs []Request) int {
	n := 0
	for i := range rs {
		if r := &rs[i]; !r.Warmup && r.Status == Completed {
			n++
		}
	}
	sent, done := make([]float64, 0, n), make([]float64, 0, n)
	for i := range rs {
		if r := &rs[i]; !r.Warmup && r.Status == Completed {
			sent, done = append(sent, r.Sent), append(done, r.Done)
		}
	}
	if !slices.IsSorted(sent) { // records in ID order are in send order, mostly
		slices.Sort(sent)
	}
	slices.Sort(done)
	in, peak, j := 0, 0, 0
	for _, s := range sent {
		for j < len(done) && done[j] <= s { // ends first at equal times
			in--
			j++
		}
		in++
		peak = max(peak, in)
	}
	return peak
}
