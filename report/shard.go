package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/scenario"
)

// ReadRunShard reads a file given to servesim merge: a run output
// (scenario.ReadRunFile). The errors say what the file is when it is not
// one (a directory, a capacity grid shard, not JSON, ...).
func ReadRunShard(name string) (*scenario.RunFile, error) {
	data, err := readShardFile(name)
	if err != nil {
		return nil, err
	}
	r, err := scenario.ReadRunFile(data)
	if err != nil {
		return nil, errors.New(notShard(name, data, scenario.RunFormat))
	}
	return r, nil
}

// ReadGridShard reads a file given to servesim capacity --merge: a
// --grid --shard output (capacity.ReadGridShard), its errors as
// ReadRunShard's.
func ReadGridShard(name string) (capacity.GridShard, error) {
	data, err := readShardFile(name)
	if err != nil {
		return capacity.GridShard{}, err
	}
	g, err := capacity.ReadGridShard(data)
	if err != nil {
		return g, errors.New(notShard(name, data, capacity.GridKind))
	}
	return g, nil
}

// notShard says what a file given to a merge is, when it is not what the
// merge joins (want: scenario.RunFormat or capacity.GridKind).
func notShard(name string, data []byte, want string) string {
	var head struct{ Format, Kind string }
	err := json.Unmarshal(data, &head)
	switch {
	case head.Kind == capacity.GridKind:
		return fmt.Sprintf("%s is a 'servesim capacity --grid --shard' output: join those with servesim capacity --merge", name)
	case head.Format == scenario.RunFormat:
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
	if kind == capacity.GridKind {
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
