// Package pyrandom reproduces CPython's random.Random (the module-level
// functions random.seed, random.random, random.getrandbits, random.shuffle
// and random.choice) bit for bit.
//
// vLLM's dataset loaders call random.seed(seed) and then random.shuffle on
// the loaded entries (ShareGPT, custom JSONL and others), and oversample by
// calling random.choice repeatedly. With this port gobench visits dataset
// entries in exactly the order vLLM does for the same --seed.
//
// The generator is MT19937, as in CPython's Modules/_randommodule.c, seeded
// with init_by_array from the absolute value of the integer seed split into
// 32-bit little-endian words. The bounded-integer method is Python's
// _randbelow_with_getrandbits (Lib/random.py): draw bit_length(n) bits and
// retry while the result is >= n. Go's math/rand cannot be used: its
// generators, seeding and bounded-integer methods all differ.
//
// The generator itself is package mt19937, shared with numpyrand: CPython
// and NumPy run the same Mersenne Twister and differ only in seeding.
package pyrandom

import (
	"fmt"
	"math/bits"

	"github.com/gobench/gobench/internal/mt19937"
)

// Random is the state of one CPython random.Random instance. The zero value
// is not usable; call New. A Random is not safe for concurrent use.
type Random struct {
	mt mt19937.MT
}

// New returns the generator random.seed(seed) (or random.Random(seed))
// produces for an integer seed. As in CPython, the sign is dropped and every
// bit of the magnitude is used: |seed| is split into 32-bit words, least
// significant first, with 0 giving the single word [0].
func New(seed int64) *Random {
	r := &Random{}
	r.Seed(seed)
	return r
}

// Seed is random.seed(seed) on an existing generator: it replaces the
// state with the one New(seed) starts from. vLLM's loaders call the
// module-level random.seed on CPython's one global generator, which later
// draws (the LoRA assignment) continue; Seed lets one Random play that
// generator.
func (r *Random) Seed(seed int64) {
	mag := uint64(seed)
	if seed < 0 {
		mag = -mag // two's complement negation also handles math.MinInt64
	}
	key := []uint32{uint32(mag)}
	if hi := uint32(mag >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.mt.SeedArray(key)
}

// Uint32 returns the next raw 32-bit output (genrand_uint32), which is also
// what random.getrandbits(32) returns.
func (r *Random) Uint32() uint32 { return r.mt.Uint32() }

// Random returns random.random(): a float64 in [0, 1) made of 53 bits from
// two 32-bit outputs (27 high bits and 26 low bits). Every step is exact.
func (r *Random) Random() float64 { return r.mt.Float64() }

// GetRandBits returns random.getrandbits(k) for 0 <= k <= 64. CPython fills
// 32-bit words from the least significant end, and the last (most
// significant) word keeps the top bits of its draw; k = 0 returns 0 without
// drawing.
//
// It panics if k is outside [0, 64]; CPython supports larger k, which gobench
// never needs.
func (r *Random) GetRandBits(k int) uint64 {
	switch {
	case k < 0 || k > 64:
		panic(fmt.Sprintf("pyrandom: GetRandBits supports 0 <= k <= 64, got %d", k))
	case k == 0:
		return 0
	case k <= 32:
		return uint64(r.Uint32() >> (32 - k))
	default:
		lo := uint64(r.Uint32())
		hi := uint64(r.Uint32() >> (64 - k))
		return hi<<32 | lo
	}
}

// RandBelow returns random._randbelow(n), a uniform int in [0, n), with the
// getrandbits rejection method: draw n.bit_length() bits, retry while >= n.
// Because k is the bit length of n (not n-1), a power of two n rejects about
// half of the draws; that is CPython's behaviour and must be kept.
//
// It panics if n <= 0 (CPython's result is undefined there).
func (r *Random) RandBelow(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("pyrandom: RandBelow needs n > 0, got %d", n))
	}
	k := bits.Len64(uint64(n))
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

// Shuffle permutes a sequence of length n exactly as random.shuffle(x) does:
// for i from n-1 down to 1, swap x[i] with x[j], j = RandBelow(i+1). swap is
// called for every i, including when i == j.
func (r *Random) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.RandBelow(i+1))
	}
}

// Choice returns the index random.choice(seq) picks from a sequence of
// length n: RandBelow(n).
//
// It panics if n <= 0, where CPython raises IndexError("Cannot choose from
// an empty sequence").
func (r *Random) Choice(n int) int {
	if n <= 0 {
		panic("pyrandom: cannot choose from an empty sequence")
	}
	return r.RandBelow(n)
}
