package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// Scenario is one experiment: a workload, a server, an SLO, how many
// requests and replications, and an optional sweep over one parameter.
// Field names are the YAML keys (see the package documentation); Default
// gives the values a file does not set.
type Scenario struct {
	// Name labels the scenario in reports.
	Name string `yaml:"name"`
	// Seed is the base seed; replication r runs with
	// event.ReplicationSeed(Seed, r), the same at every sweep point.
	Seed uint64 `yaml:"seed"`
	// Requests is the number of requests per run, warm-up included: at
	// most MaxRecordedRequests, or MaxRequests with SummaryOnly.
	Requests int `yaml:"requests"`
	// Warmup is the number of first requests left out of every statistic.
	Warmup int `yaml:"warmup"`
	// Horizon stops each run at this simulated time, seconds (0: none).
	Horizon float64 `yaml:"horizon"`
	// MaxInSystem ends a run early, as unstable, when this many requests
	// are in the system (0: sim's default).
	MaxInSystem int `yaml:"max_in_system"`
	// SummaryOnly keeps quantile sketches instead of every request
	// record, so memory stays O(requests in the system).
	SummaryOnly bool `yaml:"summary_only"`
	// Replications is the number of independent runs per sweep point;
	// replications × sweep points is at most MaxJobs.
	Replications int `yaml:"replications"`
	// Percentiles are the percentiles reported for each latency metric.
	Percentiles []float64 `yaml:"percentiles"`
	// Workload is the request stream.
	Workload Workload `yaml:"workload"`
	// Server is the system under test.
	Server Server `yaml:"server"`
	// SLO is the per-request objective and the attainment target.
	SLO SLO `yaml:"slo"`
	// Sweep, when set, varies one parameter.
	Sweep *Sweep `yaml:"sweep"`
	// Plan, when set, is the search space of `servesim plan` (package
	// plan); other commands ignore it.
	Plan *Plan `yaml:"plan"`

	file   string     // the file it came from, "" when built in code
	dir    string     // relative paths resolve against it
	source []byte     // the file's bytes
	root   *yaml.Node // the parsed file, for lines and sweeps
	traces *traceCache
	// summary puts every sweep point in summary mode, whatever the file
	// says (LoadSummaryOnly).
	summary bool
}

// Workload is the request stream: exactly one of Arrival (open loop) and
// Closed (closed loop), and the lengths of each request.
type Workload struct {
	Arrival *Arrival `yaml:"arrival"`
	Closed  *Closed  `yaml:"closed"`
	// MaxConcurrency caps the requests in flight of an open loop; excess
	// requests wait in the client (vLLM's --max-concurrency). 0: no cap.
	MaxConcurrency int     `yaml:"max_concurrency"`
	Lengths        Lengths `yaml:"lengths"`
	// Sessions, with an open loop, makes it one of multi-turn sessions:
	// arrival gives session starts and lengths each turn's new input and
	// output tokens (workload.Sessions).
	Sessions *Sessions `yaml:"sessions"`
}

// Sessions is multi-turn traffic (workload.Sessions): each session sends
// Turns requests, Think after each response, each prompt the conversation
// so far plus new tokens, every session starting with SystemPrompt
// shared tokens.
type Sessions struct {
	// Turns and Think are distributions in ParseDist's syntax ("det:4",
	// "uniform:2,10"; think in seconds, "exp:5"); empty Think means none.
	Turns        string `yaml:"turns"`
	Think        string `yaml:"think"`
	SystemPrompt int    `yaml:"system_prompt"`
}

