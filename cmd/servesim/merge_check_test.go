package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// merge checks each shard's results against the experiment: a seed not
// derived from the experiment's base seed, or a replication index out of
// range, is refused naming the file and the job.
func TestMergeChecksSeedsAndIndices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := scenarioFile(t, dir, "s.yaml", "requests: 20\nreplications: 2\nworkload:\n  arrival: {rate: 5}\n")
	var files []string
	for _, shard := range []string{"0/2", "1/2"} {
		out := mustRunCLI(t, "run", "--quiet", sc, "--shard", shard, "--format", "json")
		path := filepath.Join(dir, strings.Replace(shard, "/", "of", 1)+".json")
		if err := os.WriteFile(path, []byte(out.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	if r := runCLI(append([]string{"merge", "--format", "json"}, files...)...); r.code != 0 {
		t.Fatalf("merging the shards: %s", r.stderr)
	}
	body, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, pattern, repl, want string
	}{
		{"altered seed", `"seed": *[0-9]+`, `"seed": 12345`, "is not replication 1 of the base seed"},
		{"replication out of range", `"replication": *1`, `"replication": 7`, "has point 0 and replication 7, want point 0 and replication 1 of 2"},
	} {
		re := regexp.MustCompile(tc.pattern)
		if !re.Match(body) {
			t.Fatalf("%s: %q not in the shard output", tc.name, tc.pattern)
		}
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, re.ReplaceAll(body, []byte(tc.repl)), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCLI("merge", "--format", "json", files[0], bad)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %q", tc.name, r.code, r.stderr, tc.want)
		}
	}
}

// capacity --merge checks its grid shards the same way.
func TestCapacityMergeChecksSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for _, shard := range []string{"0/2", "1/2"} {
		out := mustRunCLI(t, "capacity", "--quiet", "--goodput", "ttft:500", "--num-prompts", "20", "--grid", "5,10", "--replications", "2", "--shard", shard)
		path := filepath.Join(dir, strings.Replace(shard, "/", "of", 1)+".json")
		if err := os.WriteFile(path, []byte(out.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	if r := runCLI(append([]string{"capacity", "--merge"}, files...)...); r.code != 0 {
		t.Fatalf("merging the shards: %s", r.stderr)
	}
	body, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, pattern, repl, want string }{
		{"altered seed", `"seed": *[0-9]+`, `"seed": 12345`, "is not replication 1 of the base seed"},
		{"point out of range", `"point": *1`, `"point": 9`, "the file was altered"},
	} {
		re := regexp.MustCompile(tc.pattern)
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, re.ReplaceAll(body, []byte(tc.repl)), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCLI("capacity", "--merge", files[0], bad)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %q", tc.name, r.code, r.stderr, tc.want)
		}
	}
}
