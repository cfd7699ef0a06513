package calibrate

// MaxPointRequests is the most requests one point may ask the simulator
// to re-run (its num_prompts, request count, replayed requests, or a
// closed loop's clients × rounds): 10^6, a hundred times vLLM's usual
// benchmark. A file asking for more is an input error naming the field.
const MaxPointRequests = 1_000_000

// MaxTotalRequests is the most requests all the points of one calibration
// together may ask for (appended runs, CSV rows, aiperf exports): 10^7,
// some minutes of simulation per evaluation of a fit.
const MaxTotalRequests = 10_000_000

// pointRequests returns the requests one re-simulation of pt runs, as
// Simulator.Config sizes it.
func pointRequests(pt Point) int {
	n := max(pt.NumPrompts, len(pt.Arrivals), len(pt.Lengths))
	if n == 0 && pt.Concurrency > 0 {
		n = pt.Concurrency * (DefaultRounds + DefaultWarmupRounds)
	}
	return n
}

// checkWork refuses points asking for more requests than
// MaxPointRequests each or MaxTotalRequests together.
func checkWork(points []Point) error {
	total := 0
	for _, pt := range points {
		n := pointRequests(pt)
		if n < 0 || n > MaxPointRequests {
			return invalidf("point %s asks for %d requests, more than %d (MaxPointRequests): re-simulate a smaller run", pt.ID, n, MaxPointRequests)
		}
		total += n
		if total > MaxTotalRequests {
			return invalidf("the %d points ask for more than %d requests in all (MaxTotalRequests; point %s brings the sum to %d): calibrate on fewer points or shorter runs", len(points), MaxTotalRequests, pt.ID, total)
		}
	}
	return nil
}

// countField checks a request count read from a file: 0 <= n <=
// MaxPointRequests, the error naming the field.
func countField(id, field string, n int) error {
	if n < 0 || n > MaxPointRequests {
		return invalidf("%s: %s %d must be from 0 to %d (MaxPointRequests, the most requests a point re-simulates)", id, field, n, MaxPointRequests)
	}
	return nil
}