// Arrival is an open-loop arrival process.
type Arrival struct {
	// Process is poisson (the default), gamma, constant, ramp or trace.
	Process string `yaml:"process"`
	// Rate is the mean rate in requests per second, or inf (every request
	// at time 0; poisson and gamma only).
	Rate Rate `yaml:"rate"`
	// Burstiness is the Gamma shape of the gaps (gamma, ramp): 1 is
	// Poisson, < 1 burstier, > 1 more regular.
	Burstiness float64 `yaml:"burstiness"`
	// Normalize rescales the arrival times as vLLM's bench does, so the
	// last one lands at n/rate (poisson, gamma).
	Normalize bool `yaml:"normalize"`
	// Start, End and Strategy (linear, exponential) describe a ramp in
	// requests per second.
	Start    float64 `yaml:"start"`
	End      float64 `yaml:"end"`
	Strategy string  `yaml:"strategy"`
	// Path is a trace file (CSV or JSONL) whose timestamps are replayed,
	// sped up by Speedup (0 means 1), keeping the requests of trace time
	// [WindowStart, WindowEnd) seconds (WindowEnd 0: to the end). The
	// lengths of the same file (kind trace) follow the same window.
	Path        string  `yaml:"path"`
	Speedup     float64 `yaml:"speedup"`
	WindowStart float64 `yaml:"window_start"`
	WindowEnd   float64 `yaml:"window_end"`
}

// Closed is a closed loop of Clients clients, each sending its next
// request Think after its previous one completed.
type Closed struct {
	Clients int `yaml:"clients"`
	// Think is a distribution of think times in ParseDist's syntax
	// ("exp:0.5"); empty means none.
	Think string `yaml:"think"`
}

// Lengths is the joint distribution of (input, output) token counts.
type Lengths struct {
	// Kind is random (vLLM's random dataset; the default), fixed,
	// lognormal, trace, pairs or prefix_repetition (vLLM's dataset of that
	// name).
	Kind string `yaml:"kind"`
	// PrefixLen puts a prefix of that many tokens, the same for every
	// request, before each prompt (vLLM's --random-prefix-len; any kind
	// but prefix_repetition, where it is the length of each of the
	// NumPrefixes prefixes, followed by SuffixLen tokens of the
	// request's own).
	PrefixLen   int `yaml:"prefix_len"`
	SuffixLen   int `yaml:"suffix_len"`
	NumPrefixes int `yaml:"num_prefixes"`
	// BlockSize overrides the tokens per hash id of a trace with hash_ids
	// (default: the trace's block_size, else 512 as in Mooncake traces).
	BlockSize int `yaml:"block_size"`
	// Input and Output are the lengths (fixed), the centres of the ranges
	// (random) or the medians (lognormal), tokens.
	Input  int `yaml:"input"`
	Output int `yaml:"output"`
	// RangeRatio r draws uniformly from [n(1−r), n(1+r)] (random);
	// OutputRangeRatio, when set, is the outputs' own r (random).
	RangeRatio       float64  `yaml:"range_ratio"`
	OutputRangeRatio *float64 `yaml:"output_range_ratio"`
	// Pairs lists each request's (input, output) lengths in order (kind
	// pairs; request i takes row i mod len): a dataset read beforehand.
	Pairs []workload.Pair `yaml:"pairs"`
	// Oversample (kind pairs) gives requests past the last row a row drawn
	// at random instead of cycling (workload.Oversampled), as vLLM fills
	// --num-prompts from a smaller dataset.
	Oversample bool `yaml:"oversample"`
	// Blocks (kind pairs, with BlockSize) lists each pair's prompt block
	// ids, BlockSize tokens each: pairs with equal ids there share those
	// tokens, which a prefix cache sees (workload.Sequence.Blocks), as a
	// timed_trace's hash_ids.
	Blocks [][]int64 `yaml:"blocks"`
	// InputSigma, OutputSigma, Correlation, InputMax and OutputMax shape
	// the log-normal.
	InputSigma  float64 `yaml:"input_sigma"`
	OutputSigma float64 `yaml:"output_sigma"`
	Correlation float64 `yaml:"correlation"`
	InputMax    int     `yaml:"input_max"`
	OutputMax   int     `yaml:"output_max"`
	// Path is a trace file (kind trace); Order is resample (rows drawn with
	// replacement) or sequence (rows in trace order). The default is
	// sequence when the arrivals replay the same trace, else resample.
	Path  string `yaml:"path"`
	Order string `yaml:"order"`
}

