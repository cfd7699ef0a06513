package scenario

import (
	"math"
)

// Hard limits on a scenario's sizes, each with its reason. A larger value
// is an error that names the field, the value and the limit; nothing is
// cut down silently.
const (
	// MaxRecordedRequests is the most requests a run may have when every
	// request's record is kept (summary_only false): measured over a whole
	// bench run (BenchmarkFullRecords in cmd/servesim), a request costs
	// about 290 bytes of peak heap in a steady run and 750 when every
	// request waits in the engine at once (a burst), so a run at the limit
	// holds 2.9 to 7.5 GB, once per parallel worker. summary_only keeps
	// quantile sketches instead, and memory then follows the requests in
	// the system.
	MaxRecordedRequests = 10_000_000
	// MaxRequests is the most requests a run may have in summary mode: a
	// run at the limit already takes ten minutes or more (about two
	// million simulated requests per second at best). Run replications
	// for more precision.
	MaxRequests = 1_000_000_000
	// MaxJobs is the most jobs (sweep points × replications) an experiment
	// may have: every job's result is kept for the table, the CSV and
	// merge, about 4 KB of JSON each, so 400 MB at the limit. Split a
	// larger experiment into several files.
	MaxJobs = 100_000
	// MaxInSystem is the backlog at which a summary-mode run of more than
	// MaxRecordedRequests requests stops as unstable, unless max_in_system
	// says otherwise: sketches keep memory to the requests in the system,
	// and an overloaded run (or rate inf) would hold them all, about 170
	// bytes each. Smaller runs never reach it.
	MaxInSystem = MaxRecordedRequests
	// MaxReplicas is the most engine replicas (server.replicas) a run may
	// simulate: each has its own scheduler, KV pool and counters, and the
	// largest deployments run hundreds.
	MaxReplicas = 1024
	// MaxServers is the most FCFS servers (server.servers): their state is
	// allocated up front, 8 bytes each, so 8 MB at the limit.
	MaxServers = 1_000_000
)

// checkSize rejects request counts above the limits, and a horizon-bound
// open loop whose expected arrivals exceed them.
func (s *Scenario) checkSize() error {
	limit, why := MaxRecordedRequests, "the limit with every request's record kept (about 290 bytes each in a steady run, 750 in a burst: 2.9 to 7.5 GB at the limit); set summary_only: true to keep quantile sketches instead"
	if s.SummaryOnly {
		limit, why = MaxRequests, "the limit in summary mode (a run that long takes ten minutes or more); run replications instead"
	}
	if s.Requests > limit {
		return fieldErr("requests", "%d exceeds %d, %s", s.Requests, limit, why)
	}
	if a := s.Workload.Arrival; s.Requests == 0 && s.Horizon > 0 && a != nil {
		rate := float64(a.Rate)
		if a.Process == "ramp" {
			rate = math.Max(a.Start, a.End)
		}
		if n := rate * s.Horizon; n > float64(limit) {
			return fieldErr("horizon", "%v s at %v requests/s brings about %.3g requests, more than %d, %s (or set requests)", s.Horizon, rate, n, limit, why)
		}
	}
	if s.Replications > MaxJobs {
		return fieldErr("replications", "%d exceeds %d, the most jobs an experiment may run (every job's result is kept, about 4 KB each): split it into several files", s.Replications, MaxJobs)
	}
	return nil
}

// checkJobs rejects an experiment of more than MaxJobs jobs.
func (s *Scenario) checkJobs(points int) error {
	if points == 1 {
		return s.checkSize()
	}
	if n := points * s.Replications; n > MaxJobs {
		return fieldErr("replications", "%d replications × %d sweep points = %d jobs exceed %d, the most an experiment may run (every job's result is kept, about 4 KB each): split it into several files",
			s.Replications, points, n, MaxJobs)
	}
	return nil
}
