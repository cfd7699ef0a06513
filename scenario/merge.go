package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/servesim/servesim/sim/event"
)

// MergeRunFiles joins the run files of one scenario's shards (names[i]
// is the file outs[i] was read from, for errors) into the run file of the
// whole experiment, Shard "0/1", its results sorted by point and
// replication. Every job must be present exactly once, and all files must
// describe the same experiment: scenario digest, jobs, replications,
// sweep, summary mode and base seed.
func MergeRunFiles(outs []*RunFile, names []string) (*RunFile, error) {
	if len(outs) == 0 || len(names) != len(outs) {
		return nil, fmt.Errorf("merge: %d run files and %d names: want one name for each of at least one file", len(outs), len(names))
	}
	first := outs[0]
	m := *first
	m.Shard = "0/1"
	m.Results = nil
	seen := map[int]string{}
	var base uint64
	baseFrom := ""
	for i, o := range outs {
		if err := sameExperiment(first, o); err != nil {
			return nil, fmt.Errorf("%s and %s: %w", names[0], names[i], err)
		}
		for _, r := range o.Results {
			if r.Job < 0 || r.Job >= m.Jobs {
				return nil, fmt.Errorf("%s: job %d out of range [0, %d)", names[i], r.Job, m.Jobs)
			}
			if m.Replications < 1 || r.Replication < 0 || r.Replication >= m.Replications || r.Point != r.Job/m.Replications || r.Replication != r.Job%m.Replications {
				return nil, fmt.Errorf("%s: job %d has point %d and replication %d, want point %d and replication %d of %d: the file was altered", names[i], r.Job, r.Point, r.Replication, r.Job/max(m.Replications, 1), r.Job%max(m.Replications, 1), m.Replications)
			}
			// Every replication's seed derives from the experiment's one
			// base seed (event.ReplicationSeed); a result run with another
			// seed is another experiment.
			if b := event.ReplicationBase(r.Seed, r.Replication); baseFrom == "" {
				base, baseFrom = b, names[i]
			} else if b != base {
				return nil, fmt.Errorf("%s: job %d's seed %d is not replication %d of the base seed of %s's results: run every shard with the same --seed", names[i], r.Job, r.Seed, r.Replication, baseFrom)
			}
			if prev, dup := seen[r.Job]; dup {
				return nil, fmt.Errorf("job %d is in both %s and %s", r.Job, prev, names[i])
			}
			seen[r.Job] = names[i]
			m.Results = append(m.Results, r)
		}
	}
	if len(m.Results) != m.Jobs {
		var missing []string
		for j := 0; j < m.Jobs && len(missing) < 10; j++ {
			if _, ok := seen[j]; !ok {
				missing = append(missing, fmt.Sprint(j))
			}
		}
		return nil, fmt.Errorf("%d of %d jobs missing (jobs %s...): merge the outputs of every shard", m.Jobs-len(m.Results), m.Jobs, strings.Join(missing, ", "))
	}
	slices.SortFunc(m.Results, func(a, b RunRecord) int {
		if a.Point != b.Point {
			return a.Point - b.Point
		}
		return a.Replication - b.Replication
	})
	return &m, nil
}

// sameExperiment reports how two outputs differ in what they describe.
func sameExperiment(a, b *RunFile) error {
	switch {
	case a.Digest != b.Digest:
		return fmt.Errorf("different scenario files (digests %s, %s)", a.Digest, b.Digest)
	case a.Jobs != b.Jobs || a.Replications != b.Replications || a.Param != b.Param:
		return errors.New("different experiments (jobs, replications or sweep)")
	case a.SummaryOnly != b.SummaryOnly:
		return errors.New("one ran in summary mode (quantile sketches) and the other did not: run every shard with or every shard without --summary-only")
	}
	va, _ := json.Marshal(a.Values)
	vb, _ := json.Marshal(b.Values)
	if !bytes.Equal(va, vb) {
		return errors.New("different sweep values")
	}
	return nil
}