// Server is the system under test: a vLLM-style engine (kind vllm, the
// default) or an FCFS queue (kind fcfs). Engine field names follow
// `vllm serve`.
type Server struct {
	Kind string `yaml:"kind"`
	// Model and GPU are catalog names (cost.ModelNames, cost.GPUNames) or
	// paths to spec files (.json, .yaml); Model may also be the Hugging
	// Face id of a catalog model (see CatalogName).
	Model              string `yaml:"model"`
	GPU                string `yaml:"gpu"`
	TensorParallelSize int    `yaml:"tensor_parallel_size"`
	// Engine knobs (kind vllm); see batching.Config. MaxNumSeqs and
	// MaxNumBatchedTokens 0 are `vllm serve`'s defaults for the GPU
	// (batching.Serve with batching.VLLMCurrent: 1024 and 8192 on GPUs of
	// >= 70 GiB other than A100, else 256 and 2048); with chunked prefill
	// off the token budget defaults to max(max_model_len, that budget) (a
	// whole prompt must fit one step).
	MaxNumSeqs           int  `yaml:"max_num_seqs"`
	MaxNumBatchedTokens  int  `yaml:"max_num_batched_tokens"`
	EnableChunkedPrefill bool `yaml:"enable_chunked_prefill"`
	EnablePrefixCaching  bool `yaml:"enable_prefix_caching"`
	// AsyncScheduling forms each step when the one before it launches, as
	// vLLM's --async-scheduling (batching.Config.AsyncScheduling). Off by
	// default, though vLLM turns it on from v0.14: see docs/fidelity.md's
	// section on it.
	AsyncScheduling bool `yaml:"async_scheduling"`
	// APIServer puts the frontend's one process (vLLM's API server) in
	// front of the engine, as one CPU that takes requests in and streams
	// tokens out in order (batching.APIServer). Zero: none, the frontend
	// costs only request_overhead_ms and the profile's frontend time.
	APIServer            batching.APIServer `yaml:"api_server"`
	BlockSize            int                `yaml:"block_size"`
	GPUMemoryUtilization float64            `yaml:"gpu_memory_utilization"`
	// KVCacheMemory sets the KV pool per GPU in bytes ("8GiB" works),
	// overriding GPUMemoryUtilization. 0: derived from memory.
	KVCacheMemory Bytes `yaml:"kv_cache_memory"`
	// NumGPUBlocksOverride sets the KV pool of each replica in blocks
	// (vllm serve --num-gpu-blocks-override), overriding memory. 0: from
	// memory.
	NumGPUBlocksOverride int `yaml:"num_gpu_blocks_override"`
	// MaxModelLen rejects requests whose input+output exceeds it, tokens.
	// 0 is vLLM's default: the model's context length (cost.ModelSpec
	// MaxContext, max_position_embeddings), or no limit when the model spec
	// does not give it. It may not exceed the model's context length, and
	// the KV pool must hold it.
	MaxModelLen int `yaml:"max_model_len"`
	// Quantization, DType and KVCacheDType are `vllm serve`'s
	// --quantization (fp8, awq, gptq, int8, mxfp4, ...: weight bytes and
	// GEMM rate; "" keeps the checkpoint's, or the one a Hugging Face id's
	// suffix such as -FP8 implies), --dtype (auto, half, float16,
	// bfloat16) and --kv-cache-dtype (auto, fp8: half the KV bytes of
	// bf16, ...). See Scenario.Model.
	Quantization string `yaml:"quantization"`
	DType        string `yaml:"dtype"`
	KVCacheDType string `yaml:"kv_cache_dtype"`
	// RequestOverheadMS is a fixed per-request latency (tokenize, HTTP)
	// in milliseconds, added to TTFT and E2E.
	RequestOverheadMS float64 `yaml:"request_overhead_ms"`
	// Efficiency, when set, prices steps by the cost model's three-number
	// efficiency instead of the GPU's built-in profile.
	Efficiency *cost.Efficiency `yaml:"efficiency"`
	// Profile is the path of an efficiency profile (cost.Profile YAML, as
	// `servesim calibrate` writes it), relative to the scenario file, or
	// "default" (the GPU's built-in profile, cost.DefaultProfile), or
	// "none" (the three-number efficiency: Efficiency, or
	// cost.DefaultEfficiency). Empty is "default" unless Efficiency is set.
	Profile string `yaml:"profile"`
	// DataParallelSize is vLLM's --data-parallel-size (0 or 1: none). For
	// a mixture-of-experts model it is D attention data-parallel groups of
	// TensorParallelSize GPUs that share the MoE layers and step together
	// (cost.Deployment.DP; batching simulates them as vLLM runs them); for
	// a dense model, D independent engines behind Router, as Replicas.
	DataParallelSize int `yaml:"data_parallel_size"`
	// PipelineParallelSize is vLLM's --pipeline-parallel-size (0 or 1:
	// none): the model's layers split over that many stages of
	// TensorParallelSize GPUs each (batching.Pipeline). One replica only.
	PipelineParallelSize int `yaml:"pipeline_parallel_size"`
	// PipelineScheduler picks the pipeline's micro-batching: "" or "v1"
	// (vLLM v1's batch queue), "v0" (v0's virtual engines); see
	// batching.Pipeline.
	PipelineScheduler batching.PipelineScheduler `yaml:"pipeline_scheduler"`
	// EnableExpertParallel is vLLM's --enable-expert-parallel: the routed
	// experts are split over the TP·D GPUs of a mixture-of-experts model
	// (cost.Deployment.EP = TP·D) instead of each expert sharded over them.
	EnableExpertParallel bool `yaml:"enable_expert_parallel"`
	// AllToAll, when set, names a measured all-to-all of the catalog
	// (cost.AllToAllByName, e.g. "deepep-h800-cx7") that prices the MoE
	// exchange as dispatch and combine kernels by the link each crosses,
	// as vLLM's --all2all-backend deepep_low_latency runs it; it needs
	// enable_expert_parallel and data_parallel_size >= 2, and the EP group
	// may span nodes (cost.Deployment.AllToAll).
	AllToAll string `yaml:"all_to_all"`
	// Topology, when set, names a multi-node layout of the catalog
	// (topology.ByName, e.g. "h100-ndr-xe9680"; servesim bench
	// --topology): TensorParallelSize above its GPUs per node spans
	// nodes, and the all-reduce is the layout's fitted inter-node one
	// (topology.Topology.Comm); within one node the GPU's own. GPU must be
	// the layout's, and TensorParallelSize whole nodes, no more than the
	// nodes it measured.
	Topology string `yaml:"topology"`
	// SpeculativeConfig is vLLM's --speculative-config (method,
	// num_speculative_tokens, model, draft_tensor_parallel_size) with
	// servesim's acceptance model (acceptance_rates, acceptance_rate or
	// acceptance_dataset); see docs/speculative.md.
	SpeculativeConfig *specdecode.Config `yaml:"speculative_config"`
	// KVOffloadingSize is vLLM's --kv-offloading-size: a CPU buffer of
	// that many GiB (summed over the TP ranks) holding offloaded KV blocks
	// (batching.KVOffload, docs/kv-offload.md); 0 is off.
	// KVOffloadingBackend is --kv-offloading-backend: "native" (vLLM's
	// OffloadingConnector; "" too) or "lmcache" (LMCacheConnectorV1).
	// PCIeBandwidth is the host-device copy bandwidth per GPU and
	// direction, bytes/s (0:
	// batching.DefaultPCIeBandwidth, 50e9); each transfer also costs
	// batching.DefaultPCIeLatency. A backend or bandwidth without a size
	// is an error (vLLM ignores a backend without a size).
	KVOffloadingSize    float64 `yaml:"kv_offloading_size"`
	KVOffloadingBackend string  `yaml:"kv_offloading_backend"`
	PCIeBandwidth       float64 `yaml:"pcie_bandwidth"`
	// Replicas engine replicas behind Router (round-robin,
	// least-outstanding, prefix-aware), PrefixWeight weighing cache reuse
	// against load for prefix-aware (0: batching.DefaultPrefixWeight).
	Replicas     int     `yaml:"replicas"`
	Router       string  `yaml:"router"`
	PrefixWeight float64 `yaml:"prefix_weight"`
	// Servers, Service and QueueCap describe an FCFS(c) queue (kind
	// fcfs). Service is a distribution in ParseDist's syntax; empty means
	// the cost model: the request served alone on Model/GPU.
	Servers  int    `yaml:"servers"`
	Service  string `yaml:"service"`
	QueueCap int    `yaml:"queue_cap"`
}

