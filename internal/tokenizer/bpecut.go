package tokenizer

// Text without spaces (Chinese, Japanese) makes pre-tokens of thousands of
// bytes, which the merge loop takes through its priority queue, one
// O(log n) step per merge. Most such words can be cut into pieces that
// merge independently, each short enough for mergeScan and for the word
// cache.
//
// A cut between bytes i and i+1 of a word is exact when no token of the
// vocabulary occurs in the word over that boundary (starting at or before
// i and ending after i+1). Every symbol of the merge loop is a token that
// spells a span of the word, so then no symbol ever crosses the boundary,
// and the pair across it, which would merge into such a token, never
// merges. The merges on either side then never touch each other's pairs:
// each side sees the same pairs, ranks and relative positions as when
// merged alone, so it takes the same merges in the same order, and the
// word's ids are the two sides' ids one after the other. This needs what
// mergeScan needs (scans): every byte starts as the same one token
// wherever it is, and the ids name their tokens' spellings.
// TestCutWordEqualsMerge and FuzzCutWord check it.

// cutMinPiece is the length from which tokenize cuts a word, and the
// least length of a piece: cuts are looked for from this many bytes into
// the rest of the word on.
const (
	cutMinWord  = scanMaxLen + 1
	cutMinPiece = 32
)

// cutFilter tells boundaries no token crosses. A token that crosses the
// boundary between bytes i and i+1 of a word has, at that point of its
// own spelling, up to two bytes on its left and up to two on its right
// (fewer where it ends): its context there. The filter holds the context
// of every internal position of every token, as one bit of a hash table
// (so a bit shared by two contexts only makes the filter answer
// "crossed" more often, never less); a boundary is free when none of the
// up to four contexts the word offers there (one or two bytes each side)
// is in it.
type cutFilter struct {
	bits  []uint64
	shift uint
}

// The filter has bitsPerContext bits per internal position of the
// vocabulary's tokens (rounded up to a power of two, at most
// 2^maxCutFilterLog2): Qwen3's 151,643 tokens have 824,326 and get 2^23
// bits (1 MB, the most), of which 2 % are set (many positions share a
// context), so about one probe in fifty of a context that is not there
// says it is. The built-in tokenizer's 8,192 tokens get 2^21 bits (256 KB,
// 0.6 % set) rather than 1 MB, whose every page the build wrote
// (TestCutFilterSizedToVocabulary): a page touched for the first time
// costs a process start up to 15 us on the project's 2-core VM. Fewer
// bits per context cost encoding: at 8, the built-in tokenizer's 2^19 bits
// (2.3 % set) made BenchmarkEncode/builtin/random about 4 % slower,
// each long word's cut being looked for past more false "crossed".
const (
	bitsPerContext   = 32
	minCutFilterLog2 = 12
	maxCutFilterLog2 = 23
)

// cutFilterLog2 is the filter's size, in bits, as a power of two, for n
// contexts.
func cutFilterLog2(n int) uint {
	log2 := uint(minCutFilterLog2)
	for log2 < maxCutFilterLog2 && 1<<log2 < bitsPerContext*n {
		log2++
	}
	return log2
}

// newCutFilter builds the filter from the raw bytes of every token.
func newCutFilter(w *rawTokens) *cutFilter {
	// Every token has one context fewer than bytes.
	log2 := cutFilterLog2(len(w.bytes) - len(w.ids))
	f := &cutFilter{bits: make([]uint64, 1<<log2/64), shift: 64 - log2}
	for e := range w.ids {
		t := w.bytes[w.off[e]:w.off[e+1]]
		for k := 1; k < len(t); k++ {
			f.set(contextKey(t[max(0, k-2):k], t[k:min(len(t), k+2)]))
		}
	}
	return f
}

// contextKey packs a context (left and right, one or two bytes each) into
// one number: the lengths, then the bytes.
func contextKey[S ~string | ~[]byte](left, right S) uint64 {
	k := uint64(len(left))<<36 | uint64(len(right))<<32
	var v uint64
	for i := 0; i < len(left); i++ {
		v = v<<8 | uint64(left[i])
	}
	for i := 0; i < len(right); i++ {
		v = v<<8 | uint64(right[i])
	}
	return k | v
}

func (f *cutFilter) index(key uint64) (int, uint64) {
	h := (key + 1) * 0x9E3779B97F4A7C15 >> f.shift
	return int(h >> 6), 1 << (h & 63)
}

func (f *cutFilter) set(key uint64) {
	i, b := f.index(key)
	f.bits[i] |= b
}

func (f *cutFilter) has(key uint64) bool {
	i, b := f.index(key)
	return f.bits[i]&b != 0
}

// free reports whether no token crosses the boundary between word[i-1]
// and word[i] (0 < i < len(word)).
func (f *cutFilter) free(word string, i int) bool {
	for a := 1; a <= 2 && a <= i; a++ {
		for b := 1; b <= 2 && i+b <= len(word); b++ {
			if f.has(contextKey(word[i-a:i], word[i:i+b])) {
				return false
			}
		}
	}
	return true
}

// nextCut returns where the piece of word that starts at start ends: at
// the first free boundary at least cutMinPiece bytes on, or at the end of
// the word. It only tries boundaries in front of a byte that starts a
// UTF-8 sequence: inside a character, its own token almost always
// crosses.
func (f *cutFilter) nextCut(word string, start int) int {
	for i := start + cutMinPiece; i < len(word); i++ {
		if word[i]&0xC0 != 0x80 && f.free(word, i) {
			return i
		}
	}
	return len(word)
}

// newCutFilterInBackground starts building the filter of the tokens of s on its
// own goroutine (once their table is built) and returns what waits for
// it.
func newCutFilterInBackground(s *singleTokens) *background[*cutFilter] {
	return buildInBackground(func() *cutFilter { return newCutFilter(s.words.get()) })
}
