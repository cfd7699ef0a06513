package scenario

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/sim"
)

// Server kinds.
const (
	KindVLLM = "vllm"
	KindFCFS = "fcfs"
)

// server builds the system under test.
func (s *Scenario) server() (sim.ServerConfig, error) {
	v := s.Server
	switch v.Kind {
	case KindVLLM, "":
		if err := unused("server", "kind vllm", field{"servers", v.Servers != 1}, field{"service", v.Service != ""}, field{"queue_cap", v.QueueCap != 0}); err != nil {
			return nil, err
		}
		return s.engine()
	case KindFCFS:
		if err := unused("server", "kind fcfs", field{"data_parallel_size", v.DataParallelSize != 0}, field{"enable_expert_parallel", v.EnableExpertParallel}, field{"all_to_all", v.AllToAll != ""}, field{"topology", v.Topology != ""}); err != nil {
			return nil, err
		}
		return s.fcfs()
	default:
		return nil, fieldErr("server.kind", "unknown kind %q (known: %q, %q)", v.Kind, KindVLLM, KindFCFS)
	}
}

// Engine returns the batching configuration of one replica (kind vllm),
// for reports that describe the engine (its KV pool, say).
func (s *Scenario) Engine() (batching.Config, error) {
	c, err := s.engineConfig()
	if err != nil {
		return batching.Config{}, s.locate(err)
	}
	return c, nil
}

// EngineTemplate returns the engine of the server block with its fields
// checked but not the deployment as a whole (the model may not fit the
// block's tensor_parallel_size): a template whose TP a screen sets per
// candidate.
func (s *Scenario) EngineTemplate() (batching.Config, error) {
	c, err := s.engineTemplate()
	if err != nil {
		return batching.Config{}, s.locate(err)
	}
	if l, err := s.lengths(); err == nil {
		if err := s.checkFit(l, c, nil); err != nil {
			return batching.Config{}, s.locate(err)
		}
	}
	return c, nil
}

func (s *Scenario) engineConfig() (batching.Config, error) {
	c, err := s.engineTemplate()
	if err != nil {
		return c, err
	}
	if pp := s.Server.PipelineParallelSize; pp > 1 || pp < 0 {
		if err := (batching.Pipeline{Engine: c, Stages: pp, Scheduler: s.Server.PipelineScheduler}).Validate(); err != nil {
			return c, engineError(err)
		}
		return c, nil
	}
	if err := c.Validate(); err != nil {
		return c, withFitHint(c, engineError(err))
	}
	return c, nil
}

