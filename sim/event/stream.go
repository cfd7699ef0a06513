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

// ReplicationBase inverts ReplicationSeed: the base whose replication i
// has seed s (the SplitMix64 finalizer is a bijection). Merging shards
// uses it to check that every result came from one experiment's seed.
func ReplicationBase(s uint64, i int) uint64 {
	z := unshift(s, 31)
	z = unshift(z*inverse(0x94d049bb133111eb), 27)
	z = unshift(z*inverse(0xbf58476d1ce4e5b9), 30)
	return z - uint64(i+1)*0x9e3779b97f4a7c15
}

// unshift inverts x ^= x >> k.
func unshift(x uint64, k uint) uint64 {
	y := x
	for range 64/k + 1 {
		y = x ^ (y >> k)
	}
	return y
}

// inverse returns the inverse of the odd c modulo 2^64 (Newton's
// iteration doubles the correct bits each step: 5 steps from 3 bits).
func inverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}
