package tokenizer

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cutWords are long words to cut: those of text decoded from windows of
// consecutive Qwen3 ids (vLLM's random dataset; the Chinese part of the
// vocabulary makes words of thousands of bytes) and of random ids, and
// random strings over a small alphabet, where long merges happen.
func cutWords(t *testing.T, tok Tokenizer) []string {
	t.Helper()
	h := tok.(*hfTokenizer)
	var texts []string
	for k := range 60 {
		ids := make([]int, 300)
		for i := range ids {
			ids[i] = 90_000 + 1000*k + i
		}
		texts = append(texts, tok.Decode(ids))
	}
	texts = append(texts, randomText(tok, 50_000))
	var words []string
	for _, text := range texts {
		for _, w := range h.preTokenize(nfcString(text), true, nil) {
			if len(w) >= cutMinWord {
				words = append(words, w)
			}
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 300 {
		b := make([]byte, cutMinWord+r.IntN(300))
		for i := range b {
			b[i] = "abcde thn\xe4\xb8\xad"[r.IntN(12)]
		}
		words = append(words, string(b))
	}
	return words
}

// checkCut merges word whole and in the pieces nextCut cuts it into, with
// HF's priority-queue merge (hf), and fails if the ids differ; it returns
// the number of pieces.
func checkCut(t *testing.T, hf *bpeModel, f *cutFilter, word string) int {
	t.Helper()
	want := hf.mergeWord(word, nil)
	var got []int32
	n := 0
	for start := 0; start < len(word); n++ {
		end := f.nextCut(word, start)
		got = hf.mergeWord(word[start:end], got)
		start = end
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q: cut into %d pieces it merges to %v, whole to %v", word, n, got, want)
	}
	return n
}

// TestCutWordEqualsMerge: long words cut where the filter says no token
// crosses merge to the ids of the whole word, on the real Qwen3
// vocabulary; the filter never calls a boundary free that a token
// crosses; and the words of the random dataset do get cut.
func TestCutWordEqualsMerge(t *testing.T) {
	t.Parallel()
	tok, err := Load(hfDir(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	m := tok.(*hfTokenizer).model.(*bpeModel)
	m.waitTables()
	if m.cuts == nil || !m.scans() {
		t.Fatal("Qwen3's long words are not cut")
	}
	f := m.cuts.get()
	hf := *m
	hf.scan = false
	words := cutWords(t, tok)
	bytes, pieces := 0, 0
	for _, w := range words {
		pieces += checkCut(t, &hf, f, w)
		bytes += len(w)
	}
	if pieces*128 < bytes {
		t.Errorf("%d bytes of long words cut into only %d pieces", bytes, pieces)
	}
	t.Logf("%d long words, %d bytes, %d pieces", len(words), bytes, pieces)
	// The premise itself: at every boundary called free, no substring
	// of the word over it is a token.
	checkFreeBoundaries(t, f, m.singles.words.get(), words[:200])
}

// checkFreeBoundaries fails if f calls a boundary of one of words free
// while a token of raw spans it.
func checkFreeBoundaries(t *testing.T, f *cutFilter, raw *rawTokens, words []string) {
	t.Helper()
	for _, w := range words {
		for i := 1; i < len(w); i++ {
			if !f.free(w, i) {
				continue
			}
			for s := max(0, i-raw.maxLen); s < i; s++ {
				for e := i + 1; e <= min(len(w), s+raw.maxLen); e++ {
					if _, _, _, ok := raw.find(w[s:e]); ok {
						t.Fatalf("%q: boundary %d called free, but token %q spans %d..%d", w, i, w[s:e], s, e)
					}
				}
			}
		}
	}
}

// FuzzCutWord compares cut and whole merges of any word on Qwen3's
// vocabulary.
func FuzzCutWord(f *testing.F) {
	f.Add("这是一个很长的中文句子没有空格所以它会变成一个非常长的词语然后被切开来合并")
	f.Add("abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc")
	f.Add("日本語のテキストはスペースがないので長い単語になりますそれを切って合併します")
	tok, err := Load(hfDir(f, "qwen3"))
	if err != nil {
		f.Fatal(err)
	}
	m := tok.(*hfTokenizer).model.(*bpeModel)
	if m.cuts == nil {
		f.Fatal("long words are not cut")
	}
	cf := m.cuts.get()
	hf := *m
	hf.scan = false
	f.Fuzz(func(t *testing.T, word string) {
		if word == "" {
			return
		}
		// Repeat short inputs so that the filter has boundaries to try.
		for len(word) < cutMinWord {
			word += word
		}
		checkCut(t, &hf, cf, word)
	})
}

// TestEncodeBeforeTablesEqualsAfter: a tokenizer whose background tables
// are not built yet (the single-token table, the byte-pair table, the cut
// filter, the unique-ids check) encodes as one with all of them, on
// random-id text, long CJK words and English: the encoder takes the
// tables only when they are ready, and every path they enable is a
// shortcut of the one it replaces.
func TestEncodeBeforeTablesEqualsAfter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"builtin", "qwen3", "llama3"} {
		tok := namedTokenizer(t, name)
		h := tok.(*hfTokenizer)
		m := h.model.(*bpeModel)
		m.waitTables()
		// Nothing built yet; then only the unique-ids check (mergeScan
		// without its byte-pair table, no cuts).
		for _, uniqueKnown := range []bool{false, true} {
			early := *m
			early.cache = newWordCache(m.cache.seed)
			if m.singles != nil {
				early.singles = &singleTokens{words: &background[*rawTokens]{done: make(chan struct{})}}
			}
			if !uniqueKnown {
				early.uniqueIDs = &background[bool]{done: make(chan struct{})}
			}
			if m.bytePairs != nil {
				early.bytePairs = &background[*bytePairTable]{done: make(chan struct{})}
				early.cuts = &background[*cutFilter]{done: make(chan struct{})}
			}
			if early.scans() != (uniqueKnown && m.scans()) {
				t.Fatalf("%s: scans() = %v with the unique-ids check done: %v", name, early.scans(), uniqueKnown)
			}
			before := *h
			before.model = &early
			texts := []string{randomText(tok, 5_000), benchText(t)[:20_000], strings.Repeat("東京の天気は晴れです。", 200)}
			for i, text := range texts {
				if got, want := before.Encode(text, false), tok.Encode(text, false); !slices.Equal(got, want) {
					t.Errorf("%s (unique ids known: %v) text %d: %d ids before the tables, %d after; first difference at %d",
						name, uniqueKnown, i, len(got), len(want), firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCutFilterSizedToVocabulary: the filter has about bitsPerContext bits
// per context of the vocabulary, at most Qwen3's 2^23, so that a small
// vocabulary's filter is a fraction of Qwen3's memory and at most as full
// (about one bit in fifty set), and it still never calls a boundary free
// that a token crosses.
func TestCutFilterSizedToVocabulary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		contexts int
		log2     uint
	}{
		{0, minCutFilterLog2},
		{128, minCutFilterLog2}, // 4,096 bits fit in 2^12
		{129, 13},               // 4,128 do not
		{32_768, 20},            // exactly 2^20
		{32_769, 21},
		{36_203, 21},  // the built-in tokenizer's
		{824_326, 23}, // Qwen3's: its size before sizing
		{50_000_000, maxCutFilterLog2},
	} {
		if got := cutFilterLog2(c.contexts); got != c.log2 {
			t.Errorf("cutFilterLog2(%d) = %d, want %d", c.contexts, got, c.log2)
		}
	}
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tok := namedTokenizer(t, name)
			m := tok.(*hfTokenizer).model.(*bpeModel)
			m.waitTables()
			if m.cuts == nil {
				t.Fatal("no cut filter")
			}
			f, raw := m.cuts.get(), m.singles.words.get()
			set := 0
			for _, w := range f.bits {
				set += bits.OnesCount64(w)
			}
			size := len(f.bits) * 64
			t.Logf("%d tokens, %d contexts, %d bits (%d KiB), %.3f set", len(raw.ids), len(raw.bytes)-len(raw.ids), size, size/8192, float64(set)/float64(size))
			if set*20 > size {
				t.Errorf("%d of %d bits set: the filter is more than a twentieth full", set, size)
			}
			if want := map[string]int{"builtin": 1 << 21, "qwen3": 1 << 23}[name]; size != want {
				t.Errorf("%s's filter has %d bits, want %d", name, size, want)
			}
			words := cutWords(t, tok)
			if name == "builtin" {
				words = words[:0]
				for _, w := range tok.(*hfTokenizer).preTokenize(nfcString(randomText(tok, 50_000)), true, nil) {
					if len(w) > 4 {
						words = append(words, w)
					}
				}
			}
			checkFreeBoundaries(t, f, raw, words[:min(len(words), 300)])
		})
	}
}