func (s *Scenario) engineTemplate() (batching.Config, error) {
	v := s.Server
	model, err := s.Model()
	if err != nil {
		return batching.Config{}, err
	}
	gpu, err := s.GPU()
	if err != nil {
		return batching.Config{}, err
	}
	c := batching.Serve(model, gpu, batching.VLLMCurrent)
	c.Deployment.TP = v.TensorParallelSize
	switch dp := v.DataParallelSize; {
	case dp < 0:
		return c, fieldErr("server.data_parallel_size", "%d must be >= 1 (or 0: none)", dp)
	case dp > batching.MaxDataParallel:
		return c, fieldErr("server.data_parallel_size", "%d exceeds %d, the most data-parallel engines or groups a run simulates (each with its own scheduler and KV pool)", dp, batching.MaxDataParallel)
	case v.EnableExpertParallel && model.Experts == 0:
		return c, fieldErr("server.enable_expert_parallel", "needs a mixture-of-experts model; %s is dense", model.Name)
	case model.Experts > 0 && dp > 1:
		c.Deployment.DP = dp
	}
	if v.EnableExpertParallel {
		c.Deployment.EP = max(v.TensorParallelSize, 1) * max(c.Deployment.DP, 1)
	}
	if name := v.AllToAll; name != "" {
		a, err := cost.AllToAllByName(name)
		if err != nil {
			return c, fieldErr("server.all_to_all", "%v", err)
		}
		c.Deployment.AllToAll = a
	}
	c.Deployment.GPUMemoryUtilization = v.GPUMemoryUtilization
	c.Deployment.KVCacheMemory = float64(v.KVCacheMemory)
	if err := s.efficiency(&c.Deployment); err != nil {
		return c, err
	}
	if v.MaxNumSeqs != 0 {
		c.MaxNumSeqs = v.MaxNumSeqs
	}
	c.EnableChunkedPrefill = v.EnableChunkedPrefill
	c.EnablePrefixCaching = v.EnablePrefixCaching
	c.AsyncScheduling = v.AsyncScheduling
	c.APIServer = v.APIServer
	c.BlockSize = v.BlockSize
	c.KVBlocks = v.NumGPUBlocksOverride
	c.RequestOverhead = v.RequestOverheadMS / 1000
	if sp := v.SpeculativeConfig; sp != nil {
		if err := sp.Validate(); err != nil {
			return c, engineError(err)
		}
		cp := *sp
		c.Speculative = &cp
	}
	off, err := batching.NewKVOffload(v.KVOffloadingSize, v.KVOffloadingBackend, v.PCIeBandwidth)
	if err != nil {
		return c, engineError(fielderr.Rename(err, func(f string) string { return "kv_offload." + f }))
	}
	c.KVOffload = off
	switch {
	case v.TensorParallelSize < 1:
		return c, fieldErr("server.tensor_parallel_size", "%d must be >= 1", v.TensorParallelSize)
	case v.MaxNumSeqs < 0:
		return c, fieldErr("server.max_num_seqs", "%d must be >= 1 (or 0: vLLM's default for the GPU)", v.MaxNumSeqs)
	case v.MaxNumBatchedTokens < 0:
		return c, fieldErr("server.max_num_batched_tokens", "%d must be >= 1 (or 0: vLLM's default)", v.MaxNumBatchedTokens)
	case v.NumGPUBlocksOverride < 0:
		return c, fieldErr("server.num_gpu_blocks_override", "%d must be >= 0 (0: from memory)", v.NumGPUBlocksOverride)
	case v.BlockSize < 1:
		return c, fieldErr("server.block_size", "%d must be >= 1", v.BlockSize)
	case v.KVCacheMemory == 0 && !(v.GPUMemoryUtilization > 0 && v.GPUMemoryUtilization <= 1):
		return c, fieldErr("server.gpu_memory_utilization", "%v must be in (0, 1]", v.GPUMemoryUtilization)
	case v.MaxModelLen < 0:
		return c, fieldErr("server.max_model_len", "%d must be >= 1 (or 0: the model's context length)", v.MaxModelLen)
	case model.MaxContext > 0 && v.MaxModelLen > model.MaxContext:
		return c, fieldErr("server.max_model_len", "%d exceeds %s's context length %d (max_position_embeddings in its config.json): vLLM refuses it",
			v.MaxModelLen, model.Name, model.MaxContext)
	case !(v.RequestOverheadMS >= 0) || math.IsInf(v.RequestOverheadMS, 1):
		return c, fieldErr("server.request_overhead_ms", "%v must be a finite number >= 0", v.RequestOverheadMS)
	}
	if v.Topology != "" {
		top, err := topology.ByName(v.Topology)
		if err != nil {
			return c, valueErr("server.topology", v.Topology, "%v", err)
		}
		if c.Deployment.Comm, err = top.Comm(gpu, v.TensorParallelSize); err != nil {
			return c, valueErr("server.topology", v.Topology, "%v", err)
		}
	}
	// vLLM's defaults: max_model_len is the model's context length, and
	// the token budget the GPU's (Serve), or, without chunked prefill,
	// enough for the longest request: max(max_model_len, that budget).
	c.MaxModelLen = v.MaxModelLen
	if c.MaxModelLen == 0 {
		c.MaxModelLen = model.MaxContext
	}
	switch {
	case v.MaxNumBatchedTokens > 0:
		c.MaxNumBatchedTokens = v.MaxNumBatchedTokens
	case !c.EnableChunkedPrefill:
		c.MaxNumBatchedTokens = max(c.MaxModelLen, c.MaxNumBatchedTokens)
	}
	return c, nil
}

