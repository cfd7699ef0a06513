package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// String describes the rule's SLO and target: "TTFT <= 200 ms, TPOT <= 50
// ms for >= 99% of requests".
func (c Criteria) String() string {
	return fmt.Sprintf("%s for >= %g%% of requests", c.SLO, 100*c.Target)
}

// A Report is the outcome of a search or a grid of rates as `servesim
// capacity` prints it: what ran, the rule, every probe and the bracket.
type Report struct {
	// Scenario and Server name what ran; Workload describes the arrivals
	// and lengths probed at each rate ("": not known); PricedBy what priced
	// the server (cost.Profile.Pricing; "": nothing).
	Scenario, Server, Workload, PricedBy string
	Criteria                             Criteria
	Points                               []Point
	// Lower and Upper are the bracket (Bracket): Upper is +Inf when no
	// probe failed.
	Lower, Upper float64
	// Runs and Requests count the runs and the requests simulated
	// (Requests 0: not counted, as for merged shards).
	Runs     int
	Requests int64
}

// NewGridReport judges a whole grid's results by crit and brackets them.
func NewGridReport(crit Criteria, results []JobResult) Report {
	r := Report{Criteria: crit, Points: Judge(crit, results), Runs: len(results)}
	r.Lower, r.Upper = Bracket(r.Points)
	for _, res := range results {
		r.Requests += int64(res.Result.Injected)
	}
	return r
}

// WriteText writes the criteria line, the workload (when known), the
// probe table (WriteTable) and what priced the server.
func (r Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "capacity of %s: %s\n", r.Server, r.Criteria)
	if r.Workload != "" {
		fmt.Fprintf(w, "workload: %s\n", r.Workload)
	}
	if err := WriteTable(w, r.Criteria, r.Points, r.Lower, r.Upper); err != nil {
		return err
	}
	if r.PricedBy != "" {
		_, err := fmt.Fprintf(w, "priced by: %s\n", r.PricedBy)
		return err
	}
	return nil
}

// WriteJSON writes the report as indented JSON, an unbounded end of the
// bracket as null.
func (r Report) WriteJSON(w io.Writer) error {
	finite := func(x float64) any {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return x
	}
	b, err := json.MarshalIndent(struct {
		Criteria Criteria `json:"criteria"`
		Lower    any      `json:"lower"`
		Points   []Point  `json:"points"`
		PricedBy string   `json:"priced_by,omitempty"`
		Requests int64    `json:"requests"`
		Runs     int      `json:"runs"`
		Scenario string   `json:"scenario"`
		Server   string   `json:"server"`
		Upper    any      `json:"upper"`
	}{r.Criteria, finite(r.Lower), r.Points, r.PricedBy, r.Requests, r.Runs, r.Scenario, r.Server, finite(r.Upper)}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// MergeGridReport joins a grid's shards (MergeGrid; names label them in
// errors) into its Report: the first shard's scenario, server, workload,
// pricing and criteria, the merged points, their bracket and the runs
// they hold (Requests stays 0: a shard does not count them).
func MergeGridReport(shards []GridShard, names []string) (Report, error) {
	points, err := MergeGrid(shards, names)
	if err != nil {
		return Report{}, err
	}
	first := shards[0]
	r := Report{Scenario: first.Scenario, Server: first.Server, Workload: first.Workload, PricedBy: first.PricedBy, Criteria: first.Criteria, Points: points}
	r.Lower, r.Upper = Bracket(points)
	for _, p := range points {
		r.Runs += len(p.Runs)
	}
	return r, nil
}
