package metrics

import "slices"

// PeakConcurrent returns the most completed, measured (not warm-up)
// requests in flight at once, from their records: the largest count of
// those sent but not done, where a request that ends at the instant
// another is sent is not counted with it. It sorts the done times in a
// buffer lent for the call (8 bytes a request, shared with the
// percentiles of FromRecords samples); the send times are read from the
// records where they are in send order (records in ID order mostly are),
// else copied and sorted too (8 bytes a request more). The records are
// not modified.
func PeakConcurrent(rs []Request) int {
	n, inOrder, last := 0, true, 0.0
	for i := range rs {
		if r := &rs[i]; measured(r) {
			if n > 0 && r.Sent < last {
				inOrder = false
			}
			n++
			last = r.Sent
		}
	}
	buf := borrow(len(rs)) // the records' count, as FromRecords samples borrow, so one buffer serves both
	defer giveBack(buf)
	done := *buf
	var sent []float64
	if !inOrder {
		sent = make([]float64, 0, n)
	}
	for i := range rs {
		if r := &rs[i]; measured(r) {
			done = append(done, r.Done)
			if !inOrder {
				sent = append(sent, r.Sent)
			}
		}
	}
	*buf = done
	slices.Sort(done)
	in, peak, j := 0, 0, 0
	add := func(s float64) {
		for j < len(done) && done[j] <= s { // ends first at equal times
			in--
			j++
		}
		in++
		peak = max(peak, in)
	}
	if inOrder {
		for i := range rs {
			if r := &rs[i]; measured(r) {
				add(r.Sent)
			}
		}
		return peak
	}
	slices.Sort(sent)
	for _, s := range sent {
		add(s)
	}
	return peak
}

// measured reports whether r counts in PeakConcurrent: completed, not
// warm-up.
func measured(r *Request) bool { return !r.Warmup && r.Status == Completed }