// SLO is a per-request objective in milliseconds (0: bound not set) and
// the attainment target q in (0, 1].
type SLO struct {
	TTFTms float64 `yaml:"ttft_ms"`
	TPOTms float64 `yaml:"tpot_ms"`
	E2ELms float64 `yaml:"e2el_ms"`
	Target float64 `yaml:"target"`
}

// Set reports whether any bound is configured.
func (s SLO) Set() bool { return s.TTFTms > 0 || s.TPOTms > 0 || s.E2ELms > 0 }

// Sim returns the bounds in seconds.
func (s SLO) Sim() metrics.SLO {
	return metrics.SLO{TTFT: s.TTFTms / 1000, TPOT: s.TPOTms / 1000, E2E: s.E2ELms / 1000}
}

// Sweep varies one scalar parameter, named by its dotted path in the file
// ("workload.arrival.rate", "server.max_num_seqs"), over Values.
type Sweep struct {
	Param  string      `yaml:"param"`
	Values []yaml.Node `yaml:"values"`
}

// Rate is a request rate in requests per second; in YAML a number or inf.
// (It is the type of workload.arrival.rate, which its errors name.)
type Rate float64

// UnmarshalYAML accepts a number or inf.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseRate(n.Value)
	if err != nil || n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: workload.arrival.rate: %q must be a number > 0 (requests/s) or inf", n.Line, n.Value)
	}
	*r = Rate(v)
	return nil
}