// engine builds one replica, or a cluster of Replicas behind Router.
func (s *Scenario) engine() (sim.ServerConfig, error) {
	v := s.Server
	c, err := s.engineConfig()
	if err != nil {
		return nil, err
	}
	if err := positive("server.replicas", v.Replicas); err != nil {
		return nil, err
	}
	if v.Replicas > MaxReplicas {
		return nil, fieldErr("server.replicas", "%d exceeds %d, the most engine replicas a run simulates (each with its own scheduler and KV pool)", v.Replicas, MaxReplicas)
	}
	r := batching.Router(v.Router)
	if r != batching.RoundRobin && r != batching.LeastOutstanding && r != batching.PrefixAware {
		return nil, fieldErr("server.router", "unknown router %q (known: %q, %q, %q)", v.Router, batching.RoundRobin, batching.LeastOutstanding, batching.PrefixAware)
	}
	if !(v.PrefixWeight >= 0) || math.IsInf(v.PrefixWeight, 1) {
		return nil, fieldErr("server.prefix_weight", "%v must be a finite number >= 0", v.PrefixWeight)
	}
	if v.PrefixWeight != 0 && r != batching.PrefixAware {
		return nil, fieldErr("server.prefix_weight", "applies to router %q", batching.PrefixAware)
	}
	replicas := v.Replicas
	switch {
	case c.Deployment.DP > 1 && replicas > 1 && replicas > batching.MaxDataParallel/c.Deployment.DP:
		return nil, fieldErr("server.replicas", "%d replicas of a deployment with data_parallel_size %d make %d data-parallel groups, more than %d, the most a run simulates (each with its own scheduler and KV pool)", replicas, c.Deployment.DP, replicas*c.Deployment.DP, batching.MaxDataParallel)
	case c.Deployment.DP > 1 && replicas > 1 && r == batching.PrefixAware:
		return nil, fieldErr("server.router", "%q over replicas of a deployment with data_parallel_size %d is not modelled: use %q or %q", r, c.Deployment.DP, batching.RoundRobin, batching.LeastOutstanding)
	case c.Deployment.DP <= 1 && v.DataParallelSize > 1:
		// A dense model's data-parallel engines are independent replicas.
		replicas *= v.DataParallelSize
		if replicas > MaxReplicas {
			return nil, fieldErr("server.data_parallel_size", "%d times %d replicas exceeds %d, the most engine replicas a run simulates (each with its own scheduler and KV pool)", v.DataParallelSize, v.Replicas, MaxReplicas)
		}
	}
	if pp := v.PipelineParallelSize; pp > 1 {
		if replicas > 1 {
			return nil, fieldErr("server.pipeline_parallel_size", "%d with %d replicas is not modelled: simulate one pipeline (replicas 1, data_parallel_size 1)", pp, replicas)
		}
		return batching.Pipeline{Engine: c, Stages: pp, Scheduler: v.PipelineScheduler}, nil
	}
	if replicas == 1 {
		return c, nil
	}
	return batching.Cluster{Engine: c, Replicas: replicas, Router: r, PrefixWeight: v.PrefixWeight}, nil
}

// serverFieldOf maps a batching field (fielderr.Error.Field, in the
// batching package's schema) to the server field that sets it; a field
// not listed, or none, is the server block as a whole.
var serverFieldOf = map[string]string{
	"max_num_seqs":               "server.max_num_seqs",
	"max_num_batched_tokens":     "server.max_num_batched_tokens",
	"block_size":                 "server.block_size",
	"max_model_len":              "server.max_model_len",
	"kv_blocks":                  "server.num_gpu_blocks_override",
	"request_overhead":           "server.request_overhead_ms",
	"speculative_config":         "server.speculative_config",
	"pipeline_parallel_size":     "server.pipeline_parallel_size",
	"replicas":                   "server.replicas",
	"router":                     "server.router",
	"prefix_weight":              "server.prefix_weight",
	"deployment.tp":              "server.tensor_parallel_size",
	"deployment.dp":              "server.data_parallel_size",
	"deployment.ep":              "server.enable_expert_parallel",
	"deployment.kv_cache_memory": "server.kv_cache_memory",

	// The API server process (batching.APIServer).
	"api_server.per_request_s":      "server.api_server.per_request_s",
	"api_server.per_prompt_token_s": "server.api_server.per_prompt_token_s",
	"api_server.per_output_token_s": "server.api_server.per_output_token_s",
	"api_server":                    "server.api_server",

	// KV offloading (batching.KVOffload).
	"kv_offload":                       "server.kv_offloading_size",
	"kv_offload.kv_offloading_size":    "server.kv_offloading_size",
	"kv_offload.kv_offloading_backend": "server.kv_offloading_backend",
	"kv_offload.pcie_bandwidth":        "server.pcie_bandwidth",
}

