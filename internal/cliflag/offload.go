package cliflag

import "flag"

// DefineKVOffload puts vLLM's KV offloading flags on fs, as servesim bench
// and servesim day take them: --kv-offloading-size (GiB, into size),
// --kv-offloading-backend and --pcie-bandwidth (bytes/s); 0 and "" are
// off and the defaults (batching.NewKVOffload reads the three). It returns
// their names in help order.
func DefineKVOffload(fs *flag.FlagSet, size *float64, backend *string, bandwidth *float64) []string {
	fs.Var(NonNegativeFloat{P: size}, "kv-offloading-size", "GiB of CPU memory (summed over the TP ranks) for offloaded KV blocks: stored as computed, loaded over PCIe before a prefill that hits them (0: off; docs/kv-offload.md)")
	fs.StringVar(backend, "kv-offloading-backend", "", "KV offloading `backend`: native (vLLM's OffloadingConnector, the default: copies beside the steps) or lmcache (LMCacheConnectorV1's CPU backend, vLLM maps it to lmcache.max_local_cpu_size = size/(TP·PP) per worker: 256-token chunks of prompt only, stored and loaded inside the steps, which wait for them)")
	fs.Var(NonNegativeFloat{P: bandwidth}, "pcie-bandwidth", "host-device copy bandwidth per GPU and direction, bytes/s, for KV offloading (0: 50e9, about 80% of PCIe Gen5 x16)")
	return []string{"kv-offloading-size", "kv-offloading-backend", "pcie-bandwidth"}
}
