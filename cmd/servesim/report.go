package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
)

// The run file's types live with the experiment that writes them
// (scenario.RunFile); merge and the printers here use them by these names.
type (
	runOutput = scenario.RunFile
	jobRecord = scenario.RunRecord
	pointRow  = report.Row
)

// runFormat marks the JSON output of `servesim run` and `servesim merge`.
const runFormat = scenario.RunFormat

// newRunOutput describes the experiment x of sc (before any job ran).
func newRunOutput(sc *scenario.Scenario, x *scenario.Experiment, shard jobs.Shard) (*runOutput, error) {
	return sc.NewRunFile(x, shard)
}

// readRunOutput parses a run output; name is used in errors, which say
// what the file is when it is not one.
func readRunOutput(data []byte, name string) (*runOutput, error) {
	r, err := scenario.ReadRunFile(data)
	if err != nil {
		return nil, errors.New(notShard(name, data, runFormat))
	}
	return r, nil
}

// notShard says what a file given to a merge is, when it is not what the
// merge joins (want: runFormat or gridKind).
func notShard(name string, data []byte, want string) string {
	var head struct{ Format, Kind string }
	err := json.Unmarshal(data, &head)
	switch {
	case head.Kind == gridKind:
		return fmt.Sprintf("%s is a 'servesim capacity --grid --shard' output: join those with servesim capacity --merge", name)
	case head.Format == runFormat:
		return fmt.Sprintf("%s is a 'servesim run --format json' (or --shard) output: join those with servesim merge", name)
	case err != nil:
		what := "not JSON"
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			what = "JSON, but not an object"
		}
		return fmt.Sprintf("%s is %s, not a servesim %s output (%v)", name, what, shardKindText(want), err)
	case head.Format != "":
		return fmt.Sprintf("%s has format %q, not %q: not a servesim %s output", name, head.Format, want, shardKindText(want))
	default:
		return fmt.Sprintf("%s is JSON without a servesim format: not a servesim %s output", name, shardKindText(want))
	}
}

func shardKindText(kind string) string {
	if kind == gridKind {
		return "capacity --grid --shard"
	}
	return "run"
}

// readShardFile reads a file given to a merge; a directory is named as
// such.
func readShardFile(name string) ([]byte, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory: give the shard files themselves (%s/*.json)", name, strings.TrimSuffix(name, "/"))
	}
	return os.ReadFile(name)
}
