package scenario

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/quoted"
)

// The fuzz targets of the scenario parsers. Each asserts properties of what
// a parser accepts and of the errors it returns, not only that it does not
// panic. Inputs that once broke a property are committed under
// testdata/fuzz/FuzzXxx and run as seeds by go test.

// FuzzParseDist checks that an accepted distribution is valid, has a finite
// mean >= 0 and a finite variance >= 0, and draws finite values >= 0; and
// that a rejected one is named in its error.
func FuzzParseDist(f *testing.F) {
	for _, s := range []string{
		"exp:0.05", "exponential:50ms", "det:20ms", "const:3", "deterministic:0",
		"uniform:10ms,30ms", "uniform:0,1", "uniform:1,1", "uniform:2,1",
		"gamma:0.05,2", "gamma:0.1,2", "gamma:1,1e-160", "gamma:1e-300,1e150",
		"lognormal:50ms,0.5", "lognormal:1e-300,1e100", "lognormal:1e150,0.1",
		"mix:0.02@0.8,0.18@0.2", "mixture:1@1", "discrete:0@0.5,1e154@0.5", "mix:1@0.5",
		" det:200us ", "det:1µs", "exp:0", "exp:-1", "exp:1e-320", "exp:1e200", "exp:NaN", "exp:inf",
		"det:1e200", "exp", ":", "", "poisson:1", "gamma:1,x", "mix:0.02", "mix:1@x", "uniform:1",
		"EXP:1s", "exp:1,2", "mix:", "gamma:0x1p-3,+Inf", "det:1_000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDist(s)
		if err != nil {
			if q := fmt.Sprintf("%q", s); !strings.Contains(err.Error(), q) {
				t.Fatalf("ParseDist(%q): error %q does not quote the input %s", s, err, q)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseDist(%q) = %#v, which fails Validate: %v", s, d, err)
		}
		if m, v := d.Mean(), d.Var(); !finiteNonNegative(m) || !finiteNonNegative(v) {
			t.Fatalf("ParseDist(%q) = %#v: mean %v, variance %v, want finite numbers >= 0", s, d, m, v)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for i := range 100 {
			if x := d.Sample(r); !finiteNonNegative(x) {
				t.Fatalf("ParseDist(%q) = %#v: draw %d is %v, want a finite number >= 0", s, d, i, x)
			}
		}
	})
}

// units lists, for the round-trip properties, the unit suffixes a parser
// reads and their scales ("" is the bare number).
type unit struct {
	suffix string
	scale  float64
}

var (
	timeUnits = []unit{{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}}
	byteUnits = []unit{{"", 1}, {"b", 1}, {"K", 1e3}, {"kb", 1e3}, {"M", 1e6}, {"MB", 1e6}, {"G", 1e9}, {"GB", 1e9},
		{"T", 1e12}, {"TB", 1e12}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}}
)

// checkNumber is the shared property of ParseSeconds and ParseBytes:
// parse(s) is either an error naming s, or a finite number >= 0; and a
// number x written with strconv and unit u parses to exactly x·scale(u)
// (FormatFloat's shortest form reads back as x) when that is finite and
// x >= 0, and is an error naming it otherwise.
func checkNumber(t *testing.T, name string, parse func(string) (float64, error), units []unit, s string, x float64, u uint8) {
	t.Helper()
	v, err := parse(s)
	switch {
	case err != nil:
		if !strings.Contains(err.Error(), strconv.Quote(strings.TrimSpace(s))) && !quoted.ContainsPart(err.Error(), s) {
			t.Fatalf("%s(%q): error %q names neither the input nor a part of it", name, s, err)
		}
	case !finiteNonNegative(v):
		t.Fatalf("%s(%q) = %v, want a finite number >= 0", name, s, v)
	}
	un := units[int(u)%len(units)]
	text := strconv.FormatFloat(x, 'g', -1, 64) + un.suffix
	got, err := parse(text)
	want := x * un.scale
	switch {
	case !finiteNonNegative(x) || !finiteNonNegative(want):
		if err == nil {
			t.Fatalf("%s(%q) = %v, want an error: %v·%v is not a finite number >= 0", name, text, got, x, un.scale)
		}
		if !strings.Contains(err.Error(), strconv.Quote(text)) && !quoted.ContainsPart(err.Error(), text) {
			t.Fatalf("%s(%q): error %q does not name the value", name, text, err)
		}
	case err != nil:
		t.Fatalf("%s(%q): %v, want %v", name, text, err, want)
	case got != want:
		t.Fatalf("%s(%q) = %v, want %v·%v = %v", name, text, got, x, un.scale, want)
	}
}

func finiteNonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

// FuzzParseSeconds checks ParseSeconds with checkNumber's properties.
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"0.05", "50ms", "200us", "200µs", "1.5s", " 3 ", "0", "-0", "-1", "NaN", "inf",
		"1e308", "1e400", "1e-400", "ms", "", "5 ms", "1e308ms", "0x1p-2", "1_0", "5sms"} {
		f.Add(s, 0.05, uint8(0))
	}
	f.Add("1", 1e308, uint8(2))
	f.Add("1", math.MaxFloat64, uint8(1))
	f.Add("1", 5e-324, uint8(3))
	f.Add("1", math.Copysign(0, -1), uint8(0))
	f.Add("1", -1.0, uint8(4))
	f.Fuzz(func(t *testing.T, s string, x float64, u uint8) {
		checkNumber(t, "ParseSeconds", ParseSeconds, timeUnits, s, x, u)
	})
}

// FuzzParseBytes checks ParseBytes with checkNumber's properties.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"8589934592", "8e9", "8GiB", "512MiB", "16GB", "16gb", "6.41GiB", "1K", "1 KiB", "0",
		"-1", "NaN", "inf", "1e308GiB", "1e300TB", "1.7976931348623157e308", "GiB", "", "b", "1e400", "1.5e296TiB"} {
		f.Add(s, 8.0, uint8(0))
	}
	f.Add("1", 1e308, uint8(13))
	f.Add("1", math.MaxFloat64, uint8(0))
	f.Add("1", 1.6e296, uint8(13))
	f.Add("1", -1.0, uint8(5))
	f.Fuzz(func(t *testing.T, s string, x float64, u uint8) {
		checkNumber(t, "ParseBytes", ParseBytes, byteUnits, s, x, u)
	})
}

// FuzzParseRate checks that an accepted rate is a finite number > 0, or
// +Inf only for an inf spelling; that a rejected one is quoted in its
// error; and that a number > 0 written with strconv reads back exactly.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10", "0.5", "inf", "+inf", ".inf", "Infinity", "+Infinity", "INF", "1e308", "1e400",
		"0", "-1", "NaN", "-inf", "", " 5 ", "5/s", "0x10", "1_0", "4.9e-324"} {
		f.Add(s, 10.0)
	}
	f.Add("1", math.MaxFloat64)
	f.Add("1", 5e-324)
	f.Fuzz(func(t *testing.T, s string, x float64) {
		v, err := ParseRate(s)
		isInf := map[string]bool{"inf": true, "+inf": true, ".inf": true, "+.inf": true, "infinity": true, "+infinity": true}[strings.ToLower(strings.TrimSpace(s))]
		switch {
		case err != nil:
			if isInf {
				t.Fatalf("ParseRate(%q): %v, want +Inf", s, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseRate(%q): error %q does not quote the input", s, err)
			}
		case math.IsInf(v, 1):
			if !isInf {
				t.Fatalf("ParseRate(%q) = +Inf, which only an inf spelling may give", s)
			}
		case !(v > 0) || math.IsInf(v, 0):
			t.Fatalf("ParseRate(%q) = %v, want a finite number > 0", s, v)
		}
		text := strconv.FormatFloat(x, 'g', -1, 64)
		got, err := ParseRate(text)
		switch {
		case math.IsInf(x, 1):
			if err != nil || !math.IsInf(got, 1) {
				t.Fatalf("ParseRate(%q) = %v, %v, want +Inf", text, got, err)
			}
		case !(x > 0) || math.IsInf(x, 0):
			if err == nil {
				t.Fatalf("ParseRate(%q) = %v, want an error", text, got)
			}
		case err != nil || got != x:
			t.Fatalf("ParseRate(%q) = %v, %v, want %v", text, got, err, x)
		}
	})
}

// maxScenario bounds the scenario files FuzzParse reads, so that one input
// cannot take seconds (a sweep decodes the file once per value).
const maxScenario = 16 << 10