// engineError places a batching validation error at the server field it
// is about (serverFieldOf), or at server when it is about none.
func engineError(err error) error {
	out := fielderr.Rename(err, func(field string) string {
		if p, ok := serverFieldOf[field]; ok {
			return p
		}
		return "server"
	})
	if fe := fielderr.Of(out); fe != nil {
		fe.Class = ErrInvalid // Rename's copy, ours to set
		if in := fielderr.Of(err); in.Field == "deployment.ep" && fe.Value != nil {
			// enable_expert_parallel is a switch; the degree it sets is
			// the engine's value, and the limit is about that.
			fe.Limit = fmt.Sprintf("sets ep %v, which %s", fe.Value, fe.Limit)
			fe.Value = nil
		}
	}
	return out
}

// fcfs builds an FCFS(c) station.
func (s *Scenario) fcfs() (sim.ServerConfig, error) {
	v := s.Server
	if err := positive("server.servers", v.Servers); err != nil {
		return nil, err
	}
	if v.Servers > MaxServers {
		return nil, fieldErr("server.servers", "%d exceeds %d, the most FCFS servers a run simulates (each server's state is allocated up front)", v.Servers, MaxServers)
	}
	if err := nonNegative("server.queue_cap", v.QueueCap); err != nil {
		return nil, err
	}
	f := queue.FCFS{Servers: v.Servers, QueueCap: v.QueueCap}
	if v.Service != "" {
		d, err := ParseDist(v.Service)
		if err != nil {
			return nil, errorf("server.service", err)
		}
		f.Service = d
		return f, nil
	}
	fn, err := s.costService()
	if err != nil {
		return nil, err
	}
	f.ServiceOf = fn
	return f, nil
}

// The values of server.profile that name no file.
const (
	// ProfileDefault is the GPU's built-in profile (cost.DefaultProfile),
	// what an empty server.profile gives unless server.efficiency is set.
	ProfileDefault = "default"
	// ProfileNone is no profile: the cost model's three-number efficiency
	// (server.efficiency, or cost.DefaultEfficiency).
	ProfileNone = "none"
)

// efficiency sets d's efficiency from server.profile and
// server.efficiency: a profile file, or "default" (the GPU's built-in
// profile, also what an empty profile gives), or "none" (no profile). A
// server.efficiency replaces the profile an empty server.profile would
// give, and fails beside a profile, which would replace it.
func (s *Scenario) efficiency(d *cost.Deployment) error {
	v := s.Server
	if v.Efficiency != nil {
		d.Eff = *v.Efficiency
	}
	switch {
	case v.Profile == ProfileNone || v.Profile == "" && v.Efficiency != nil:
		d.Profile = nil
	case v.Efficiency != nil:
		return fieldErr("server.efficiency", "is set beside server.profile %q, which replaces it: use one (profile %q keeps the efficiency)", v.Profile, ProfileNone)
	case v.Profile == "" || v.Profile == ProfileDefault:
		prof := cost.DefaultProfile(d.GPU)
		d.Profile = &prof
	default:
		prof, err := cost.LoadProfile(s.resolve(v.Profile))
		if err != nil {
			return fieldErr("server.profile", "%v", err)
		}
		if err := prof.ForGPU(d.GPU.Name); err != nil {
			return fieldErr("server.profile", "%s: %v", v.Profile, err)
		}
		d.Profile = &prof
	}
	return nil
}

