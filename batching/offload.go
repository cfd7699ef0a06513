package batching

import (
	"math"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
)

// KV-cache offloading to CPU memory, as vLLM's native offloading
// connector and LMCache do it (--kv-offloading-size,
// --kv-offloading-backend native or lmcache; docs/kv-offload.md). The host
// side is offloadStore (offloadstore.go); the engine's hooks are in
// offloadengine.go; what sets the backends apart is an offloadPolicy.

// OffloadBackendNative is vLLM's --kv-offloading-backend native: the
// OffloadingConnector with its CPU LRU manager.
const OffloadBackendNative = "native"

// OffloadBackendLMCache is vLLM's --kv-offloading-backend lmcache, which
// vLLM maps to LMCacheConnectorV1 with lmcache.local_cpu true and
// lmcache.max_local_cpu_size = size / (TP·PP) GB per worker
// (vllm-project/vllm@09f030ea vllm/config/vllm.py,
// _post_init_kv_transfer_config): LMCache's local CPU backend with its
// defaults (lmcachePolicy).
const OffloadBackendLMCache = "lmcache"

// LMCacheChunkSize is LMCache's default chunk_size, tokens: it stores and
// looks up KV in chunks of 256 tokens (LMCache@000620e3
// lmcache/v1/config.py). KVOffload.BlockSize sets another.
const LMCacheChunkSize = 256

// offloadPolicy is what sets one backend's connector apart. Only the
// offloader reads it; the engine calls the same hooks for every backend.
type offloadPolicy struct {
	// chunk is the host block in tokens when KVOffload.BlockSize is 0
	// (0: the engine's block_size).
	chunk int
	// sync: a load runs before the forward pass of the step that admits
	// its request and the step's stores after it, both inside the step,
	// which lasts as much longer: the whole batch waits for them.
	// Otherwise a load takes its request out of the line
	// (WAITING_FOR_REMOTE_KVS) and stores run beside the steps on the
	// link's queues.
	sync bool
	// promptOnly: only whole blocks of prompt tokens are stored, as the
	// steps that compute them are formed (write-through; no output
	// tokens). Otherwise every full block computed, output included.
	promptOnly bool
	// truncate: a store without room for all its blocks, after evicting
	// what it can, keeps the leading blocks that fit and the request
	// never retries the rest. Otherwise it stores nothing and is tried
	// again at the request's next step.
	truncate bool
	// fromStart: a host hit is the host's blocks in a row from the
	// prompt's first, so a GPU hit extends only over blocks the host
	// holds too. Otherwise it starts at the block the GPU hit ends in.
	fromStart bool
}

// nativePolicy is vLLM's OffloadingConnector (KVOffload's comment).
var nativePolicy = offloadPolicy{}

// lmcachePolicy is LMCacheConnectorV1 over LMCache's local CPU backend
// with LMCache's defaults:
//
//   - chunks of LMCacheChunkSize tokens; only whole chunks are stored
//     (save_unfull_chunk false) and output tokens never are
//     (save_decode_cache false) (LMCache@000620e3 lmcache/v1/config.py);
//   - a request's new whole prompt chunks are stored after the forward
//     pass of each step that computes them, and the step waits for the
//     copy (wait_for_save; the GPU connector's from_gpu synchronizes its
//     store stream after each chunk: lmcache/v1/gpu_connector, read on
//     LMCache's dev branch, no commit pinned);
//   - when the CPU store is full and nothing more can be evicted, a
//     store keeps the chunks allocated so far and drops the rest, which
//     are never retried (LMCache@3bafe17f lmcache/v1/cache_engine.py,
//     store: "Local cpu memory under pressure so choosing to store
//     only ..."; allocation evicts least recently used chunks);
//   - loads are synchronous (enable_async_loading false): the worker
//     retrieves a scheduled request's hit before the step's forward
//     pass, so the whole batch waits for the load
//     (LMCache@e23f2bbc lmcache/integration/vllm/vllm_v1_adapter.py,
//     start_load_kv);
//   - a lookup walks LMCache's own chunks from the prompt's first.
var lmcachePolicy = offloadPolicy{chunk: LMCacheChunkSize, sync: true, promptOnly: true, truncate: true, fromStart: true}

