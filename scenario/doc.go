// Package scenario reads servesim experiment files: YAML documents that
// hold a workload, a server, an SLO, how many requests and replications to
// run, and an optional sweep over one parameter. It turns them into
// sim.Config values and numbered jobs (one per sweep point and
// replication) that a runner executes, in parallel or split into shards.
//
// Load and Parse decode with unknown fields rejected and check every
// field, and every sweep point, before anything runs (LoadSummaryOnly
// does so in summary mode, whatever summary_only says). Errors are
// *FieldError values (the project's one field error, fielderr.Error, with
// the field's YAML path as its Field) that read "file:line: path:
// message", for example
//
//	sweep.yaml:7: workload.arrival.rate: -1 must be a number > 0 (requests/s)
//	sweep.yaml:12: unknown field "max_num_seq" in server
//
// # Schema
//
// Every field is optional except the workload's loop (arrival or closed).
// Defaults are those of Default: vLLM's `vllm bench serve` and
// `vllm serve` defaults where they exist.
//
//	name: llama-8b-rate-sweep   # label for reports
//	seed: 1                     # base seed (default 0); replication r uses event.ReplicationSeed(seed, r)
//	requests: 2000              # per run, warm-up included (default 1000)
//	warmup: 200                 # first requests left out of statistics (default 0)
//	horizon: 0                  # stop each run at this simulated time, seconds (0: none)
//	max_in_system: 0            # end a run as unstable at this many requests in the system (0: sim's default)
//	summary_only: false         # keep quantile sketches, not every request (bounded memory)
//	replications: 3             # independent runs per point (default 1)
//	percentiles: [50, 90, 99]   # reported for each latency metric (default 50, 90, 95, 99, as the library)
//	workload:
//	  arrival:                  # open loop; or closed: {clients: 16, think: exp:0.5}
//	    process: poisson        # poisson (default) | gamma | constant | ramp | trace
//	    rate: 10                # requests/s, or inf (poisson, gamma, constant)
//	    burstiness: 1           # gamma shape (gamma, ramp): < 1 burstier, > 1 more regular
//	    normalize: false        # vLLM's rescaling of arrival times (poisson, gamma)
//	    start: 1                # ramp: first and last rate, requests/s
//	    end: 20
//	    strategy: linear        # ramp: linear | exponential
//	    path: trace.csv         # trace: replay its timestamps ...
//	    speedup: 1              # ... this many times faster (0 means 1)
//	    window_start: 0         # trace: keep trace time [window_start, window_end) s (0: to the end)
//	    window_end: 0
//	  max_concurrency: 0        # open loop: cap on requests in flight; excess wait in the client
//	  sessions:                 # with arrival: multi-turn sessions starting at the arrival times
//	    turns: det:4            # turns per session (a distribution, rounded, >= 1)
//	    think: exp:5            # seconds between a response and the next turn (empty: none)
//	    system_prompt: 0        # tokens every session's prompts start with
//	  lengths:
//	    kind: random            # random (default) | fixed | lognormal | trace | prefix_repetition
//	    input: 1024             # tokens: fixed value, centre of the range (random) or median (lognormal)
//	    output: 128
//	    range_ratio: 0          # random: uniform on [n(1-r), n(1+r)]
//	    input_sigma: 0.8        # lognormal: log-scale deviations, correlation, caps
//	    output_sigma: 0.6
//	    correlation: 0.3
//	    input_max: 0
//	    output_max: 0
//	    output_range_ratio: 0.5 # random: the outputs' own range ratio (default: range_ratio)
//	    pairs: [{input: 100, output: 10}]  # pairs: each request's lengths, in order
//	    oversample: false       # pairs: requests past the rows draw rows at random (else cycle)
//	    blocks: [[1, 2]]        # pairs: each pair's prompt block ids, block_size tokens each
//	    path: trace.jsonl       # trace: CSV (Azure, BurstGPT) or JSONL (Mooncake) of input/output lengths
//	    order: resample         # trace: resample (rows with replacement) | sequence (trace order)
//	    block_size: 0           # trace, pairs with blocks: tokens per hash id (trace default: the trace's, else 512)
//	    prefix_len: 0           # a prefix shared by every prompt (vLLM's --random-prefix-len);
//	                            # prefix_repetition: the length of each prefix (default 256)
//	    suffix_len: 256         # prefix_repetition: tokens of each request's own
//	    num_prefixes: 10        # prefix_repetition: distinct prefixes
//	server:
//	  kind: vllm                # vllm (default): continuous-batching engine | fcfs: FCFS(c) queue
//	  model: llama-3.1-8b       # catalog name, its Hugging Face id (CatalogName), a model directory with config.json, or a spec file (Scenario.Model)
//	  quantization: ""          # vllm serve --quantization: fp8, awq, gptq, int8, mxfp4, ... ("": the checkpoint's)
//	  dtype: auto               # auto | half | float16 | bfloat16
//	  kv_cache_dtype: auto      # auto | fp8 (half the KV bytes of bf16) | ...
//	  gpu: h100-sxm             # catalog name or a spec file (cost.LoadGPU)
//	  tensor_parallel_size: 1
//	  max_num_seqs: 0           # running requests (0: vllm serve's for the GPU: 1024 on >= 70 GiB other than A100, else 256)
//	  max_num_batched_tokens: 0 # token budget per step (0: vllm serve's: 8192 or 2048 likewise; max(max_model_len, that) without chunked prefill)
//	  enable_chunked_prefill: true
//	  enable_prefix_caching: true  # vLLM's automatic prefix caching
//	  async_scheduling: false   # vLLM's --async-scheduling: an arrival at a busy engine waits a step more
//	  api_server:               # the API server as one CPU in front of the engine (0s: none; batching.APIServer)
//	    per_request_s: 0        #   intake of a request (HTTP, validation, chat template)
//	    per_prompt_token_s: 0   #   tokenisation per prompt token
//	    per_output_token_s: 0   #   detokenising and streaming one output token
//	  block_size: 16
//	  gpu_memory_utilization: 0.92 # vllm serve's default (batching.VLLMCurrent)
//	  kv_cache_memory: 0        # bytes per GPU ("8GiB" works); overrides gpu_memory_utilization
//	  num_gpu_blocks_override: 0 # KV blocks per replica (0: from memory)
//	  kv_offloading_size: 0     # vllm serve --kv-offloading-size: GiB of CPU memory for offloaded KV blocks (0: off; docs/kv-offload.md)
//	  kv_offloading_backend: "" # vllm serve --kv-offloading-backend: native ("" too) or lmcache
//	  pcie_bandwidth: 0         # host-device copy bytes/s per GPU and direction (0: 50e9)
//	  max_model_len: 0          # reject longer requests (0: the model's context length; no limit if unknown)
//	  request_overhead_ms: 0    # fixed per-request latency added to TTFT and E2E
//	  efficiency: {bandwidth: 0.8, flops: 0.6, step_overhead_s: 0.001}
//	  data_parallel_size: 1     # vllm serve --data-parallel-size: a MoE model's groups stepping together; a dense model's engines behind router
//	  enable_expert_parallel: false # MoE: split the routed experts over the TP·DP GPUs
//	  replicas: 1               # independent copies of the deployment behind router
//	  router: round-robin       # round-robin | least-outstanding | prefix-aware
//	  prefix_weight: 0          # prefix-aware: weight of blocks to compute against blocks held (0: 1)
//	  servers: 1                # fcfs: number of servers c
//	  service: mix:0.02@0.8,0.18@0.2   # fcfs: service-time distribution (ParseDist); empty: cost model
//	  queue_cap: 0              # fcfs: bound on the waiting line (0: none)
//	slo:
//	  ttft_ms: 2000             # bounds in milliseconds, as vLLM's --goodput (0: not set)
//	  tpot_ms: 100
//	  e2el_ms: 0
//	  target: 0.99              # attainment target q (default 0.99)
//	sweep:
//	  param: workload.arrival.rate     # dotted path of any scalar field above
//	  values: [2, 4, 8, 16]
//
// Fields that do not apply to the chosen kind or process (start with
// process poisson, say) are errors rather than silently ignored. Paths to
// traces and spec files are relative to the scenario file's directory.
// Integer fields take whole numbers (1e6 is one; 1.5 is an error, not 1).
// Sizes have hard limits, each documented with its reason
// (MaxRecordedRequests, MaxRequests, MaxJobs, MaxReplicas, MaxServers,
// workload.MaxClients, workload.MaxTokens), and lengths that no request
// can fit into the engine (max_model_len, the KV pool) are errors.
//
// Distributions of times (think, service) are written KIND:PARAMS, see
// ParseDist: exp:0.05, det:20ms, uniform:10ms,30ms, gamma:50ms,2,
// lognormal:50ms,0.5, mix:0.02@0.8,0.18@0.2.
//
// # Sweeps and jobs
//
// A sweep sets its parameter to each value in turn by editing the parsed
// YAML tree and decoding it afresh, so any scalar field can be swept and
// each point is checked like a file of its own. Points lists them;
// Experiment resolves each point's run configuration, and its jobs follow
// the project's one numbering and seeding rule (jobs.At): point-major,
// replication r seeded event.ReplicationSeed(seed, r) at every point, so
// points share random numbers. A shard i/n (jobs.Shard) is the jobs j with
// j mod n = i: a deterministic function of the file and its index, ready
// for a Kubernetes Indexed Job or a Slurm array.
//
// # Concurrency
//
// A Scenario is read-only after Parse; Config, Points and Experiment may
// be called from several goroutines, and so may Experiment.Job.
package scenario
