// Package mix scrambles 64-bit integers into well-spread hashes: the
// finaliser of MurmurHash3 (fmix64), a bijection in which every input bit
// affects every output bit. The workload names token content with it and
// the batching engine's prefix cache chains block hashes with it.
package mix

// Mix64 returns MurmurHash3's 64-bit finaliser of k.
func Mix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
