package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A publishedCommand is one line of testdata/published/commands.tsv: a
// `vllm bench serve` line as its source printed it, the `vllm serve`
// line of the same source ("" for none) and the GPU the source names
// ("" for servesim's default).
type publishedCommand struct {
	source, bench, serve, gpu, skip string
}

// readPublished reads testdata/published/commands.tsv.
func readPublished(t *testing.T) []publishedCommand {
	t.Helper()
	f, err := os.Open("testdata/published/commands.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []publishedCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 5 {
			t.Fatalf("commands.tsv:%d: %d columns, want 5", n, len(c))
		}
		for i := range c {
			if c[i] == "-" {
				c[i] = ""
			}
		}
		p := publishedCommand{source: c[0], bench: c[1], serve: c[2], gpu: c[3]}
		if r, ok := strings.CutPrefix(c[4], "skip: "); ok {
			p.skip = r
		}
		if !strings.HasPrefix(p.source, "https://") || !strings.HasPrefix(p.bench, "vllm bench serve") ||
			(p.serve != "" && !strings.HasPrefix(p.serve, "vllm serve ")) {
			t.Fatalf("commands.tsv:%d: want a source URL, a vllm bench serve line and a vllm serve line or -", n)
		}
		out = append(out, p)
	}
	return out
}

// servedEngineFlags are the `vllm serve` flags a published serve line
// passes on to the simulated engine; the rest of a serve line (parsers,
// ports, kernels, chat templates) changes nothing servesim models.
var servedEngineFlags = map[string]bool{
	"--tensor-parallel-size": true, "-tp": true, "--tensor_parallel_size": true, "--data-parallel-size": true, "-dp": true,
	"--pipeline-parallel-size": true, "--enable-expert-parallel": false, "--max-model-len": true, "--max-num-seqs": true,
	"--max-num-batched-tokens": true, "--gpu-memory-utilization": true, "--kv-cache-dtype": true, "--quantization": true,
	"--no-enable-prefix-caching": false, "--enable-prefix-caching": false, "--no-enable-chunked-prefill": false,
	"--block-size": true, "--dtype": true,
}

// engineArgs returns the flags of a serve line that servedEngineFlags
// keeps, with their values (a true entry takes one).
func engineArgs(serve string) []string {
	words := shellWords(serve)
	var out []string
	for i := 3; i < len(words); i++ { // after "vllm serve MODEL"
		name, _, inline := strings.Cut(words[i], "=")
		takes, ok := servedEngineFlags[name]
		if !ok {
			continue
		}
		out = append(out, words[i])
		if takes && !inline && i+1 < len(words) {
			i++
			out = append(out, words[i])
		}
	}
	return out
}

// publishedPlaceholders fills what a published line leaves to its
// reader: its data paths and shell variables (vllmPlaceholders) and the
// recipes' $TP, $MAX_MODEL_LEN, $MASTER_IP.
func publishedPlaceholders(data string) func(string) string {
	fill := vllmPlaceholders(data)
	more := strings.NewReplacer("$TP", "1", "$MAX_MODEL_LEN", "8192", "$MASTER_IP", "10.0.0.1", "${YAML_CONFIG}", "config.yaml")
	return func(s string) string { return more.Replace(fill.Replace(s)) }
}

// unknownModel marks the error of a --model the registry lacks.
const unknownModel = "is not in servesim's registry"

