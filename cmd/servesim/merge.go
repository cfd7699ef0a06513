package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/servesim/servesim/sim/event"
	"slices"
	"strings"
)

const mergeUsage = `Usage: servesim merge SHARD.json... [flags]

Joins the JSON outputs of 'servesim run --shard i/n' (or any run outputs of
one scenario) into one result set, sorted by point and replication, and
prints it like an unsharded 'servesim run': the same table, CSV or JSON.
Every job must be present exactly once, and all files must come from the
same scenario file.
`

// runMerge is `servesim merge`.
func runMerge(args []string, e *env) error {
	var o runOptions
	fs := newFlagSet("merge")
	groups := o.define(fs, false)
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, mergeUsage)
		printFlags(e.stdout, fs, groups)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return errors.New("merge: no files given (usage: servesim merge SHARD.json... [flags])")
	}
	if err := checkOutputFlags(&o); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	outs := make([]*runOutput, len(pos))
	for i, name := range pos {
		data, err := readShardFile(name)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if outs[i], err = readRunOutput(data, name); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	merged, err := mergeOutputs(outs, pos)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return writeRunOutput(e.stdout, merged, &o)
}

// mergeOutputs joins run outputs of one scenario into the output of the
// whole experiment.
func mergeOutputs(outs []*runOutput, names []string) (*runOutput, error) {
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
	slices.SortFunc(m.Results, func(a, b jobRecord) int {
		if a.Point != b.Point {
			return a.Point - b.Point
		}
		return a.Replication - b.Replication
	})
	return &m, nil
}

// sameExperiment reports how two outputs differ in what they describe.
func sameExperiment(a, b *runOutput) error {
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
