package tokenizer

import (
	"hash/maphash"
	"sync/atomic"
)

// singleTokens is a cache for the words that are a token of a byte-level
// vocabulary by themselves. Text decoded from token ids (vLLM's random
// dataset) is made of such words more than half of the time, and of so
// many different ones that the word cache, bounded like HF's, misses
// them; yet merging a word of ten bytes costs about ten lookups in the
// pair table. Here the word finds its token id in a table of the tokens'
// raw bytes, and a state per token records whether merging that word
// gives that one token: the state is computed by the merge loop the first
// time, so the cache never changes a result.
type singleTokens struct {
	// words finds a token by its raw bytes. It is built on its own
	// goroutine when the model is loaded, and used once it is built (see
	// background), so that neither the load nor the first prompts wait
	// for it.
	words *background[*rawTokens]
}

const (
	singleUnknown uint32 = iota
	singleYes
	singleNo
)

// rawTokens finds a token by its raw bytes: an open-addressing hash table
// (linear probing) whose slots hold what a lookup needs, the entries'
// bytes side by side in one array. It is a few flat arrays rather than a
// map of 150,000 strings, which took longer to build than the rest of the
// load's critical path and several times the memory.
type rawTokens struct {
	seed  maphash.Seed
	slots []tokenSlot
	ids   []int32  // ids[e]: entry e's token id
	off   []uint32 // entry e's bytes are bytes[off[e]:off[e+1]]
	bytes []byte
	// maxLen is the longest token's length in bytes: a longer word is no
	// token, and looking it up would only hash it.
	maxLen int
	// lens[id] is the length of token id's raw bytes (0: no such token,
	// or longer than 65,535 bytes).
	lens []uint16
	// start[id] is where token id's bytes start in bytes.
	start []uint32
}

// tokenSlot is one slot of rawTokens. Text decoded from random ids looks
// up random tokens, each a cache miss, so a slot carries all that a
// lookup of a token of up to eight bytes (most of them) reads: with the
// entries' bytes elsewhere, a probe cost three misses more.
//
// meta is 0 for a free slot, else: the token's id plus one (bits 0-31,
// below 2^31), its length (bits 32-45; longer tokens are left out of the
// table, which only makes their words take the merge loop), 16 bits of the
// hash of its bytes (bits 46-61), and its merge state (bits 62-63:
// singleUnknown, singleYes or singleNo, whether merging the token's bytes
// gives exactly that token, which the merge loop finds out and records).
// head is the first eight bytes of the token, little-endian, zero-padded.
type tokenSlot struct {
	meta atomic.Uint64
	head uint64
}

const (
	slotLenShift   = 32
	slotLenMask    = 1<<14 - 1
	slotTagShift   = 46
	slotTagMask    = 1<<16 - 1
	slotStateShift = 62
)

// slotKey is the part of a slot's meta that a word must match: length
// (at most slotLenMask) and hash tag.
func slotKey(n int, h uint64) uint64 {
	return uint64(n)<<slotLenShift | (h>>48)<<slotTagShift
}

// head8 is the first eight bytes of s, little-endian, zero-padded.
func head8[S ~string | ~[]byte](s S) uint64 {
	if len(s) >= 8 {
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	}
	var v uint64
	for i := len(s) - 1; i >= 0; i-- {
		v = v<<8 | uint64(s[i])
	}
	return v
}