// TestPublishedCommands runs every published command line of
// testdata/published/commands.tsv through servesim bench, unchanged but
// for its placeholders, against the engine its source's `vllm serve` line
// sets up: each prints vLLM's result block and, when it saves one, a
// result JSON with the keys, order and types of vLLM's. A line fails
// only if its model is not in the registry yet (counted, and logged for
// the registry's growth); at least 38 must run, and at most 2 may be
// skipped, for the reason the table prints.
func TestPublishedCommands(t *testing.T) {
	t.Parallel()
	cmds := readPublished(t)
	if len(cmds) < 40 {
		t.Fatalf("%d published lines, want at least 40", len(cmds))
	}
	data, err := filepath.Abs("testdata/vllmdata")
	if err != nil {
		t.Fatal(err)
	}
	sonnet, err := os.ReadFile(filepath.Join(data, "sonnet.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sharegpt, err := os.ReadFile(filepath.Join(data, "ShareGPT_V3_unfiltered_cleaned_split.json"))
	if err != nil {
		t.Fatal(err)
	}
	fill := publishedPlaceholders(data)
	var mu sync.Mutex
	ran, skipped := 0, 0
	var missing []string
	// outcome[i] is what line i+1 did: "runs", or "needs `MODEL`".
	outcome := make([]string, len(cmds))
	t.Run("lines", func(t *testing.T) {
		for i, c := range cmds {
			t.Run(fmt.Sprint(i+1), func(t *testing.T) {
				if c.skip != "" {
					mu.Lock()
					skipped++
					mu.Unlock()
					t.Skip(c.skip)
				}
				t.Parallel()
				words := shellWords(fill(c.bench))
				args := append([]string{"bench"}, words[3:]...)
				args = append(args, engineArgs(fill(c.serve))...)
				if c.gpu != "" {
					args = append(args, "--gpu", c.gpu)
				}
				dir := t.TempDir()
				// Relative paths in the lines: ./sonnet.txt, benchmarks/ShareGPT....
				os.Mkdir(filepath.Join(dir, "benchmarks"), 0o755)
				for name, b := range map[string][]byte{"sonnet.txt": sonnet, "benchmarks/ShareGPT_V3_unfiltered_cleaned_split.json": sharegpt} {
					if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				r := servesimIn(t, dir, nil, args...)
				if r.code != 0 {
					if strings.Contains(r.stderr, unknownModel) {
						mu.Lock()
						outcome[i] = "needs"
						missing = append(missing, fmt.Sprintf("line %d (%s): %s", i+1, c.source, strings.TrimSpace(r.stderr)))
						mu.Unlock()
						return
					}
					t.Fatalf("%s\n%s: exit %d\n%s", c.source, c.bench, r.code, r.stderr)
				}
				if !strings.Contains(r.stdout, "============ Serving Benchmark Result ============\n") {
					t.Fatalf("%s: no summary block", c.source)
				}
				var files []string
				filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasPrefix(d.Name(), "ShareGPT") {
						files = append(files, p)
					}
					return nil
				})
				saves := slices.Contains(args, "--save-result") || slices.Contains(args, "--append-result")
				if saves != (len(files) == 1) {
					t.Fatalf("%s: result files %v, want one exactly when the line saves", c.source, files)
				}
				if saves {
					got, err := os.ReadFile(files[0])
					if err != nil {
						t.Fatal(err)
					}
					checkVLLMKeys(t, c.source, got, vllmKeys(t, args))
				}
				mu.Lock()
				ran++
				outcome[i] = "runs"
				mu.Unlock()
			})
		}
	})
	// The table in docs/cli.md says what each line does today.
	doc, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outcome {
		if o == "" {
			continue
		}
		_, row, _ := strings.Cut(string(doc), fmt.Sprintf("\n| %d | [", i+1))
		row, _, _ = strings.Cut(row, "\n")
		cells := strings.Split(row, " | ")
		status := strings.TrimSuffix(cells[len(cells)-1], " |")
		if (o == "runs") != strings.HasPrefix(status, "runs") {
			t.Errorf("docs/cli.md row %d says %q, but the line %s today", i+1, status, map[bool]string{true: "runs", false: "waits for a model the registry lacks"}[o == "runs"])
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Logf("not run, model not in the registry yet: %s", m)
	}
	t.Logf("%d of %d published lines ran unchanged, %d skipped, %d wait for the registry", ran, len(cmds), skipped, len(missing))
	if skipped > 2 {
		t.Errorf("%d lines skipped, want at most 2", skipped)
	}
	if ran < 38 {
		t.Errorf("%d published lines ran, want at least 38", ran)
	}
}

// TestPublishedCommandsTable: docs/cli.md's table lists every published
// line, verbatim, and prints the reason of every line the test skips.
func TestPublishedCommandsTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## Published command lines\n")
	if !ok {
		t.Fatal("docs/cli.md has no section \"Published command lines\"")
	}
	for i, c := range readPublished(t) {
		row := fmt.Sprintf("| %d | [", i+1)
		at := strings.Index(table, row)
		if at < 0 {
			t.Errorf("docs/cli.md: no row %d (%s)", i+1, c.source)
			continue
		}
		line, _, _ := strings.Cut(table[at:], "\n")
		if !strings.Contains(line, "("+c.source+")") || !strings.Contains(line, "`"+c.bench+"`") {
			t.Errorf("docs/cli.md row %d is not %s with `%s`", i+1, c.source, c.bench)
		}
		if c.skip != "" && !strings.Contains(line, "skipped: "+c.skip) {
			t.Errorf("docs/cli.md row %d does not print why it is skipped: %s", i+1, c.skip)
		}
	}
}
