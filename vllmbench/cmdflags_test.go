package vllmbench

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
)

// vllmFlags reads cmd/servesim/testdata/vllm/flags.tsv, vLLM's flags as
// its source defines them (each row's source column names the file and
// commit): name, aliases, type and default, by column name.
func vllmFlags(t *testing.T) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "cmd", "servesim", "testdata", "vllm", "flags.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	head := strings.Split(lines[0], "\t")
	var rows []map[string]string
	for _, l := range lines[1:] {
		row := map[string]string{}
		for i, v := range strings.Split(l, "\t") {
			if i < len(head) {
				row[head[i]] = v
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// define returns a flag set named cmd with Define's flags, and o.
func define(cmd string) (*flag.FlagSet, []cliflag.Group, *Flags) {
	var o Flags
	fs := cliflag.NewFlagSet(cmd)
	return fs, o.Define(fs), &o
}

// TestDefineEveryVLLMFlag: every flag and alias of `vllm bench serve` and
// of the `vllm serve` capacity flags in flags.tsv (-h aside) is defined,
// for every command that takes them, and listed in a help group.
func TestDefineEveryVLLMFlag(t *testing.T) {
	t.Parallel()
	rows := vllmFlags(t)
	if len(rows) < 100 {
		t.Fatalf("flags.tsv has %d rows, want vLLM's 100+", len(rows))
	}
	for _, cmd := range []string{"bench", "capacity", "tp", "plan", "pd", "calibrate"} {
		fs, groups, _ := define(cmd)
		var listed []string
		for _, g := range groups {
			listed = append(listed, g.Names...)
		}
		for _, row := range rows {
			names := []string{row["flag"]}
			if row["aliases"] != "" {
				names = append(names, strings.Split(row["aliases"], ",")...)
			}
			for _, n := range names {
				n = strings.TrimLeft(strings.TrimSpace(n), "-")
				if n == "h" || n == "help" {
					continue
				}
				if fs.Lookup(n) == nil {
					t.Errorf("%s: vLLM's flag %s is not defined", cmd, n)
				} else if !slices.Contains(listed, n) {
					t.Errorf("%s: flag %s is in no help group", cmd, n)
				}
			}
		}
	}
}

// TestDefineVLLMDefaults: bench's numeric defaults are vLLM's, as
// flags.tsv records them from vLLM's source (the flags servesim takes
// with effect; "None" defaults and the vllm serve defaults that depend on
// the GPU left out).
func TestDefineVLLMDefaults(t *testing.T) {
	t.Parallel()
	fs, _, _ := define("bench")
	checked := 0
	for _, row := range vllmFlags(t) {
		if row["type"] != "int" && row["type"] != "float" {
			continue
		}
		want, err := strconv.ParseFloat(row["default"], 64)
		name := strings.TrimPrefix(row["flag"], "--")
		f := fs.Lookup(name)
		if err != nil || f == nil {
			continue
		}
		if _, ignored := f.Value.(Ignored); ignored {
			continue
		}
		got, err := strconv.ParseFloat(f.Value.String(), 64)
		if f.Value.String() == "" {
			got, err = 0, nil // 0: the flag's zero stands for vLLM's default
		}
		if err != nil || (got != want && got != 0) {
			t.Errorf("--%s: default %q, vLLM's %s", name, f.Value.String(), row["default"])
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("checked %d defaults, want 20+", checked)
	}
}

// TestDefineByCommand: bench takes vLLM's client defaults (all requests
// at once), the searches a first rate to probe, and each says so.
func TestDefineByCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, rate, rateHelp, summaryOnly string
	}{
		{"bench", "inf", "open-loop arrival", "requests"},
		{"capacity", PyFloat(SearchRate), "first arrival", "(--grid always runs so)"},
		{"tp", PyFloat(SearchRate), "first arrival", "(--common-rate always runs so)"},
	}
	for _, tt := range tests {
		fs, _, o := define(tt.cmd)
		r := fs.Lookup("request-rate")
		if r.DefValue != tt.rate || !strings.HasPrefix(r.Usage, tt.rateHelp) {
			t.Errorf("%s: --request-rate default %q, help %q; want %q, %q...", tt.cmd, r.DefValue, r.Usage, tt.rate, tt.rateHelp)
		}
		if u := fs.Lookup("summary-only").Usage; !strings.HasSuffix(u, tt.summaryOnly) {
			t.Errorf("%s: --summary-only help %q, want it to end %q", tt.cmd, u, tt.summaryOnly)
		}
		if o.Bench != (tt.cmd == "bench") || o.Normalize != o.Bench {
			t.Errorf("%s: Bench %v, Normalize %v", tt.cmd, o.Bench, o.Normalize)
		}
	}
}

// TestResolveAliases: each second name of a setting sets the first; both
// given with different values is an error naming both as vLLM spells
// them; the old names get a note, which --quiet silences.
func TestResolveAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  []string
		check func(o *Flags) bool
		err   string // substring of the error, "" for none
		note  string // substring of stderr, "" for none
	}{
		{[]string{"-tp", "4"}, func(o *Flags) bool { return o.Server.TensorParallelSize == 4 }, "", ""},
		{[]string{"-dp", "2"}, func(o *Flags) bool { return o.Server.DataParallelSize == 2 }, "", ""},
		{[]string{"-pp", "2"}, func(o *Flags) bool { return o.PipelineParallel == 2 }, "", ""},
		{[]string{"-q", "fp8"}, func(o *Flags) bool { return o.Server.Quantization == "fp8" }, "", ""},
		{[]string{"--kv-cache-memory-bytes", "8G"}, func(o *Flags) bool { return o.Server.KVCacheMemory == scenario.Bytes(8<<30) }, "", ""},
		{[]string{"--endpoint-type", "vllm"}, func(o *Flags) bool { return o.Backend == "vllm" }, "", "--endpoint-type is the old name of --backend"},
		{[]string{"--common-prefix-len", "7"}, func(o *Flags) bool { return o.RandomPrefixLen == 7 }, "", "--common-prefix-len is the old name of --random-prefix-len"},
		{[]string{"--common-prefix-len", "7", "--quiet"}, func(o *Flags) bool { return o.RandomPrefixLen == 7 }, "", ""},
		{[]string{"-tp", "2", "--tensor-parallel-size", "2"}, func(o *Flags) bool { return o.Server.TensorParallelSize == 2 }, "", ""},
		{[]string{"-tp", "2", "--tensor-parallel-size", "4"}, nil, "--tensor-parallel-size 4 and -tp 2 set the same thing to different values: give one", ""},
		{[]string{"--backend", "vllm", "--endpoint-type", "openai"}, nil, "--backend vllm and --endpoint-type openai", ""},
	}
	for _, tt := range tests {
		fs, _, o := define("bench")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		var stderr bytes.Buffer
		err := o.Resolve(fs, &stderr)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !tt.check(o) {
			t.Errorf("%q: options %+v", tt.args, o.Server)
		}
		if got := stderr.String(); (tt.note == "") != (got == "") || !strings.Contains(got, tt.note) {
			t.Errorf("%q: stderr %q, want %q", tt.args, got, tt.note)
		}
		if !o.Given[strings.TrimLeft(tt.args[0], "-")] {
			t.Errorf("%q: Given %v lacks the flag", tt.args, o.Given)
		}
	}
}

