package tokenizer

import (
	"hash/maphash"
	"iter"
)

// vocabulary is model.vocab while a tokenizer is built: every token and
// its id in file order, and an index from token to entry.
//
// It replaces a Go map[string]int, which for Qwen3's 151,643 tokens was
// the largest cost of a cold load: inserting cost about a tenth of the
// load's CPU time, its 4 MB of groups were memory the process touched for
// the first time (about 15 µs a page on the project's VM), and its
// strings were 150k pointers for the garbage collector to scan while
// the load runs. Here the tokens stay in the parser's arena (one string
// and its ends), the ids are int32 and the index is a slice of uint64
// slots: nothing the collector scans, 2 MB of index for Qwen3.
//
// As in a map, a token that occurs twice in the file takes its last id
// and counts once.
type vocabulary struct {
	text  string   // the tokens, one after another (keyArena.all)
	ends  []uint32 // end of entry i's token in text
	ids   []int32  // entry i's id
	slots []uint64 // open addressing: hash tag<<32 | entry+1; 0 is empty
	seed  maphash.Seed
	n     int  // distinct tokens
	dups  bool // some token occurs more than once
}

// vocabTagShift places a hash's top 32 bits in a slot, so that a probe
// compares a token's text only when the tags agree.
const vocabTagShift = 32

// newVocabulary indexes the tokens of text (ends as in keyArena) with
// their ids.
func newVocabulary(text string, ends []uint32, ids []int32) *vocabulary {
	size := 16
	for size*7 < len(ids)*10 {
		size *= 2
	}
	v := &vocabulary{text: text, ends: ends, ids: ids, slots: make([]uint64, size), seed: maphash.MakeSeed()}
	mask := uint64(size - 1)
	for e := range ids {
		tok := v.tok(e)
		h := maphash.String(v.seed, tok)
		tag := h >> vocabTagShift << vocabTagShift
		i := h & mask
		for {
			s := v.slots[i]
			if s == 0 {
				v.slots[i] = tag | uint64(e+1)
				v.n++
				break
			}
			if s&^(1<<vocabTagShift-1) == tag && v.tok(int(uint32(s))-1) == tok {
				v.slots[i] = tag | uint64(e+1) // the later entry wins
				v.dups = true
				break
			}
			i = (i + 1) & mask
		}
	}
	return v
}

// tok is entry e's token.
func (v *vocabulary) tok(e int) string {
	start := uint32(0)
	if e > 0 {
		start = v.ends[e-1]
	}
	return v.text[start:v.ends[e]]
}

// len is the number of distinct tokens: HF's vocab_size.
func (v *vocabulary) len() int { return v.n }

// entry returns the entry that holds tok, or -1.
func (v *vocabulary) entry(tok string) int {
	if len(v.slots) == 0 {
		return -1
	}
	h := maphash.String(v.seed, tok)
	tag, mask := h>>vocabTagShift<<vocabTagShift, uint64(len(v.slots)-1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return -1
		}
		if s&^(1<<vocabTagShift-1) == tag {
			if e := int(uint32(s)) - 1; v.tok(e) == tok {
				return e
			}
		}
	}
}

// get returns tok's id.
func (v *vocabulary) get(tok string) (int, bool) {
	if e := v.entry(tok); e >= 0 {
		return int(v.ids[e]), true
	}
	return 0, false
}

// all yields every distinct token and its id, in file order (a token that
// occurs twice where it occurs last).
func (v *vocabulary) all() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for e, id := range v.ids {
			tok := v.tok(e)
			if v.dups && v.entry(tok) != e {
				continue
			}
			if !yield(tok, int(id)) {
				return
			}
		}
	}
}

// atID returns the token of the entry at position id in the file when that
// entry has id id, which is where HF's tokenizers write every token of a
// vocabulary in id order; ok is false otherwise, and when a token occurs
// twice (the entry might be one that a later one overrides).
func (v *vocabulary) atID(id int) (tok string, ok bool) {
	if v.dups || id < 0 || id >= len(v.ids) || int(v.ids[id]) != id {
		return "", false
	}
	return v.tok(id), true
}

// maxID is the largest id, or -1 for an empty vocabulary.
func (v *vocabulary) maxID() int {
	m := int32(-1)
	for _, id := range v.ids {
		m = max(m, id)
	}
	return int(m)
}
