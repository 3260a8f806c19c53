package tokenizer

import (
	"math"
	"sync"
)

// Text decoded from random ids is mostly made of words that are several
// of those ids' bytes one after the other, and such a word nearly always
// encodes to those very ids (99 % of them on vLLM's prefix_repetition
// dataset with Qwen3). Whether it does can be told without merging the
// word, from the ids alone, as GitHub's bpe crate does
// (github.com/github/rust-gems, crates/bpe, "is_valid_token_pair"):
//
// A word that is the bytes of t1, ..., tn encodes to t1, ..., tn when each
// ti encodes to itself and each pair ti, ti+1 does (its bytes encode to
// ti, ti+1). Proof: until a merge crosses the boundary between two
// tokens' bytes, the bytes of each token (its region) take the merges
// they take alone, in the same order, since a region's pairs change only
// with its own merges and the queue takes each region's lowest pair when
// it is the lowest of all. Let the first crossing merge join regions i
// and i+1. The pair ti, ti+1 encoded alone takes the same merges in its
// two regions in the same interleaving (the lower of the two regions'
// lowest pairs first) until its own first crossing merge; so it either
// crosses earlier or reaches the same two states, where the crossing pair
// is below both regions' pairs and is taken. Either way a merge crosses,
// its symbol spans the boundary for good, and the pair does not encode to
// ti, ti+1: a contradiction. (A merge that crosses no boundary leaves
// each region as it ends alone: ti, which encodes to itself.)
//
// Whether a pair a, b encodes to itself is found by following, backwards
// in time, the two symbols on either side of the boundary: the last
// symbol of a's bytes runs up a's right spine (the right part of a's
// last merge, the right part of that one's, down to a byte) and the first
// symbol of b's bytes up b's left spine. When the ranks of the merges
// rise along every merge's parts (monotonic: a merge is ranked after
// every merge that makes one of its parts, as in every trained list),
// the merge loop takes merges in the order of their (rank, position), so
// the pair across the boundary, live from the later of its two symbols'
// merges to the earlier of their parents' merges, is merged exactly when
// its rank is below the rank that ends its life (or equal to it, when
// that is the right symbol's merge, which lies right of it). Each step
// costs one lookup in the merge table, about as many as the token's depth,
// where merging the word costs two per merge.
//
// TestSelfEncodesEqualsMerge (every token), TestKeepsApartEqualsMerge and
// FuzzKeepsApart check the walk against the merge loop, and
// TestRoundTripEqualsDecodeEncode and FuzzRoundTrip the words against
// Decode then Encode.

// Split entries: a token's merge, as the left part's id, the right
// part's id and the merge's rank, 21 bits each, with bit 63 set when the
// token has one; a single byte's token has the rank leafRank and no parts.
const (
	splitKnown   = uint64(1) << 63
	splitBits    = 21
	splitMask    = 1<<splitBits - 1
	leafRank     = splitMask
	maxSplitIDs  = 1 << splitBits
	maxSplitRank = leafRank - 1
)

func packSplit(left, right int32, rank uint64) uint64 {
	return splitKnown | uint64(left)<<(2*splitBits) | uint64(right)<<splitBits | rank
}

func splitLeft(s uint64) int32  { return int32(s >> (2 * splitBits) & splitMask) }
func splitRight(s uint64) int32 { return int32(s >> splitBits & splitMask) }

// splitRank is the rank of the split's merge, -1 for a byte's token (made
// before every merge).
func splitRank(s uint64) int64 {
	r := int64(s & splitMask)
	if r == leafRank {
		return -1
	}
	return r
}

// concatTables are what the checks of whole-token words need, made on
// their first use (a few milliseconds for Qwen3): the split of every
// token, which is its last merge in its own encoding when it encodes to
// itself, since no other merge makes it.
type concatTables struct {
	once   sync.Once
	ok     bool
	splits []uint64
}

// newConcatTables returns the tables of a model that may use them (one
// that scans, without ignore_merges), else nil.
func newConcatTables(m *bpeModel) *concatTables {
	if !m.scan || m.ignoreMerges || m.vocabSize > maxSplitIDs {
		return nil
	}
	return &concatTables{}
}

// concatTables returns the model's concatTables if it may use them: it
// scans, one merge at most makes each token, and the merges are
// monotonic.
func (m *bpeModel) concatTables() *concatTables {
	c := m.concat
	if c == nil || !m.scans() {
		return nil
	}
	c.once.Do(func() { c.splits, c.ok = buildSplits(m) })
	if !c.ok {
		return nil
	}
	return c
}

// buildSplits returns every token's split and whether the walks may use
// them: no token is made by two merges, every id is below the model's
// vocabulary size, and the merges are monotonic.
func buildSplits(m *bpeModel) ([]uint64, bool) {
	n := m.vocabSize
	splits := make([]uint64, n)
	for b := range 256 {
		splits[m.initial[0][b].ids[0]] = packSplit(0, 0, leafRank)
	}
	for _, s := range m.merges.slots {
		if s.key == emptyPair {
			continue
		}
		a, b := uint64(uint32(s.key>>32)), uint64(uint32(s.key))
		rank, id := s.val>>32, uint64(uint32(s.val))
		if a >= uint64(n) || b >= uint64(n) || id >= uint64(n) || rank > maxSplitRank || splits[id] != 0 {
			return nil, false
		}
		splits[id] = packSplit(int32(a), int32(b), rank)
	}
	for _, s := range m.merges.slots {
		if s.key == emptyPair {
			continue
		}
		rank := int64(s.val >> 32)
		for _, part := range [2]uint32{uint32(s.key >> 32), uint32(s.key)} {
			// A part no merge makes (a token only the vocabulary has)
			// never appears in a merge loop.
			if p := splits[part]; p != 0 && splitRank(p) >= rank {
				return nil, false
			}
		}
	}
	return splits, true
}

// keepsApart reports whether the bytes of a then those of b encode to a,
// b; both must encode to themselves. It walks the two spines backwards
// from a and b, whose pair, if it merges, does so whatever its rank. With
// below, it starts one step lower, asking whether a and b stay apart
// until they are whole: then, and only then, does the token that a, b
// merge into encode to itself, given that a and b do.
func (m *bpeModel) keepsApart(c *concatTables, a, b int32, below bool) bool {
	end, endLeft := int64(math.MaxInt64), false
	sa, sb := c.split(a), c.split(b)
	for {
		if below {
			below = false
		} else if v, ok := m.merges.get(pairKey(a, b)); ok {
			if r := int64(v >> 32); r < end || (r == end && !endLeft) {
				return false
			}
		}
		if sa == 0 || sb == 0 {
			return false // no merge makes it: not a token that encodes to itself
		}
		ra, rb := splitRank(sa), splitRank(sb)
		switch {
		case ra < 0 && rb < 0:
			return true
		case ra > rb:
			// a's merge came last: before it, the symbol left of the
			// boundary was its right part.
			end, endLeft, a = ra, true, splitRight(sa)
			sa = c.splits[a]
		default:
			// b's came last (on a tie, b's lies right of a's and is
			// taken after it).
			end, endLeft, b = rb, false, splitLeft(sb)
			sb = c.splits[b]
		}
	}
}

// split returns id's split, 0 if no merge makes it and it is no byte's.
func (c *concatTables) split(id int32) uint64 {
	if uint(id) >= uint(len(c.splits)) {
		return 0
	}
	return c.splits[id]
}