// costService returns the service of a request served alone on the
// scenario's model and GPU: a prefill of its input, then output−1 decode
// steps at batch 1, priced at the mean context input + output/2.
func (s *Scenario) costService() (queue.ServiceFunc, error) {
	model, err := s.Model()
	if err != nil {
		return nil, err
	}
	gpu, err := s.GPU()
	if err != nil {
		return nil, err
	}
	if err := positive("server.tensor_parallel_size", s.Server.TensorParallelSize); err != nil {
		return nil, err
	}
	d := cost.Deployment{Model: model, GPU: gpu, TP: s.Server.TensorParallelSize, Eff: cost.DefaultEfficiency()}
	if err := s.efficiency(&d); err != nil {
		return nil, err
	}
	sm, err := d.Compile()
	if err != nil {
		return nil, errorf("server", err)
	}
	overhead := s.Server.RequestOverheadMS / 1000
	overhead += d.FrontendOverhead() // as the batching engine adds it
	return func(in, out int) (first, total float64) {
		var b cost.Batch
		b.AddPrefill(in, 0)
		first = overhead + sm.Step(b).Time
		if out > 1 {
			total = first + float64(out-1)*sm.Step(cost.DecodeBatch(1, float64(in)+float64(out)/2)).Time
		} else {
			total = first
		}
		return first, total
	}, nil
}

// GPU returns the server's GPU: a catalog entry, or the spec file the name
// points to.
func (s *Scenario) GPU() (cost.GPUSpec, error) {
	name := s.Server.GPU
	if s.isSpecPath(name) {
		g, err := cost.LoadGPU(s.resolve(name))
		return g, errorf("server.gpu", err)
	}
	key := gpuKey(name)
	g, err := cost.GPU(key)
	if errors.Is(err, cost.ErrUnknownName) {
		if near := nearGPUs(key); len(near) > 0 {
			return g, fieldErr("server.gpu", "unknown gpu %q: did you mean %s? (known: %s; or a path to a GPU spec file, .json or .yaml)",
				name, strings.Join(near, " or "), strings.Join(cost.GPUNames(), ", "))
		}
		return g, fieldErr("server.gpu", "unknown gpu %q (known: %s; or a path to a GPU spec file, .json or .yaml)",
			name, strings.Join(cost.GPUNames(), ", "))
	}
	return g, errorf("server.gpu", err)
}

// isSpecPath reports whether a model or GPU name is a spec file rather
// than a catalog name: it ends in .json, .yaml or .yml, or names an
// existing file.
func (s *Scenario) isSpecPath(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	st, err := statFile(s.resolve(name))
	return err == nil && st.Mode().IsRegular()
}

// GPUs returns the number of GPUs the server occupies (replicas × data
// parallel size × tensor parallel size for kind vllm, 1 for fcfs).
func (s *Scenario) GPUs() int {
	if s.Server.Kind == KindFCFS {
		return 1
	}
	return max(s.Server.Replicas, 1) * max(s.Server.DataParallelSize, 1) * max(s.Server.TensorParallelSize, 1) * max(s.Server.PipelineParallelSize, 1)
}

// String returns a one-line description of the server.
func (v Server) String() string {
	if v.Kind == KindFCFS {
		svc := v.Service
		if svc == "" {
			svc = fmt.Sprintf("cost model of %s on %s, TP %d", v.Model, v.GPU, v.TensorParallelSize)
		}
		return fmt.Sprintf("FCFS(%d), service %s", v.Servers, svc)
	}
	out := fmt.Sprintf("vLLM-v1 engine: %s on %s, TP %d", v.Model, v.GPU, v.TensorParallelSize)
	if v.DataParallelSize > 1 {
		out += fmt.Sprintf(", DP %d", v.DataParallelSize)
	}
	if v.PipelineParallelSize > 1 {
		out += fmt.Sprintf(", PP %d", v.PipelineParallelSize)
	}
	if v.EnableExpertParallel {
		out += ", expert parallel"
	}
	if v.Topology != "" {
		out += ", topology " + v.Topology
	}
	if v.Replicas > 1 {
		out += fmt.Sprintf(", %d replicas (%s)", v.Replicas, v.Router)
	}
	return out
}