// offloadPolicies are the backends modelled, by --kv-offloading-backend.
var offloadPolicies = map[string]offloadPolicy{
	"": nativePolicy, OffloadBackendNative: nativePolicy, OffloadBackendLMCache: lmcachePolicy,
}

// DefaultPCIeBandwidth is the host↔device copy bandwidth a transfer gets,
// bytes per second per GPU and per direction: 50 GB/s, about 80% of PCIe
// Gen5 x16's 64 GB/s per direction (NVIDIA H100 datasheet: "PCIe Gen5
// 128 GB/s", both directions together; 32 GT/s × 16 lanes × 128/130 / 8
// = 63 GB/s of line rate). The 80% is this package's assumption for
// pinned-memory DMA copies of 0.5–2 MB blocks, not a measurement: set
// KVOffload.Bandwidth to what nvbandwidth or a copy benchmark measures on
// the machine (a PCIe Gen4 x16 GPU gets about half).
const DefaultPCIeBandwidth = 50e9

// DefaultPCIeLatency is the fixed cost of one transfer (one batch of
// blocks, one cudaMemcpyAsync launch and DMA setup, and the connector's
// bookkeeping between scheduler steps), seconds: 10 µs, an assumption of
// this package of the order of a CUDA copy's launch latency; set
// KVOffload.Latency to a measured value.
const DefaultPCIeLatency = 10e-6

// KVOffload is vLLM's KV offloading to CPU memory (the OffloadingConnector:
// vllm-project/vllm's
// vllm/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py@e57c0d42,
// vllm/v1/kv_offload/lru_manager.py@3a04cf8f, cpu/spec.py@0072b0b7 and
// worker/cpu_gpu.py@0072b0b7):
//
//   - Store on compute: at the end of each step, every full block a
//     request computed (prompt or output) that the host does not hold is
//     copied to it, device to host; a block becomes findable when its
//     copy ends. The host evicts its least recently used blocks that no
//     load is reading to make room; when it cannot, the store is skipped
//     and tried again at the request's next step.
//   - Load before prefill: when the scheduler considers a waiting request,
//     the blocks after its GPU prefix-cache hit that the host holds (in a
//     row, up to the same cap of tokens − 1) are loaded, host to device,
//     into newly allocated GPU blocks. The request waits out of the line
//     (vLLM's WAITING_FOR_REMOTE_KVS) while requests behind it may be
//     admitted; when the load ends it returns to the head of the line with
//     those tokens computed and its first chunk skips them. A request whose
//     host hit includes a block another request is loading waits for the
//     next step.
//   - A host block is BlockSize tokens, a whole number of engine blocks
//     (vLLM's block_size in kv_connector_extra_config; its
//     block_size_factor is BlockSize / the engine's block_size, 1 by
//     default); only whole host blocks are stored, found and loaded. The
//     host holds Size·2^30 / (a host block's bytes summed over the TP
//     ranks) of them, as vLLM's CPUOffloadingSpec divides
//     cpu_bytes_to_use. A GPU hit that ends inside a host block loads the
//     rest of that block, as vLLM's get_num_new_matched_tokens does.
//   - Each rank copies its own shard over its own PCIe link, so a transfer
//     of n blocks lasts Latency + n × block bytes per rank / Bandwidth.
//     Transfers of one direction queue first come first served. PCIe is
//     full duplex and vLLM copies each direction in its own handler, in
//     submission order (cpu_gpu.py's SingleDirectionOffloadingHandler), so by default
//     loads and stores queue apart; HalfDuplex puts them in one queue (a
//     GPU with one copy engine, or a link shared with a NIC).
//
// With Backend OffloadBackendLMCache the host is LMCache's local CPU
// backend instead (lmcachePolicy): host blocks of 256 tokens by default,
// whole prompt chunks stored as their steps run, and loads and stores
// inside the steps, which wait for them (Latency + n × block bytes per
// rank / Bandwidth per request and direction); HalfDuplex does not apply.
// Its capacity is the same count of host blocks: each of the TP·PP
// workers holds Size/(TP·PP) GiB of its shard of every chunk.
//
// Blocks of a request's own tokens (past its content, sim.Env.Content)
// are stored too (they take bytes, link time and host room, as in vLLM),
// but without a hash: no other request can hit them. A request resumed
// after a preemption finds its own tokens' blocks on the GPU only. Stores
// do not hold a finished request's GPU blocks (vLLM delays freeing them
// until the copy ends). It needs EnablePrefixCaching. Each attention
// data-parallel group (Deployment.DP) has a buffer of Size, as each of
// vLLM's data-parallel engines allocates its own; pipeline parallelism
// with offloading is not modelled.
type KVOffload struct {
	// Size is the host buffer in GiB (2^30 bytes), summed over the
	// replica's TP ranks, as vLLM's --kv-offloading-size.
	Size float64 `json:"kv_offloading_size" yaml:"kv_offloading_size"`
	// Backend is vLLM's --kv-offloading-backend: "native" (also "") or
	// "lmcache".
	Backend string `json:"kv_offloading_backend,omitempty" yaml:"kv_offloading_backend,omitempty"`
	// Bandwidth is the copy bandwidth per GPU and direction, bytes/s
	// (DefaultKVOffload: DefaultPCIeBandwidth).
	Bandwidth float64 `json:"pcie_bandwidth" yaml:"pcie_bandwidth"`
	// Latency is the fixed cost of one transfer, seconds
	// (DefaultKVOffload: DefaultPCIeLatency).
	Latency float64 `json:"pcie_latency" yaml:"pcie_latency"`
	// HalfDuplex queues loads and stores in one queue instead of one per
	// direction (native only: LMCache's transfers never overlap).
	HalfDuplex bool `json:"pcie_half_duplex,omitempty" yaml:"pcie_half_duplex,omitempty"`
	// BlockSize is the host block in tokens, a multiple of the engine's
	// block_size; 0 means the engine's (vLLM's default), or
	// LMCacheChunkSize with LMCache (its chunk_size).
	BlockSize int `json:"block_size,omitempty" yaml:"block_size,omitempty"`
}

