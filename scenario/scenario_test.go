package scenario

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

const minimal = `
name: t
seed: 5
requests: 300
warmup: 30
workload:
  arrival: {rate: 4}
server: {model: qwen2.5-7b, gpu: rtx4090, max_model_len: 32768}
`

func TestParseMinimal(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(minimal), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 5 || cfg.Requests != 300 || cfg.Warmup != 30 {
		t.Errorf("seed, requests, warmup = %d, %d, %d", cfg.Seed, cfg.Requests, cfg.Warmup)
	}
	if p, ok := cfg.Workload.Arrivals.(workload.Poisson); !ok || p.Rate != 4 {
		t.Errorf("arrivals = %#v, want Poisson{Rate: 4}", cfg.Workload.Arrivals)
	}
	if l, ok := cfg.Workload.Lengths.(workload.Random); !ok || l.InputLen != 1024 || l.OutputLen != 128 {
		t.Errorf("lengths = %#v, want vLLM's random 1024/128", cfg.Workload.Lengths)
	}
	e, ok := cfg.Server.(batching.Config)
	if !ok {
		t.Fatalf("server = %T, want batching.Config", cfg.Server)
	}
	if e.Deployment.Model.Name != "qwen2.5-7b" || e.Deployment.GPU.Name != "rtx4090" || e.MaxNumSeqs != batching.DefaultMaxNumSeqs || !e.EnableChunkedPrefill {
		t.Errorf("engine = %s on %s, max_num_seqs %d, chunked %v", e.Deployment.Model.Name, e.Deployment.GPU.Name, e.MaxNumSeqs, e.EnableChunkedPrefill)
	}
	if got := cfg.Percentiles; !slices.Equal(got, []float64{50, 90, 95, 99}) {
		t.Errorf("percentiles = %v, want the library's defaults 50, 90, 95, 99", got)
	}
	if s.SLO.Target != DefaultTarget {
		t.Errorf("slo target = %v, want %v", s.SLO.Target, DefaultTarget)
	}
}

func TestParseKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		check      func(t *testing.T, cfg sim.Config)
	}{
		{"gamma", "workload: {arrival: {process: gamma, rate: 8, burstiness: 0.5, normalize: true}}", func(t *testing.T, cfg sim.Config) {
			if g := cfg.Workload.Arrivals.(workload.Gamma); g.Rate != 8 || g.Burstiness != 0.5 || !g.Normalize {
				t.Errorf("%#v", g)
			}
		}},
		{"inf", "workload: {arrival: {rate: inf}}", func(t *testing.T, cfg sim.Config) {
			if p := cfg.Workload.Arrivals.(workload.Poisson); !math.IsInf(p.Rate, 1) {
				t.Errorf("%#v", p)
			}
		}},
		{"ramp", "workload: {arrival: {process: ramp, start: 1, end: 9, strategy: exponential}}", func(t *testing.T, cfg sim.Config) {
			if r := cfg.Workload.Arrivals.(workload.Ramp); r.Start != 1 || r.End != 9 || r.Strategy != workload.RampExponential {
				t.Errorf("%#v", r)
			}
		}},
		{"closed", "workload: {closed: {clients: 8, think: exp:0.5}, lengths: {kind: fixed, input: 10, output: 5}}", func(t *testing.T, cfg sim.Config) {
			w := cfg.Workload
			if w.Clients != 8 || w.Think == nil || math.Abs(w.Think.Mean()-0.5) > 1e-12 || w.Lengths != (workload.Fixed{Input: 10, Output: 5}) {
				t.Errorf("%#v", w)
			}
		}},
		{"lognormal", "workload: {arrival: {rate: 1}, lengths: {kind: lognormal, input: 500, output: 200, input_sigma: 0.5, correlation: 0.3}}", func(t *testing.T, cfg sim.Config) {
			if l := cfg.Workload.Lengths.(workload.LogNormal); l.InputMedian != 500 || l.OutputMedian != 200 || l.InputSigma != 0.5 || l.Correlation != 0.3 {
				t.Errorf("%#v", l)
			}
		}},
		{"fcfs", "workload: {arrival: {rate: 2}}\nserver: {kind: fcfs, servers: 3, service: det:20ms, queue_cap: 9}", func(t *testing.T, cfg sim.Config) {
			f := cfg.Server.(queue.FCFS)
			if f.Servers != 3 || f.QueueCap != 9 || f.Service.Mean() != 0.02 {
				t.Errorf("%#v", f)
			}
		}},
		{"fcfs cost model", "workload: {arrival: {rate: 2}}\nserver: {kind: fcfs}", func(t *testing.T, cfg sim.Config) {
			f := cfg.Server.(queue.FCFS)
			first, total := f.ServiceOf(1024, 128)
			if !(first > 0 && total > first) {
				t.Errorf("service of (1024, 128) = %v, %v", first, total)
			}
		}},
		{"cluster", "workload: {arrival: {rate: 2}}\nserver: {replicas: 2, router: least-outstanding, kv_cache_memory: 8GiB, enable_chunked_prefill: false, max_model_len: 8192}", func(t *testing.T, cfg sim.Config) {
			c := cfg.Server.(batching.Cluster)
			if c.Replicas != 2 || c.Router != batching.LeastOutstanding || c.Engine.Deployment.KVCacheMemory != 8<<30 || c.Engine.EnableChunkedPrefill {
				t.Errorf("%#v", c)
			}
		}},
		{"dense data parallel", "workload: {arrival: {rate: 2}}\nserver: {data_parallel_size: 3, replicas: 2}", func(t *testing.T, cfg sim.Config) {
			c := cfg.Server.(batching.Cluster)
			if c.Replicas != 6 || c.Engine.Deployment.DP > 1 {
				t.Errorf("a dense model's 3 data-parallel engines in each of 2 replicas: %d replicas, dp %d", c.Replicas, c.Engine.Deployment.DP)
			}
		}},
		{"MoE data parallel", "workload: {arrival: {rate: 2}}\nserver: {model: gpt-oss-20b, tensor_parallel_size: 2, data_parallel_size: 4, enable_expert_parallel: true}", func(t *testing.T, cfg sim.Config) {
			c := cfg.Server.(batching.Config)
			if d := c.Deployment; d.TP != 2 || d.DP != 4 || d.EP != 8 || c.GPUs() != 8 {
				t.Errorf("tp %d dp %d ep %d on %d GPUs, want 2, 4, 8 on 8", d.TP, d.DP, d.EP, c.GPUs())
			}
		}},
		{"MoE expert parallel across nodes", "workload: {arrival: {rate: 2}}\nserver: {model: gpt-oss-20b, tensor_parallel_size: 1, data_parallel_size: 16, enable_expert_parallel: true, all_to_all: deepep-h800-cx7}", func(t *testing.T, cfg sim.Config) {
			d := cfg.Server.(batching.Config).Deployment
			if d.AllToAll == nil || d.AllToAll.Name != "deepep-h800-cx7" || d.EP != 16 {
				t.Errorf("all_to_all %v ep %d, want deepep-h800-cx7 over 16", d.AllToAll, d.EP)
			}
		}},
		{"pipeline scheduler", "workload: {arrival: {rate: 2}}\nserver: {model: llama-3.1-70b, tensor_parallel_size: 2, pipeline_parallel_size: 2, pipeline_scheduler: v0, max_model_len: 8192}", func(t *testing.T, cfg sim.Config) {
			if p := cfg.Server.(batching.Pipeline); p.Scheduler != batching.VirtualEngines || p.Stages != 2 {
				t.Errorf("scheduler %q stages %d, want v0, 2", p.Scheduler, p.Stages)
			}
		}},
		{"slo", "workload: {arrival: {rate: 2}}\nslo: {ttft_ms: 800, tpot_ms: 50, target: 0.95}", func(t *testing.T, cfg sim.Config) {
			if cfg.SLO != (metrics.SLO{TTFT: 0.8, TPOT: 0.05}) {
				t.Errorf("%#v", cfg.SLO)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]byte(tt.yaml), "k.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := s.Config()
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, want string
	}{
		{"empty", "", "e.yaml: empty scenario"},
		{"syntax", "workload: [1,\n", "e.yaml:"},
		{"not a mapping", "- 1\n- 2\n", "e.yaml:1: a scenario must be a mapping"},
		{"unknown top field", "workload: {arrival: {rate: 1}}\nreplication: 3\n", `e.yaml:2: unknown field "replication" in the top level`},
		{"unknown nested field", "workload:\n  arrival: {rate: 1}\nserver:\n  max_num_seq: 4\n", `e.yaml:4: unknown field "max_num_seq" in server`},
		{"bad type", "workload: {arrival: {rate: 1}}\nrequests: many\n", `e.yaml:2: requests: "many" is not a whole number`},
		{"bad rate", "workload:\n  arrival: {rate: abc}\n", `e.yaml:2: workload.arrival.rate: "abc" must be a number > 0`},
		{"bad bytes", "workload: {arrival: {rate: 1}}\nserver:\n  kv_cache_memory: lots\n", `e.yaml:3: server.kv_cache_memory: "lots" is not a byte count`},
		{"zero rate", "workload:\n  arrival:\n    process: poisson\n", "e.yaml:2: workload.arrival.rate: 0 must be a number > 0"},
		{"negative requests", "requests: -5\nworkload: {arrival: {rate: 1}}\n", "e.yaml:1: requests: -5 must be >= 0"},
		{"warmup too big", "requests: 10\nwarmup: 10\nworkload: {arrival: {rate: 1}}\n", "e.yaml:2: warmup: 10 must be < requests 10"},
		{"no loop", "name: x\n", "workload: set arrival (open loop"},
		{"both loops", "workload:\n  arrival: {rate: 1}\n  closed: {clients: 2}\n", "e.yaml:1: workload: set one of arrival"},
		{"unknown process", "workload:\n  arrival: {process: poison, rate: 1}\n", `e.yaml:2: workload.arrival.process: unknown process "poison"`},
		{"field of another process", "workload:\n  arrival:\n    rate: 1\n    start: 3\n", "e.yaml:4: workload.arrival.start: does not apply to process poisson"},
		{"poisson burstiness", "workload:\n  arrival: {rate: 1, burstiness: 0.5}\n", "use process: gamma"},
		{"bad think", "workload:\n  closed:\n    clients: 2\n    think: exp\n", `e.yaml:4: workload.closed.think: distribution "exp": want KIND:PARAMS`},
		{"bad range ratio", "workload:\n  arrival: {rate: 1}\n  lengths:\n    range_ratio: 1.5\n", "e.yaml:4: workload.lengths.range_ratio: 1.5 must be in [0, 1)"},
		{"unknown model", "workload: {arrival: {rate: 1}}\nserver:\n  model: llama-9b\n", `e.yaml:3: server.model: unknown model "llama-9b" (nearest: `},
		{"unknown gpu", "workload: {arrival: {rate: 1}}\nserver:\n  gpu: h1000\n", `e.yaml:3: server.gpu: unknown gpu "h1000" (known: a100-40gb, a100-80gb`},
		{"missing model file", "workload: {arrival: {rate: 1}}\nserver:\n  model: specs/m.yaml\n", "e.yaml:3: server.model:"},
		{"engine knob", "workload: {arrival: {rate: 1}}\nserver:\n  max_num_seqs: -1\n", "e.yaml:3: server.max_num_seqs: -1 must be >= 1 (or 0: vLLM's default for the GPU)"},
		{"speculative no k", "workload: {arrival: {rate: 1}}\nserver:\n  speculative_config: {method: eagle3, acceptance_rate: 0.5}\n", "e.yaml:3: server.speculative_config: num_speculative_tokens 0 must be in [1, 64]"},
		{"speculative unknown field", "workload: {arrival: {rate: 1}}\nserver:\n  speculative_config: {method: eagle3, num_speculative_tokens: 2, topk: 4}\n", "topk"},
		{"speculative draft vocab", "workload: {arrival: {rate: 1}}\nserver:\n  speculative_config: {model: qwen2.5-7b, num_speculative_tokens: 2, acceptance_rate: 0.5}\n", `server.speculative_config: model "qwen2.5-7b" has vocab 152064`},
		{"offload size", "workload: {arrival: {rate: 1}}\nserver:\n  kv_offloading_size: -4\n", "e.yaml:3: server.kv_offloading_size: -4 must be a number of GiB in [0, 1048576]"},
		{"offload backend", "workload: {arrival: {rate: 1}}\nserver:\n  kv_offloading_size: 4\n  kv_offloading_backend: mooncake\n", `e.yaml:4: server.kv_offloading_backend: "mooncake" is not modelled`},
		{"offload bandwidth", "workload: {arrival: {rate: 1}}\nserver:\n  kv_offloading_size: 4\n  pcie_bandwidth: -1\n", "e.yaml:4: server.pcie_bandwidth: -1 must be a finite number of bytes/s > 0"},
		{"offload backend alone", "workload: {arrival: {rate: 1}}\nserver:\n  kv_offloading_backend: native\n", `e.yaml:3: server.kv_offloading_backend: "native" needs kv_offloading_size`},
		{"offload bandwidth alone", "workload: {arrival: {rate: 1}}\nserver:\n  pcie_bandwidth: 2e10\n", "e.yaml:3: server.pcie_bandwidth: 2e+10 needs kv_offloading_size"},
		{"offload without caching", "workload: {arrival: {rate: 1}}\nserver:\n  kv_offloading_size: 4\n  enable_prefix_caching: false\n", "e.yaml:3: server.kv_offloading_size: 4 needs enable_prefix_caching"},
		{"tp shape", "workload: {arrival: {rate: 1}}\nserver:\n  tensor_parallel_size: 3\n", "e.yaml:3: server.tensor_parallel_size: 3 must divide heads 32 of model \"llama-3.1-8b\""},
		{"fcfs field on vllm", "workload: {arrival: {rate: 1}}\nserver:\n  servers: 2\n", "e.yaml:3: server.servers: does not apply to kind vllm"},
		{"bad service", "workload: {arrival: {rate: 1}}\nserver:\n  kind: fcfs\n  service: mix:0.02@0.5,0.18@0.2\n", "e.yaml:4: server.service: distribution \"mix:0.02@0.5,0.18@0.2\": mixture.weights: sum to 0.7"},
		{"bad target", "workload: {arrival: {rate: 1}}\nslo:\n  target: 95\n", "e.yaml:3: slo.target: 95 must be in (0, 1]"},
		{"sweep without param", "workload: {arrival: {rate: 1}}\nsweep:\n  values: [1]\n", "e.yaml:2: sweep.param: is required"},
		{"sweep unknown param", "workload: {arrival: {rate: 1}}\nsweep:\n  param: workload.arival.rate\n  values: [1, 2]\n", `e.yaml:4: sweep.values[0]: workload.arival.rate = 1: unknown field "arival" in workload`},
		{"sweep bad value", "workload: {arrival: {rate: 1}}\nsweep:\n  param: workload.arrival.rate\n  values:\n    - 1\n    - -2\n", `e.yaml:6: sweep.values[1]: workload.arrival.rate = -2: "-2" must be a number > 0`},
		{"sweep bad engine value", "workload: {arrival: {rate: 1}}\nsweep:\n  param: server.max_num_seqs\n  values: [8, -2]\n", "e.yaml:4: sweep.values[1]: server.max_num_seqs = -2: -2 must be >= 1 (or 0: vLLM's default for the GPU)"},
		{"sweep non-scalar", "workload: {arrival: {rate: 1}}\nsweep:\n  param: workload.arrival.rate\n  values: [[1]]\n", "e.yaml:4: sweep.values[0]: must be a scalar"},
		{"sweep of a mapping", "workload: {arrival: {rate: 1}}\nsweep:\n  param: workload.arrival\n  values: [3]\n", "sweep.values[0]: workload.arrival = 3: cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml), "e.yaml")
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestSweepPoints(t *testing.T) {
	t.Parallel()
	src := minimal + `
replications: 2
sweep:
  param: server.max_num_seqs
  values: [16, 64]
`
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, js, err := listJobs(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || len(js) != 4 {
		t.Fatalf("%d points, %d jobs; want 2, 4", len(pts), len(js))
	}
	for i, want := range []int{16, 64} {
		if pts[i].Value != want || pts[i].Text != strings.TrimSpace(pts[i].Text) || pts[i].Scenario.Server.MaxNumSeqs != want {
			t.Errorf("point %d: value %v (%T), max_num_seqs %d; want %d", i, pts[i].Value, pts[i].Value, pts[i].Scenario.Server.MaxNumSeqs, want)
		}
		if pts[i].Scenario.Sweep != nil {
			t.Errorf("point %d keeps its sweep", i)
		}
	}
	for _, j := range js {
		if j.Index != j.Point*2+j.Replication {
			t.Errorf("job %d: point %d, replication %d: not point-major", j.Index, j.Point, j.Replication)
		}
		if want := event.ReplicationSeed(5, j.Replication); j.Seed != want || j.Config.Seed != want {
			t.Errorf("job %d: seed %d, config seed %d; want %d (paired across points)", j.Index, j.Seed, j.Config.Seed, want)
		}
		if got := j.Config.Server.(batching.Config).MaxNumSeqs; got != pts[j.Point].Value {
			t.Errorf("job %d: max_num_seqs %d, want %v", j.Index, got, pts[j.Point].Value)
		}
	}
}

func TestSweepCreatesMissingField(t *testing.T) {
	t.Parallel()
	src := minimal + "sweep: {param: workload.max_concurrency, values: [2, 4]}\n"
	s, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	if pts[1].Scenario.Workload.MaxConcurrency != 4 {
		t.Errorf("max_concurrency = %d, want 4", pts[1].Scenario.Workload.MaxConcurrency)
	}
}

func TestSweepInCode(t *testing.T) {
	t.Parallel()
	s := Default()
	s.Requests = 100
	s.Workload.Arrival = &Arrival{Rate: 3}
	var v1, v2 yaml.Node
	v1.SetString("5")
	v2.SetString("7")
	v1.Tag, v2.Tag = "!!int", "!!int"
	s.Sweep = &Sweep{Param: "workload.arrival.rate", Values: []yaml.Node{v1, v2}}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(pts[1].Scenario.Workload.Arrival.Rate); got != 7 {
		t.Errorf("rate = %v, want 7", got)
	}
}

// TestExamples loads every shipped scenario and checks its sweep and jobs
// against the file, read by hand: the swept values, and one job per value
// and replication, each a valid run.
func TestExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		values []string // the sweep's values as written; one "" without a sweep
		reps   int
	}{
		{"bursty.yaml", []string{"4", "2", "1", "0.5", "0.25"}, 3},
		{"closedloop.yaml", []string{""}, 12},
		{"openloop.yaml", []string{"2", "4", "6", "8", "10", "14", "18"}, 12},
		{"plan-moe.yaml", []string{""}, 1},
		{"plan.yaml", []string{""}, 1},
		{"rate-slo.yaml", []string{"10", "15", "20", "25", "30", "35"}, 3},
		{"sessions.yaml", []string{"0.5", "1", "2", "4"}, 2},
		{"speculative.yaml", []string{"2", "3", "4", "5"}, 2},
		{"sweep.yaml", []string{"1", "2", "4", "8", "16", "32", "64"}, 2},
	}
	files, err := filepath.Glob("../examples/scenarios/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tt := range tests {
		listed = append(listed, "../examples/scenarios/"+tt.file)
	}
	if !slices.Equal(files, listed) {
		t.Errorf("example scenarios %v; the test lists %v", files, listed)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s, err := Load("../examples/scenarios/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			pts, js, err := listJobs(s)
			if err != nil {
				t.Fatal(err)
			}
			var values []string
			for _, p := range pts {
				values = append(values, p.Text)
			}
			if !slices.Equal(values, tt.values) {
				t.Errorf("sweep values %q, want %q", values, tt.values)
			}
			if len(js) != len(tt.values)*tt.reps {
				t.Errorf("%d jobs, want %d values × %d replications", len(js), len(tt.values), tt.reps)
			}
			for _, j := range js {
				if err := j.Config.Validate(); err != nil {
					t.Errorf("job %d: %v", j.Index, err)
				}
			}
		})
	}
}

func TestRelativePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "workload:\n  arrival: {process: trace, path: t.csv}\n  lengths: {kind: trace, path: t.csv}\n"
	writeFile(t, filepath.Join(dir, "t.csv"), "timestamp,input,output\n0,10,2\n0.5,20,3\n2,30,4\n")
	writeFile(t, filepath.Join(dir, "s.yaml"), src)
	s, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.Workload.Arrivals.(workload.Replay); len(r.Times) != 3 || r.Times[2] != 2 {
		t.Errorf("replay = %#v", r)
	}
	if _, ok := cfg.Workload.Lengths.(workload.Sequence); !ok {
		t.Errorf("lengths = %T, want Sequence (the arrivals replay the same trace)", cfg.Workload.Lengths)
	}
}

// testJob is one job of an experiment with its seeded configuration.
type testJob struct {
	jobs.Job
	Config sim.Config
}

// listJobs lists every job of s, as the CLI builds them one by one.
func listJobs(s *Scenario) ([]Point, []testJob, error) {
	x, err := s.Experiment()
	if err != nil {
		return nil, nil, err
	}
	js := make([]testJob, x.Size())
	for i := range js {
		js[i].Job, js[i].Config = x.Job(i)
	}
	return x.Points, js, nil
}

// TestKVOffloadFields: kv_offloading_size and pcie_bandwidth set the
// engine's batching.KVOffload (the latency its default); leaving them out
// leaves offloading off.
func TestKVOffloadFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, server string
		want         *batching.KVOffload
	}{
		{"off", "", nil},
		{"size", "  kv_offloading_size: 64\n", batching.DefaultKVOffload(64)},
		{"bandwidth", "  kv_offloading_size: 8\n  kv_offloading_backend: native\n  pcie_bandwidth: 25e9\n",
			&batching.KVOffload{Size: 8, Backend: "native", Bandwidth: 25e9, Latency: batching.DefaultPCIeLatency}},
		{"lmcache", "  kv_offloading_size: 8\n  kv_offloading_backend: lmcache\n",
			&batching.KVOffload{Size: 8, Backend: "lmcache", Bandwidth: batching.DefaultPCIeBandwidth, Latency: batching.DefaultPCIeLatency}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte("workload: {arrival: {rate: 1}}\nserver:\n  model: qwen2.5-7b\n"+tc.server), "e.yaml")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := s.Config()
			if err != nil {
				t.Fatal(err)
			}
			eng, ok := cfg.Server.(batching.Config)
			if !ok {
				t.Fatalf("server %T, want batching.Config", cfg.Server)
			}
			if !reflect.DeepEqual(eng.KVOffload, tc.want) {
				t.Errorf("KVOffload %+v, want %+v", eng.KVOffload, tc.want)
			}
		})
	}
}
