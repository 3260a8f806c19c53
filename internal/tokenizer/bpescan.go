package tokenizer

import (
	"math"
	"sync"
)

// scanMaxLen is the longest word mergeScan takes: its arrays live on the
// stack, and for longer words the heap's O(log n) steps win over the
// scan's O(n).
const scanMaxLen = 64

// noMerge marks a pair that has no merge in scan's rank array.
const noMerge = math.MaxUint32

// mergeScan is mergeWord for a plain byte-level vocabulary (scanOK): the
// same merges in the same order, found by scanning the word's pairs for
// the lowest rank (the leftmost on ties) instead of through a priority
// queue. The word must be 2 to scanMaxLen bytes long.
//
// It gives HF's result because, when every symbol is the byte-level
// spelling of a span of the word and no two tokens share an id, a queued
// merge that HF's stale-entry check accepts (the pair at its position
// merges to the same id) is always the very pair it was queued for: the
// merged token spells the pair's bytes, both symbols start where they
// started and only grow rightwards, so the same spelling means the same
// two spans. The queue's live entries are then exactly the word's current
// pairs that have a merge, ordered by (rank, position), which is what the
// scan takes. TestMergeScanEqualsHeap checks it on random byte strings.
func (m *bpeModel) mergeScan(word string, out []int32) []int32 {
	var ids [scanMaxLen]int32
	var ranks [scanMaxLen]uint32 // ranks[i]: the merge of ids[i] and ids[i+1]
	var merged [scanMaxLen]int32
	n := len(word)
	init := &m.initial[0]
	for i := range n {
		ids[i] = init[word[i]].ids[0]
	}
	bp := m.bytePairs()
	for i := range n - 1 {
		v := bp[uint16(word[i])<<8|uint16(word[i+1])]
		ranks[i], merged[i] = uint32(v>>32), int32(uint32(v))
	}
	ranks[n-1] = noMerge
	for n > 1 {
		best := 0
		for i := 1; i < n-1; i++ {
			if ranks[i] < ranks[best] {
				best = i
			}
		}
		if ranks[best] == noMerge {
			break
		}
		ids[best] = merged[best]
		copy(ids[best+1:n-1], ids[best+2:n])
		copy(ranks[best+1:n-1], ranks[best+2:n])
		copy(merged[best+1:n-1], merged[best+2:n])
		n--
		if best+1 < n {
			ranks[best], merged[best] = m.pairRank(ids[best], ids[best+1])
		} else {
			ranks[best] = noMerge
		}
		if best > 0 {
			ranks[best-1], merged[best-1] = m.pairRank(ids[best-1], ids[best])
		}
	}
	return append(out, ids[:n]...)
}

// bytePairTable is the merge of every pair of bytes, indexed by the two
// bytes (first<<8 | second): rank<<32 | merged id as in the pair table,
// or noMerge<<32. It is where mergeScan finds the merges of a word's start
// symbols, a third or more of its lookups: 512 KB indexed directly rather
// than a hashed table of several megabytes, and ASCII's pairs stay in the
// cache. Only for models that scan (where each byte starts as one token
// wherever it is).
type bytePairTable [1 << 16]uint64

// newBytePairsOnce starts filling m's byte-pair table on its own goroutine
// (65,536 lookups, about a millisecond) and returns what waits for it.
func newBytePairsOnce(m *bpeModel) func() *bytePairTable {
	ch := make(chan *bytePairTable, 1)
	go func() {
		t := new(bytePairTable)
		for i := range t {
			a, b := m.initial[0][i>>8].ids[0], m.initial[0][i&0xff].ids[0]
			r, id := m.pairRank(a, b)
			t[i] = uint64(r)<<32 | uint64(uint32(id))
		}
		ch <- t
	}()
	return sync.OnceValue(func() *bytePairTable { return <-ch })
}

// pairRank is the rank of the merge of a and b and the id it gives, or
// noMerge.
func (m *bpeModel) pairRank(a, b int32) (uint32, int32) {
	v, ok := m.merges.get(pairKey(a, b))
	if !ok {
		return noMerge, 0
	}
	return uint32(v >> 32), int32(uint32(v))
}

// scans reports whether mergeScan may replace mergeWord: scanOK, and no
// two tokens share an id (checked in the background while loading).
func (m *bpeModel) scans() bool { return m.scan && m.uniqueIDs() }

// scanOK reports whether the model is one mergeScan may serve, if its ids
// are unique: a byte-level vocabulary (not SentencePiece-style) that
// spells every byte as one token whatever its place in the word (no
// continuing-subword prefix, no end-of-word suffix, so no unk and no byte
// fallback either), and no merge rank as large as noMerge.
func scanOK(m *bpeModel, prefix, suffix string, numMerges int) bool {
	if m.chars != nil || prefix != "" || suffix != "" || numMerges >= noMerge {
		return false
	}
	for b := range 256 {
		if s := m.initial[0][b]; len(s.ids) != 1 || s.fallback {
			return false
		}
	}
	return true
}