// Bytes is a byte count; in YAML a number or a string with a unit
// ("8GiB"). (It is the type of server.kv_cache_memory, which its errors
// name.)
type Bytes float64

// UnmarshalYAML accepts a number or a string with a unit.
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseBytes(n.Value)
	if err != nil || n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: server.kv_cache_memory: %v", n.Line, err)
	}
	*b = Bytes(v)
	return nil
}

// Defaults for what a scenario file leaves out.
const (
	DefaultModel    = "llama-3.1-8b"
	DefaultGPU      = "h100-sxm"
	DefaultRequests = 1000
	DefaultTarget   = 0.99
)

// Default returns the values a scenario file starts from: 1000 requests,
// no warm-up, one replication, seed 0, percentiles 50/90/99, vLLM's random
// lengths (1024 in, 128 out), a vLLM-v1 engine with vLLM's defaults
// serving llama-3.1-8b on one h100-sxm, SLO target 0.99. The workload's
// arrival process is left unset.
func Default() Scenario {
	// The engine knobs are vllm serve's; the scheduler's two stay 0, set
	// per GPU when the engine is built (engineTemplate).
	e := batching.Serve(cost.ModelSpec{}, cost.GPUSpec{}, batching.VLLMCurrent)
	return Scenario{
		Requests:     DefaultRequests,
		Replications: 1,
		Workload:     Workload{Lengths: Lengths{Kind: "random", Input: 1024, Output: 128}},
		Server: Server{
			Kind: "vllm", Model: DefaultModel, GPU: DefaultGPU,
			TensorParallelSize:   e.Deployment.TP,
			EnableChunkedPrefill: e.EnableChunkedPrefill,
			EnablePrefixCaching:  e.EnablePrefixCaching,
			BlockSize:            e.BlockSize,
			GPUMemoryUtilization: e.Deployment.GPUMemoryUtilization,
			Replicas:             1,
			Router:               string(batching.RoundRobin),
			Servers:              1,
		},
		SLO: SLO{Target: DefaultTarget},
	}
}