// FuzzParse checks that Parse does not panic or hang, that every error is
// an ErrInvalid naming the file, and that an accepted scenario resolves to
// an Experiment whose run configurations are valid, one per sweep point.
func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob("../examples/scenarios/*.yaml")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no example scenarios: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"workload: {arrival: {rate: 5}}\n",
		"workload: {arrival: {rate: inf}}\nrequests: 10\n",
		"workload: {arrival: {rate: inf}}\nrequests: 0\nhorizon: 10\n",
		"workload: {closed: {clients: 2, think: exp:0.5}}\nserver: {kind: fcfs, service: det:10ms}\n",
		"workload: {arrival: {process: ramp, start: 1, end: 10, strategy: exponential}}\n",
		"workload: {arrival: {process: constant, rate: 3}, lengths: {kind: lognormal, input: 100, output: 10, input_sigma: 1, output_sigma: 0.5, correlation: 0.5}}\n",
		"workload: {arrival: {process: trace, path: trace.csv}, lengths: {kind: trace, path: trace.csv}}\n",
		"workload: {arrival: {process: trace, path: trace.jsonl, speedup: 2}, lengths: {kind: trace, path: trace.jsonl, order: resample}}\n",
		"workload: {arrival: {rate: 5}}\nserver: {kv_cache_memory: 8GiB, max_model_len: 4096}\n",
		"workload: {arrival: {rate: 5}}\nserver: {kv_cache_memory: 1e308GiB}\n",
		"workload: {arrival: {rate: 5}}\nserver: {replicas: 2, router: least-outstanding, tensor_parallel_size: 2}\n",
		"workload: {arrival: {rate: 5}}\nserver: {model: gpt-oss-20b, data_parallel_size: 2, enable_expert_parallel: true}\n",
		"workload: {arrival: {rate: 5}}\nserver: {data_parallel_size: 3, replicas: 2}\n",
		"workload: {arrival: {rate: 5}}\nsweep: {param: server.max_num_seqs, values: [1, 8, 256]}\n",
		"workload: {arrival: {rate: 5}}\nsweep: {param: workload.arrival.rate, values: [1, inf, -1]}\n",
		"workload: {arrival: {rate: 5}}\nsweep: {param: workload.arrival.rate, values: [[1]]}\n",
		"workload: {arrival: {rate: 5}}\nsweep: {param: a..b, values: [1]}\n",
		"workload: {arrival: {rate: 5}}\nsweep: {param: sweep.param, values: [1]}\n",
		"workload: {arrival: {rate: 5}}\npercentiles: [50, 101]\n",
		"workload: {arrival: {rate: 5}}\nslo: {ttft_ms: .inf}\n",
		"workload: {arrival: {rate: 5}}\nhorizon: .nan\n",
		"workload: {arrival: {rate: 5}}\nrequests: 10\nwarmup: 10\n",
		"workload: {arrival: {rate: 5}}\nbogus: 1\n",
		"workload: {arrival: {rate: [5]}}\n",
		"- a\n- b\n", "", "# nothing\n", "a: &x [*x]\n", "{", "requests: 1e3\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	for name, text := range map[string]string{
		"trace.csv":   "timestamp,input_length,output_length\n0,100,10\n0.5,200,20\n1.5,50,0\n",
		"trace.jsonl": `{"timestamp": 0, "input_length": 100, "output_length": 10}` + "\n" + `{"timestamp": 250, "input_length": 7, "output_length": 3, "hash_ids": [1, 2]}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	file := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxScenario {
			t.Skip()
		}
		s, err := Parse(data, file)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse: error %q is not an ErrInvalid", err)
			}
			if !strings.HasPrefix(err.Error(), file) {
				t.Fatalf("Parse: error %q does not begin with the file name", err)
			}
			return
		}
		x, err := s.Experiment()
		if err != nil {
			t.Fatalf("Parse accepted the scenario, but Experiment fails: %v", err)
		}
		want := 1
		if s.Sweep != nil {
			want = len(s.Sweep.Values)
		}
		if len(x.Points) != want || len(x.Configs) != want {
			t.Fatalf("Experiment has %d points and %d configs, want %d", len(x.Points), len(x.Configs), want)
		}
		if x.Replications < 1 {
			t.Fatalf("Experiment has %d replications, want >= 1", x.Replications)
		}
		for i, cfg := range x.Configs {
			if err := cfg.Validate(); err != nil {
				t.Fatalf("point %d: config fails Validate: %v", i, err)
			}
		}
	})
}