// TestDefineHelp: Print writes each flag with what it takes and its
// default, Python's way for vLLM's floats.
func TestDefineHelp(t *testing.T) {
	t.Parallel()
	fs, groups, _ := define("bench")
	var b bytes.Buffer
	cliflag.Print(&b, fs, groups)
	for _, want := range []string{
		"\nvllm bench serve flags:\n  --model name\n",
		"  --burstiness float\n        Gamma shape of the arrival gaps: 1 is Poisson, < 1 burstier, > 1 more regular, inf constant (default 1.0)\n",
		"  --num-prompts int\n",
		"  --seed uint\n",
		"  --gpu-memory-utilization float\n        fraction of GPU memory the engine may use, in (0, 1] (default " + strconv.FormatFloat(ServeGPUMemoryUtilization, 'g', -1, 64) + ")\n",
		"  --temperature float\n        no effect in a simulation: sampling does not change a request's cost\n",
		"  --ignore-eos\n",
		"\nservesim flags:\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestFileScenario: without a file the flags build the scenario; with one
// the file does, only the command's own flags, the seed (which overrides
// the file's) and the switches may come with it, and two files are an
// error.
func TestFileScenario(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte("name: from-file\nseed: 5\nworkload: {arrival: {rate: 3}}\nserver: {model: llama-3.1-8b, gpu: h100-sxm}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := cliflag.Group{Title: "capacity flags", Names: []string{"grid"}}
	tests := []struct {
		args  []string
		files []string
		name  string
		seed  uint64
		err   string
	}{
		{[]string{"--request-rate", "2", "--seed", "9"}, nil, "", 9, ""},
		{nil, []string{file}, "from-file", 5, ""},
		{[]string{"--seed", "7", "--quiet", "--summary-only"}, []string{file}, "from-file", 7, ""},
		{[]string{"--request-rate", "2"}, []string{file}, "", 0, "--request-rate: with a scenario file, the workload, server and SLO come from the file"},
		{nil, []string{file, file}, "", 0, "one scenario file at most, got 2 arguments"},
	}
	for _, tt := range tests {
		fs, _, o := define("capacity")
		fs.String("grid", "", "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if err := o.Resolve(fs, io.Discard); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		sc, err := o.FileScenario(tt.files, own)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q %q: error %v, want %q", tt.args, tt.files, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q %q: %v", tt.args, tt.files, err)
		case tt.name != "" && sc.Name != tt.name || sc.Seed != tt.seed:
			t.Errorf("%q %q: scenario %q seed %d, want %q seed %d", tt.args, tt.files, sc.Name, sc.Seed, tt.name, tt.seed)
		}
	}
	fs, _, o := define("capacity")
	fs.String("grid", "", "")
	if err := fs.Parse([]string{"--grid", "1,2"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Resolve(fs, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := o.FileScenario([]string{file}, own); err != nil {
		t.Errorf("--grid (the command's own) with a file: %v", err)
	}
}