// DefaultKVOffload returns offloading to a host buffer of size GiB with
// the default link (DefaultPCIeBandwidth, DefaultPCIeLatency, one queue
// per direction).
func DefaultKVOffload(size float64) *KVOffload {
	return &KVOffload{Size: size, Bandwidth: DefaultPCIeBandwidth, Latency: DefaultPCIeLatency}
}

// NewKVOffload returns the offloading vLLM's flags ask for: size GiB of
// host memory (--kv-offloading-size; 0: off, nil), backend
// (--kv-offloading-backend) and bandwidth bytes/s (--pcie-bandwidth; 0:
// DefaultPCIeBandwidth), on DefaultKVOffload's link otherwise. A backend
// or bandwidth without a size is an error naming its field
// (kv_offloading_backend, pcie_bandwidth); the rest is Validate's.
func NewKVOffload(size float64, backend string, bandwidth float64) (*KVOffload, error) {
	switch {
	case size == 0 && backend != "":
		return nil, fieldErr("kv_offloading_backend", backend, "needs kv_offloading_size (GiB of CPU memory; 0 is off)")
	case size == 0 && bandwidth != 0:
		return nil, fieldErr("pcie_bandwidth", bandwidth, "needs kv_offloading_size (GiB of CPU memory; 0 is off)")
	case size == 0:
		return nil, nil
	}
	o := DefaultKVOffload(size)
	o.Backend = backend
	if bandwidth != 0 {
		o.Bandwidth = bandwidth
	}
	return o, o.Validate()
}

// MaxOffloadGiB bounds KVOffload.Size: 2^20 GiB (a PiB), far above any
// host's memory.
const MaxOffloadGiB = 1 << 20

// MaxOffloadBlockSize bounds KVOffload.BlockSize: 2^20 tokens.
const MaxOffloadBlockSize = 1 << 20

