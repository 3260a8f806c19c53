package tokenizer

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// singleTokens is a cache for the words that are a token of a byte-level
// vocabulary by themselves. Text decoded from token ids (vLLM's random
// dataset) is made of such words more than half of the time, and of so
// many different ones that the word cache, bounded like HF's, misses
// them; yet merging a word of ten bytes costs about ten lookups in the
// pair table. Here the word finds its token id in a table of the tokens'
// raw bytes, and a state per token id records whether merging that word
// gives that one token: the state is computed by the merge loop the first
// time, so the cache never changes a result.
type singleTokens struct {
	// words finds a token by its raw bytes. It is built on its own
	// goroutine when the model is loaded and waited for on first use, so
	// that loading does not wait for it.
	words func() *rawTokens
}

const (
	singleUnknown uint32 = iota
	singleYes
	singleNo
)

// rawTokens finds a token by its raw bytes: an open-addressing hash table
// of entry numbers (linear probing), the entries' bytes side by side in
// one array. It is a few flat arrays rather than a map of 150,000
// strings, which took longer to build than the rest of the load's
// critical path and several times the memory.
type rawTokens struct {
	seed maphash.Seed
	// slots hold an entry's number plus one in the low half (0: free) and
	// the high half of its bytes' hash in the high half. Most words looked
	// up are no token, and the probes of such a word go past several
	// entries: the hash halves tell them apart without reading the
	// entries' bytes, which lie elsewhere in memory (three cache misses
	// per probe instead of none).
	slots []uint64
	ids   []int32  // ids[e]: entry e's token id
	off   []uint32 // entry e's bytes are bytes[off[e]:off[e+1]]
	bytes []byte
	// maxLen is the longest token's length in bytes: a longer word is no
	// token, and looking it up would only hash it.
	maxLen int
	// merges[id] is singleUnknown, singleYes (merging the token's bytes
	// gives exactly [id]) or singleNo.
	merges []atomic.Uint32
	// lens[id] is the length of token id's raw bytes (0: no such token,
	// or longer than 65,535 bytes).
	lens []uint16
}

// newRawTokens indexes the raw bytes of vocab's byte-level tokens.
func newRawTokens(vocab map[string]int) *rawTokens {
	size := 16
	for size*7 < len(vocab)*10 {
		size *= 2
	}
	r := &rawTokens{seed: maphash.MakeSeed(), slots: make([]uint64, size), ids: make([]int32, 0, len(vocab)),
		off: make([]uint32, 1, len(vocab)+1), bytes: make([]byte, 0, 8*len(vocab))}
	bl := newByteLevel()
	mask := uint64(size - 1)
	for tok, id := range vocab {
		var ok bool
		start := len(r.bytes)
		if r.bytes, ok = bl.appendRaw(r.bytes, tok); !ok {
			continue
		}
		raw := r.bytes[start:]
		r.maxLen = max(r.maxLen, len(raw))
		e := uint64(len(r.ids))
		r.ids = append(r.ids, int32(id))
		r.off = append(r.off, uint32(len(r.bytes)))
		h := maphash.Bytes(r.seed, raw)
		i := h & mask
		for r.slots[i] != 0 {
			i = (i + 1) & mask
		}
		r.slots[i] = h>>32<<32 | (e + 1)
	}
	maxID := int32(0)
	for _, id := range r.ids {
		maxID = max(maxID, id)
	}
	r.merges = make([]atomic.Uint32, maxID+1)
	r.lens = make([]uint16, maxID+1)
	for e, id := range r.ids {
		if n := r.off[e+1] - r.off[e]; n <= 0xFFFF {
			r.lens[id] = uint16(n)
		}
	}
	return r
}

// find returns the id of the token whose raw bytes are word.
func (r *rawTokens) find(word string) (int32, bool) {
	if len(word) > r.maxLen {
		return 0, false
	}
	mask := uint64(len(r.slots) - 1)
	h := maphash.String(r.seed, word)
	for i := h & mask; ; i = (i + 1) & mask {
		s := r.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 != h>>32 {
			continue
		}
		if e := uint32(s) - 1; string(r.bytes[r.off[e]:r.off[e+1]]) == word {
			return r.ids[e], true
		}
	}
}

// newSingleTokens starts building the table from vocab, which it does not
// modify and the caller must not modify either.
func newSingleTokens(vocab map[string]int) *singleTokens {
	ch := make(chan *rawTokens, 1)
	go func() { ch <- newRawTokens(vocab) }()
	return &singleTokens{words: sync.OnceValue(func() *rawTokens { return <-ch })}
}

// lookup returns the id of the token whose raw bytes are word and whether
// merging word is known to give it alone; ok is false when word is no
// token.
func (s *singleTokens) lookup(word string) (id int32, state uint32, ok bool) {
	w := s.words()
	id, ok = w.find(word)
	if !ok {
		return 0, 0, false
	}
	return id, w.merges[id].Load(), true
}

// record stores what merging the word of token id gave.
func (s *singleTokens) record(id int32, ids []int32) {
	state := singleNo
	if len(ids) == 1 && ids[0] == id {
		state = singleYes
	}
	s.words().merges[id].Store(state)
}
