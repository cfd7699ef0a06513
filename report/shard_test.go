package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadShards: a merge's files read back as what they are, and each
// wrong file's error says what it is instead.
func TestReadShards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	grid := write("grid.json", `{"kind": "servesim-capacity-grid"}`)
	run := write("run.json", `{"format": "servesim-run/1"}`)
	tests := []struct {
		name      string
		readGrid  bool
		wantError string
	}{
		{dir, false, " is a directory: give the shard files themselves ("},
		{filepath.Join(dir, "missing.json"), true, "no such file"},
		{write("text.json", "hello"), false, " is not JSON, not a servesim run output ("},
		{write("list.json", "[1]"), true, " is JSON, but not an object, not a servesim capacity --grid --shard output ("},
		{write("other.json", `{"format": "x/1"}`), false, ` has format "x/1", not "`},
		{write("bare.json", `{}`), true, " is JSON without a servesim format: not a servesim capacity --grid --shard output"},
		{grid, false, " is a 'servesim capacity --grid --shard' output: join those with servesim capacity --merge"},
		{run, true, " is a 'servesim run --format json' (or --shard) output: join those with servesim merge"},
	}
	for _, tt := range tests {
		var err error
		if tt.readGrid {
			_, err = ReadGridShard(tt.name)
		} else {
			_, err = ReadRunShard(tt.name)
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantError) {
			t.Errorf("%s (grid %v): error %v, want one with %q", filepath.Base(tt.name), tt.readGrid, err, tt.wantError)
		}
	}
	if _, err := ReadRunShard(rateSweepFile); err != nil {
		t.Errorf("ReadRunShard(%s), a run output: %v", rateSweepFile, err)
	}
}
