package dataset

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/workload"
)

// The shuffling sampler takes a uniform k-subset: over many seeds each of
// N valid rows is kept with probability k/N. With N = 50, k = 10 and 4000
// seeds a row's count is Binomial(4000, 0.2): mean 800, sd 25.3; every
// count lies within 5 sd (the chance one of 50 rows strays is ~3e-5).
func TestSamplerUniform(t *testing.T) {
	t.Parallel()
	const n, k, seeds = 50, 10, 4000
	counts := make([]int, n)
	for seed := range uint64(seeds) {
		o := Options{NumPrompts: k, Rand: rand.New(rand.NewPCG(seed, 9))}
		s := newSampler(&o)
		for i := range n {
			if err := s.offer(func() (workload.Pair, bool, error) { return workload.Pair{Input: i, Output: 1}, true, nil }); err != nil {
				t.Fatal(err)
			}
		}
		got := s.pairs()
		if len(got) != k {
			t.Fatalf("seed %d: %d rows, want %d", seed, len(got), k)
		}
		for _, p := range got {
			counts[p.Input]++
		}
	}
	mean, sd := float64(seeds)*k/n, math.Sqrt(float64(seeds)*k/n*(1-float64(k)/n))
	for i, c := range counts {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("row %d kept %d times, want %.0f ± %.0f (5 sd)", i, c, mean, 5*sd)
		}
	}
}

// Invalid rows never take a place: the sample is k valid rows when the
// file has them, and only rows that could enter are tokenized.
func TestSamplerSkipsInvalid(t *testing.T) {
	t.Parallel()
	o := Options{NumPrompts: 5, Rand: rand.New(rand.NewPCG(1, 1))}
	s := newSampler(&o)
	asked := 0
	for i := range 10000 {
		if err := s.offer(func() (workload.Pair, bool, error) {
			asked++
			return workload.Pair{Input: i, Output: 1}, i%2 == 0, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	got := s.pairs()
	if len(got) != 5 {
		t.Fatalf("%d rows, want 5", len(got))
	}
	for _, p := range got {
		if p.Input%2 != 0 {
			t.Errorf("kept invalid row %d", p.Input)
		}
	}
	// Bottom-k asks about k(1 + ln(N/k)) rows on average, ~2×5×7.6 here
	// counting the invalid half; 1000 is 10 times that.
	if asked > 1000 {
		t.Errorf("validity asked of %d of 10000 rows; want the few that could enter", asked)
	}
}

// writeFile fills path with rows until it holds at least size bytes.
func writeFile(t *testing.T, path string, size int64, header string, row func(i int) string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString(header)
	written := int64(n)
	for i := 0; written < size; i++ {
		n, _ := w.WriteString(row(i))
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// memFileBytes is the size of the generated files of TestReaderMemory:
// 16 MiB in the normal suite, SERVESIM_DATASET_MEM_BYTES (for instance
// 1073741824, 1 GiB) when set. The bound does not depend on the size:
// the readers keep the sampled rows and one row at a time.
func memFileBytes(t *testing.T) int64 {
	if s := os.Getenv("SERVESIM_DATASET_MEM_BYTES"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 1 {
			t.Fatalf("SERVESIM_DATASET_MEM_BYTES %q must be a byte count", s)
		}
		return v
	}
	return 16 << 20
}

// Each reader takes 100 rows of a large generated file with a peak heap
// under 50 MB, shuffled (the whole file streams past) and in file order
// (it stops at the 100th valid row).
func TestReaderMemory(t *testing.T) {
	size := memFileBytes(t)
	dir := t.TempDir()
	text := strings.Repeat("lorem ipsum dolor sit amet ", 8)
	files := []struct {
		name, header string
		row          func(int) string
		read         func(string, Options) ([]workload.Pair, error)
	}{
		{"sharegpt.json", "[", func(i int) string {
			sep := ","
			if i == 0 {
				sep = ""
			}
			return fmt.Sprintf(`%s{"id":"%d","conversations":[{"from":"human","value":"%s"},{"from":"gpt","value":"%s"}]}`+"\n", sep, i, text, text)
		}, ShareGPT},
		{"burstgpt.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n", func(i int) string {
			return fmt.Sprintf("%d,GPT-4,%d,%d,%d,Conversation log\n", i, 100+i%900, 1+i%500, 101+i%900+i%500)
		}, BurstGPT},
		{"custom.jsonl", "", func(i int) string {
			return fmt.Sprintf(`{"prompt":"%s %d","output_tokens":%d}`+"\n", text, i, 1+i%300)
		}, func(p string, o Options) ([]workload.Pair, error) { o.OutputLen = -1; return Custom(p, o) }},
		{"spec_bench.jsonl", "", func(i int) string {
			return fmt.Sprintf(`{"question_id":%d,"category":"writing","turns":["%s"]}`+"\n", i, text)
		}, func(p string, o Options) ([]workload.Pair, error) { o.OutputLen = 64; return SpecBench(p, "", o) }},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		header := f.header
		writeFile(t, path, size, header, f.row)
		if f.name == "sharegpt.json" {
			af, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			af.WriteString("]\n")
			af.Close()
		}
		for _, order := range []bool{false, true} {
			o := Options{NumPrompts: 100, DisableShuffle: order, Rand: rand.New(rand.NewPCG(3, 4))}
			var pairs []workload.Pair
			var err error
			peak := memwatch.Peak(50<<20, func() { pairs, err = f.read(path, o) })
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if len(pairs) != 100 {
				t.Errorf("%s: %d rows, want 100", f.name, len(pairs))
			}
			if peak > 50e6 {
				t.Errorf("%s (disable shuffle %v): peak heap %.1f MB reading 100 rows of a %d MB file, want < 50 MB", f.name, order, float64(peak)/1e6, size>>20)
			}
			t.Logf("%s, %d MiB, disable shuffle %v: peak heap %.1f MB", f.name, size>>20, order, float64(peak)/1e6)
		}
		os.Remove(path)
	}
}

// One row over MaxRowBytes is an error naming the limit, not a row held
// whole.
// The test lowers the limit to 256 KiB (not parallel: it sets maxRow).
func TestRowLimit(t *testing.T) {
	defer func(m int) { maxRow = m }(maxRow)
	maxRow = 256 << 10
	dir := t.TempDir()
	big := strings.Repeat("x", 4*maxRow)
	for _, c := range []struct {
		name, body string
		read       func(string, Options) ([]workload.Pair, error)
	}{
		{"s.json", `[{"conversations":[{"value":"` + big + `"},{"value":"y"}]}]`, ShareGPT},
		{"c.jsonl", `{"prompt":"` + big + `","output_tokens":3}`, func(p string, o Options) ([]workload.Pair, error) { o.OutputLen = -1; return Custom(p, o) }},
		{"b.csv", "Timestamp,Model,Request tokens,Response tokens\n1,\"" + big + "\",1,1\n", BurstGPT},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := c.read(path, opts(1))
		if err == nil || !strings.Contains(err.Error(), "MaxRowBytes") {
			t.Errorf("%s: %v, want an error naming MaxRowBytes", c.name, err)
		}
	}
}
