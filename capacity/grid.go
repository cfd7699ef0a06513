package capacity

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim/event"
)

// GridKind marks a GridShard's JSON.
const GridKind = "servesim-capacity-grid"

// ErrNotGridShard is matched by ReadGridShard's error for JSON that is not
// a GridShard.
var ErrNotGridShard = errors.New("not a " + GridKind + " file")

// A GridShard is the outcome of one shard of a grid sweep (a Sweep over
// fixed rates, `servesim capacity --grid --shard`): what the grid is and
// each of its jobs' verdicts, so shards merge without their results.
type GridShard struct {
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"`
	Server   string `json:"server"`
	Workload string `json:"workload,omitempty"`
	// Criteria judged every job; Grid is the rates (requests/s).
	Criteria     Criteria  `json:"criteria"`
	Grid         []float64 `json:"grid"`
	Replications int       `json:"replications"`
	Shard        string    `json:"shard"`
	// PricedBy says what priced the simulated server (cost.Profile.Pricing);
	// empty for a server without a cost model.
	PricedBy string    `json:"priced_by,omitempty"`
	Jobs     []GridJob `json:"jobs"`
}

// A GridJob is one job of a grid and its verdict.
type GridJob struct {
	Job
	Verdict Verdict `json:"verdict"`
}

// NewGridShard judges the results of shard sh of the grid rates × reps by
// crit; scenario, server and workload describe what ran.
func NewGridShard(scenario, server, workload string, crit Criteria, rates []float64, reps int, sh jobs.Shard, results []JobResult) GridShard {
	g := GridShard{Kind: GridKind, Scenario: scenario, Server: server, Workload: workload, Criteria: crit,
		Grid: rates, Replications: reps, Shard: sh.String()}
	for _, r := range results {
		g.Jobs = append(g.Jobs, GridJob{Job: r.Job, Verdict: crit.Judge(r.Result, r.Value)})
	}
	return g
}

// ReadGridShard parses a GridShard's JSON; other JSON fails matching
// ErrNotGridShard.
func ReadGridShard(data []byte) (GridShard, error) {
	var g GridShard
	if err := json.Unmarshal(data, &g); err != nil {
		return GridShard{}, fmt.Errorf("%w: %v", ErrNotGridShard, err)
	}
	if g.Kind != GridKind {
		return GridShard{}, fmt.Errorf("%w: kind %q", ErrNotGridShard, g.Kind)
	}
	return g, nil
}

// MergeGrid joins the shards of one grid (names label them in errors) into
// its points, in rate order, each with its replications' verdicts in
// replication order. It fails when a shard comes from another grid or
// scenario, a job appears twice, or a job is missing.
func MergeGrid(shards []GridShard, names []string) ([]Point, error) {
	if len(shards) == 0 {
		return nil, errors.New("no grid shards to merge")
	}
	first := shards[0]
	seen := map[int]bool{}
	byPoint := map[int]*Point{}
	var base uint64
	baseFrom := ""
	for i, g := range shards {
		if g.Scenario != first.Scenario || g.Server != first.Server || !slices.Equal(g.Grid, first.Grid) || g.Replications != first.Replications {
			return nil, fmt.Errorf("%s comes from another grid or scenario than %s", names[i], names[0])
		}
		for _, j := range g.Jobs {
			// Each job must be the one its index names in this grid, run
			// with a seed of the experiment's one base seed.
			reps := max(first.Replications, 1)
			switch {
			case first.Replications < 1 || j.Index < 0 || j.Index >= len(first.Grid)*first.Replications ||
				j.Point != j.Index/reps || j.Replication != j.Index%reps || j.Value != first.Grid[j.Point]:
				return nil, fmt.Errorf("%s: job %d (point %d, replication %d, rate %v) is not job %d of a grid of %d rates × %d replications: the file was altered",
					names[i], j.Index, j.Point, j.Replication, j.Value, j.Index, len(first.Grid), first.Replications)
			case baseFrom == "":
				base, baseFrom = event.ReplicationBase(j.Seed, j.Replication), names[i]
			case event.ReplicationBase(j.Seed, j.Replication) != base:
				return nil, fmt.Errorf("%s: job %d's seed %d is not replication %d of the base seed of %s's jobs: run every shard with the same --seed", names[i], j.Index, j.Seed, j.Replication, baseFrom)
			}
			if seen[j.Index] {
				return nil, fmt.Errorf("job %d appears twice (%s)", j.Index, names[i])
			}
			seen[j.Index] = true
			p, ok := byPoint[j.Point]
			if !ok {
				p = &Point{Rate: j.Value, Pass: true, MinAttainment: math.Inf(1)}
				byPoint[j.Point] = p
			}
			p.Runs = append(p.Runs, j.Verdict)
			p.Pass = p.Pass && j.Verdict.Pass
			p.MinAttainment = math.Min(p.MinAttainment, j.Verdict.Attainment)
		}
	}
	if want := len(first.Grid) * first.Replications; len(seen) != want {
		return nil, fmt.Errorf("the shard files hold %d of the grid's %d jobs: a shard is missing", len(seen), want)
	}
	points := make([]Point, 0, len(first.Grid))
	for i := range first.Grid {
		p := byPoint[i]
		slices.SortFunc(p.Runs, func(a, b Verdict) int { return a.Replication - b.Replication })
		points = append(points, *p)
	}
	return points, nil
}
