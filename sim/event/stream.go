package event

import (
	"hash/fnv"
	"math/rand/v2"
)

// NewStream returns the random stream called name under seed: a PCG
// generator seeded with (seed, FNV-1a(name)). Streams of different names
// are independent, and one name under one seed always gives the same
// numbers, so two configurations run with one seed see the same arrivals
// and lengths (common random numbers). the sim package uses "arrivals",
// "lengths" and "think"; servers conventionally use "service".
func NewStream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// ReplicationSeed returns the seed of replication i (from 0) under base: a
// SplitMix64 scramble of base and i, so replications are independent and
// pre-declared by (base, i) alone.
func ReplicationSeed(base uint64, i int) uint64 {
	z := base + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Seeds returns ReplicationSeed(base, i) for i in [0, n).
func Seeds(base uint64, n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = ReplicationSeed(base, i)
	}
	return s
}
