package tokenizer

import "math/bits"

// pairTable maps a pair of token ids to its merge (rank and merged id). It
// is an open-addressing hash table with linear probing: the BPE loop does
// one lookup per adjacent pair, and this flat layout (key and value side by
// side, no per-entry metadata) is about twice as fast as a Go map here.
//
// Most lookups find nothing (a pair of random tokens rarely merges), and
// each costs a cache miss in a table of megabytes (4 MB for Qwen3). So a
// filter of 8 bits per entry, which stays in the CPU's cache (256 KB for
// Qwen3), answers most of them first: two bits of one 64-bit word per key,
// both set for every key in the table, so a key with either bit clear is
// not there (about 5 % of absent keys find both set and probe the table).
type pairTable struct {
	slots  []pairSlot
	shift  uint
	filter []uint64
	fshift uint
}

type pairSlot struct {
	key uint64 // pairKey(a, b), or emptyPair
	val uint64 // rank<<32 | merged id
}

// emptyPair marks a free slot; no real pair has both ids 0xFFFFFFFF.
const emptyPair = ^uint64(0)

// newPairTable sizes the table for n entries at a load factor of at most
// 0.7: a smaller table misses the CPU cache less, which matters more than
// the slightly longer probes.
func newPairTable(n int) *pairTable {
	size := 16
	for size*7 < n*10 {
		size *= 2
	}
	words := 1
	for words*64 < 8*n {
		words *= 2
	}
	t := &pairTable{slots: make([]pairSlot, size), shift: uint(64 - bits.TrailingZeros(uint(size))),
		filter: make([]uint64, words), fshift: uint(64 - bits.TrailingZeros(uint(words)))}
	for i := range t.slots {
		t.slots[i].key = emptyPair
	}
	return t
}

func (t *pairTable) index(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> t.shift
}

// filterBits returns the filter word of key and its two bits in it, from
// a hash of its own (the table's index uses the product's top bits).
func (t *pairTable) filterBits(key uint64) (uint64, uint64) {
	h := (key ^ key>>29) * 0xBF58476D1CE4E5B9
	return h >> t.fshift, 1<<(h&63) | 1<<(h>>6&63)
}

// set stores val for key, replacing an earlier value (a later duplicate
// merge overrides an earlier one, as in HF's map).
func (t *pairTable) set(key, val uint64) {
	w, b := t.filterBits(key)
	t.filter[w] |= b
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key || s.key == emptyPair {
			s.key, s.val = key, val
			return
		}
	}
}

// get returns the value for key.
func (t *pairTable) get(key uint64) (uint64, bool) {
	if w, b := t.filterBits(key); t.filter[w]&b != b {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.index(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.val, true
		}
		if s.key == emptyPair {
			return 0, false
		}
	}
}