// Load reads and checks the scenario file at path. Errors name the file,
// the line and the field.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// LoadSummaryOnly reads the scenario at path as Load does, in summary
// mode whatever its summary_only says (the CLI's --summary-only): every
// run, at every sweep point, keeps quantile sketches instead of request
// records, and the limits on its size are summary mode's.
func LoadSummaryOnly(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(data, path, true)
}

// Parse reads a scenario from data; filename is used in error messages and
// relative paths inside the scenario resolve against its directory.
// Unknown fields are errors. Parse checks every field and, with a sweep,
// every sweep point, so that a scenario that parses can run.
func Parse(data []byte, filename string) (*Scenario, error) {
	return parse(data, filename, false)
}

// parse is Parse, in summary mode whatever the file says when summary is
// set.
func parse(data []byte, filename string, summary bool) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(filename, err)
	}
	if docMapping(&root) == nil {
		return nil, &FieldError{File: filename, Limit: "empty scenario", Class: ErrInvalid}
	}
	if m := docMapping(&root); m.Kind != yaml.MappingNode {
		return nil, &FieldError{File: filename, Line: m.Line, Limit: "a scenario must be a mapping of fields (name:, workload:, server:, ...)", Class: ErrInvalid}
	}
	s, err := decode(data, filename)
	if err != nil {
		return nil, err
	}
	s.file, s.dir, s.source, s.root = filename, filepath.Dir(filename), data, &root
	s.traces = newTraceCache()
	s.summary = summary
	s.SummaryOnly = s.SummaryOnly || summary
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// decode decodes data over Default with unknown fields rejected and
// numbers checked against their fields (checkNumbers).
func decode(data []byte, filename string) (*Scenario, error) {
	s := Default()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(filename, err)
	}
	if err := checkNumbers(&root, reflect.TypeFor[Scenario](), ""); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			fe.File = filename
		}
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &FieldError{File: filename, Limit: "empty scenario", Class: ErrInvalid}
		}
		return nil, yamlError(filename, err)
	}
	return &s, nil
}

// File returns the file the scenario came from ("" when built in code).
func (s *Scenario) File() string { return s.file }

// Source returns the bytes of the scenario file (nil when built in code).
func (s *Scenario) Source() []byte { return s.source }

// SetDir sets the directory relative paths resolve against for a scenario
// built in code (the working directory by default).
func (s *Scenario) SetDir(dir string) { s.dir = dir }

// Check validates every field and, with a sweep, every sweep point. Errors
// are *FieldError values naming the field's path (and, for a scenario read
// from a file, the file and line).
func (s *Scenario) Check() error {
	if err := s.checkSweep(); err != nil {
		return s.locate(err)
	}
	if s.Plan != nil {
		if err := s.Plan.check(); err != nil {
			return s.locate(err)
		}
	}
	if s.Sweep != nil { // before the points are built
		if err := s.checkJobs(len(s.Sweep.Values)); err != nil {
			return s.locate(err)
		}
	}
	pts, err := s.Points()
	if err != nil {
		return err
	}
	for _, p := range pts {
		if _, err := p.Scenario.Config(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scenario) locate(err error) error {
	if err == nil {
		return nil
	}
	return locate(err, s.file, s.root)
}

// resolve returns path relative to the scenario's directory.
func (s *Scenario) resolve(path string) string {
	if path == "" || filepath.IsAbs(path) || s.dir == "" {
		return path
	}
	return filepath.Join(s.dir, path)
}
