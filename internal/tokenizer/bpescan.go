package tokenizer

import (
	"math"
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
	// vals[i] is the merge of ids[i] and ids[i+1] as the pair table keeps
	// it, rank<<32 | merged id, or noPair: one comparison of them orders
	// by rank, and two pairs of one rank are the same merge, so the first
	// of the lowest is the leftmost.
	var vals [scanMaxLen]uint64
	n := len(word)
	init := &m.initial[0]
	for i := range n {
		ids[i] = init[word[i]].ids[0]
	}
	if bp, ok := m.bytePairs.ready(); ok {
		for i := range n - 1 {
			vals[i] = bp[uint16(word[i])<<8|uint16(word[i+1])]
		}
	} else {
		for i := range n - 1 {
			vals[i] = m.pairVal(ids[i], ids[i+1])
		}
	}
	vals[n-1] = noPair
	for n > 1 {
		best := 0
		for i := 1; i < n-1; i++ {
			if vals[i] < vals[best] {
				best = i
			}
		}
		if vals[best] >= noPair {
			break
		}
		ids[best] = int32(uint32(vals[best]))
		copy(ids[best+1:n-1], ids[best+2:n])
		copy(vals[best+1:n-1], vals[best+2:n])
		n--
		if best+1 < n {
			vals[best] = m.pairVal(ids[best], ids[best+1])
		} else {
			vals[best] = noPair
		}
		if best > 0 {
			vals[best-1] = m.pairVal(ids[best-1], ids[best])
		}
	}
	return append(out, ids[:n]...)
}

// bytePairTable is the merge of every pair of bytes, indexed by the two
// bytes (first<<8 | second): pairVal. It is where mergeScan finds the merges of a word's start
// symbols, a third or more of its lookups: 512 KB indexed directly rather
// than a hashed table of several megabytes, and ASCII's pairs stay in the
// cache. Only for models that scan (where each byte starts as one token
// wherever it is).
type bytePairTable [1 << 16]uint64

// newBytePairsInBackground starts filling m's byte-pair table on its own goroutine
// (65,536 lookups, about a millisecond); until it is there, mergeScan
// looks the byte pairs up in the merge table.
func newBytePairsInBackground(m *bpeModel) *background[*bytePairTable] {
	return buildInBackground(func() *bytePairTable {
		t := new(bytePairTable)
		for i := range t {
			a, b := m.initial[0][i>>8].ids[0], m.initial[0][i&0xff].ids[0]
			t[i] = m.pairVal(a, b)
		}
		return t
	})
}

// noPair is the pair-table value of a pair that has no merge, for
// mergeScan: above every real one, whose rank is below noMerge.
const noPair = uint64(noMerge) << 32

// pairVal is the pair-table value of the merge of a and b, or noPair.
func (m *bpeModel) pairVal(a, b int32) uint64 {
	if v, ok := m.merges.get(pairKey(a, b)); ok {
		return v
	}
	return noPair
}

// scans reports whether mergeScan may replace mergeWord: scanOK, and no
// two tokens share an id (checked in the background while loading).
func (m *bpeModel) scans() bool {
	if !m.scan {
		return false
	}
	unique, known := m.uniqueIDs.ready()
	return known && unique
}

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