// Validate checks the settings alone (the engine checks them against its
// pool and prefix caching).
func (o KVOffload) Validate() error {
	switch {
	case !(o.Size >= 0) || o.Size > MaxOffloadGiB:
		return fieldErr("kv_offloading_size", o.Size, "must be a number of GiB in [0, %d]", MaxOffloadGiB)
	case !knownBackend(o.Backend):
		fe := fielderr.New("kv_offloading_backend", o.Backend, "is not modelled: only %q (vLLM's OffloadingConnector) and %q (LMCacheConnectorV1's CPU backend) are", OffloadBackendNative, OffloadBackendLMCache)
		fe.Fix = "use " + OffloadBackendNative + " or " + OffloadBackendLMCache
		return errmark.With(ErrInvalid, fe)
	case o.HalfDuplex && offloadPolicies[o.Backend].sync:
		return fieldErr("pcie_half_duplex", o.HalfDuplex, "does not apply to kv_offloading_backend %q: its loads and stores run inside the steps, one after the other", o.Backend)
	case !(o.Bandwidth > 0) || math.IsInf(o.Bandwidth, 1):
		fe := fielderr.New("pcie_bandwidth", o.Bandwidth, "must be a finite number of bytes/s > 0")
		fe.Fix = "set it to the measured host-device copy bandwidth, or start from DefaultKVOffload (50e9)"
		return errmark.With(ErrInvalid, fe)
	case !(o.Latency >= 0) || math.IsInf(o.Latency, 1):
		return fieldErr("pcie_latency", o.Latency, "must be a finite number of seconds >= 0")
	case o.BlockSize < 0 || o.BlockSize > MaxOffloadBlockSize:
		return fieldErr("block_size", o.BlockSize, "must be a number of tokens in [0, %d] (0: the engine's block_size)", MaxOffloadBlockSize)
	}
	return nil
}

// knownBackend reports whether b is a --kv-offloading-backend modelled.
func knownBackend(b string) bool {
	_, ok := offloadPolicies[b]
	return ok
}

// offloadResolved is a validated KVOffload with its derived sizes.
type offloadResolved struct {
	KVOffload
	pol        offloadPolicy
	blocks     int     // host capacity in host blocks
	factor     int     // engine blocks per host block
	blockBytes float64 // one engine block's bytes on one rank (what one link carries)
}

// resolveOffload checks c.KVOffload against the resolved engine r.
func (c Config) resolveOffload(r *resolved) error {
	o := c.KVOffload
	if err := o.Validate(); err != nil {
		return fielderr.In("kv_offload", err)
	}
	switch {
	case !c.EnablePrefixCaching:
		return fieldErr("kv_offload", o.Size, "needs enable_prefix_caching: the host holds blocks by their prefix hash")
	case !(r.pool.BytesPerToken > 0):
		return fieldErr("kv_offload", o.Size, "needs the KV bytes per token of a deployment's model (a KVBlocks engine with StepTime has none): set kv_cache_memory instead of kv_blocks")
	}
	pol := offloadPolicies[o.Backend]
	factor := 1
	switch {
	case o.BlockSize > 0 && o.BlockSize%c.BlockSize != 0:
		return fieldErr("kv_offload.block_size", o.BlockSize, "must be a multiple of block_size %d", c.BlockSize)
	case o.BlockSize > 0:
		factor = o.BlockSize / c.BlockSize
	case pol.chunk%c.BlockSize != 0:
		return fieldErr("kv_offload.kv_offloading_backend", o.Backend, "stores chunks of %d tokens, not a multiple of block_size %d: set kv_offload.block_size (LMCache's chunk_size) to a multiple of it", pol.chunk, c.BlockSize)
	case pol.chunk > 0:
		factor = pol.chunk / c.BlockSize
	}
	ranks := float64(max(c.Deployment.TP, 1))
	bb := r.pool.BytesPerToken * float64(c.BlockSize)
	n := math.Floor(o.Size * (1 << 30) / (bb * float64(factor) * ranks))
	if n > MaxKVBlocks {
		return fieldErr("kv_offload.kv_offloading_size", o.Size, "holds %.0f blocks, more than %d", n, MaxKVBlocks)
	}
	r.off = &offloadResolved{KVOffload: *o, pol: pol, blocks: int(n), factor: factor, blockBytes: bb}
	return nil
}

// Duration returns how long one transfer of n blocks of bytes each (per
// rank) takes on the link: Latency + n·bytes/Bandwidth, seconds.
func (o KVOffload) Duration(n int, bytes float64) float64 {
	return o.Latency + float64(n)*bytes/o.Bandwidth
}