// newRawTokens indexes the raw bytes of vocab's byte-level tokens, hashed
// with seed.
func newRawTokens(vocab *vocabulary, seed maphash.Seed) *rawTokens {
	n := vocab.len()
	size := 16
	for size*7 < n*10 {
		size *= 2
	}
	r := &rawTokens{seed: seed, slots: make([]tokenSlot, size), ids: make([]int32, 0, n),
		off: make([]uint32, 1, n+1), bytes: make([]byte, 0, 8*n)}
	bl := newByteLevel()
	mask := uint64(size - 1)
	for tok, id := range vocab.all() {
		var ok bool
		start := len(r.bytes)
		if r.bytes, ok = bl.appendRaw(r.bytes, tok); !ok {
			continue
		}
		raw := r.bytes[start:]
		r.ids = append(r.ids, int32(id))
		r.off = append(r.off, uint32(len(r.bytes)))
		if len(raw) > slotLenMask {
			continue
		}
		r.maxLen = max(r.maxLen, len(raw))
		h := maphash.Bytes(r.seed, raw)
		i := h & mask
		for r.slots[i].meta.Load() != 0 {
			i = (i + 1) & mask
		}
		r.slots[i].meta.Store(slotKey(len(raw), h) | uint64(uint32(id)+1))
		r.slots[i].head = head8(raw)
	}
	maxID := int32(0)
	for _, id := range r.ids {
		maxID = max(maxID, id)
	}
	r.lens = make([]uint16, maxID+1)
	r.start = make([]uint32, maxID+1)
	for e, id := range r.ids {
		if n := r.off[e+1] - r.off[e]; n <= 0xFFFF {
			r.lens[id] = uint16(n)
		}
		r.start[id] = r.off[e]
	}
	return r
}

// find returns the id of the token whose raw bytes are word, its merge
// state and its slot.
func (r *rawTokens) find(word string) (id int32, state uint32, slot int, ok bool) {
	if len(word) > r.maxLen {
		return 0, 0, 0, false
	}
	return r.findHashed(word, maphash.String(r.seed, word))
}

// findHashed is find for a word of hash h (with r's seed) that is no
// longer than maxLen.
func (r *rawTokens) findHashed(word string, h uint64) (id int32, state uint32, slot int, ok bool) {
	mask := uint64(len(r.slots) - 1)
	key, head := slotKey(len(word), h), head8(word)
	const keyMask = slotLenMask<<slotLenShift | slotTagMask<<slotTagShift
	for i := h & mask; ; i = (i + 1) & mask {
		s := &r.slots[i]
		meta := s.meta.Load()
		if meta == 0 {
			return 0, 0, 0, false
		}
		if meta&keyMask != key || s.head != head {
			continue
		}
		// The id is in the slot; only a token of more than eight bytes
		// reads further, the rest of its bytes. (Were two tokens to share
		// an id, start would name one of them, and the other would just
		// not be found: its words would be merged.)
		id := uint32(meta) - 1
		if n := uint32(len(word)); n <= 8 || (r.start[id]+n <= uint32(len(r.bytes)) && string(r.bytes[r.start[id]+8:r.start[id]+n]) == word[8:]) {
			return int32(id), uint32(meta >> slotStateShift), int(i), true
		}
	}
}

// newSingleTokens starts building the table from vocab, which it does not
// modify and the caller must not modify either; words are hashed with
// seed, the word cache's.
func newSingleTokens(vocab *vocabulary, seed maphash.Seed) *singleTokens {
	return &singleTokens{words: buildInBackground(func() *rawTokens { return newRawTokens(vocab, seed) })}
}

// lookup returns the id of the token whose raw bytes are word, of hash h,
// whether merging word is known to give it alone, and its slot for
// record; ok is false when word is no token.
func (s *singleTokens) lookup(word string, h uint64) (id int32, state uint32, slot int, ok bool) {
	w, built := s.words.ready()
	if !built || len(word) > w.maxLen {
		return 0, 0, 0, false
	}
	return w.findHashed(word, h)
}

// record stores what merging the word of token id, in slot, gave. Every
// goroutine that merges that word stores the same state, so the load and
// store need not be one atomic step.
func (s *singleTokens) record(slot int, id int32, ids []int32) {
	state := singleNo
	if len(ids) == 1 && ids[0] == id {
		state = singleYes
	}
	m := &s.words.get().slots[slot].meta
	m.Store(m.Load()&^(3<<slotStateShift) | uint64(state)<<slotStateShift)
}
