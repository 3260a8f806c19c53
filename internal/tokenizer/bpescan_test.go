package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode"
)

// TestMergeScanEqualsHeap runs mergeScan, the priority-queue merge with
// its span check and HF's priority-queue merge (mergeWord with HF's
// stale-entry check) on the words of text decoded from random ids and on random
// byte strings, for every test tokenizer that mergeScan serves: the ids
// are the same.
func TestMergeScanEqualsHeap(t *testing.T) {
	t.Parallel()
	toks := map[string]Tokenizer{"builtin": Builtin()}
	for _, name := range []string{"qwen3", "llama3"} {
		tok, err := Load(hfDir(t, name))
		if err != nil {
			t.Fatal(err)
		}
		toks[name] = tok
	}
	for name, tok := range toks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := tok.(*hfTokenizer)
			m, ok := h.model.(*bpeModel)
			if ok {
				m.waitTables()
			}
			if !ok || !m.scans() {
				t.Fatalf("%s: mergeScan is not used", name)
			}
			r := rand.New(rand.NewPCG(3, 4))
			words := h.preTokenize(randomText(tok, 20_000), true, nil)
			for range 20_000 {
				b := make([]byte, 2+r.IntN(2*scanMaxLen))
				for i := range b {
					// Half of the strings from a small alphabet, so that
					// long merges happen; the rest any byte.
					if len(b)%2 == 0 {
						b[i] = "abcde thn"[r.IntN(9)]
					} else {
						b[i] = byte(r.Uint32())
					}
				}
				words = append(words, string(b))
			}
			// hf is the model with HF's own stale-entry check and no
			// mergeScan.
			hf := *m
			hf.scan = false
			for _, w := range words {
				checkMerges(t, m, &hf, w)
			}
		})
	}
}

// FuzzMergeScan compares mergeScan and the span check with HF's
// priority-queue merge on the built-in tokenizer for any word.
func FuzzMergeScan(f *testing.F) {
	m := Builtin().(*hfTokenizer).model.(*bpeModel)
	f.Add("hello world")
	f.Add("aaaaaaaaaaaaaaa")
	hf := *m
	hf.scan = false
	f.Fuzz(func(t *testing.T, w string) { checkMerges(t, m, &hf, w) })
}

// checkMerges compares m's merges of w (mergeWord with the span check
// and, if w is short enough, mergeScan) with hf's, HF's own algorithm.
func checkMerges(t *testing.T, m, hf *bpeModel, w string) {
	t.Helper()
	if len(w) < 2 {
		return
	}
	want := hf.mergeWord(w, nil)
	if got := m.mergeWord(w, nil); !slices.Equal(got, want) {
		t.Fatalf("%q: span check %v, HF's check %v", w, got, want)
	}
	if len(w) > scanMaxLen {
		return
	}
	if got := m.mergeScan(w, nil); !slices.Equal(got, want) {
		t.Fatalf("%q: mergeScan %v, heap %v", w, got, want)
	}
}

// TestMergeHeapOrder: the 4-ary heap, built by init or by push and mixed
// with pops, gives its items lowest key first.
func TestMergeHeapOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 200 {
		var h mergeHeap
		var keys []uint64
		for range n {
			k := uint64(r.IntN(50))<<32 | uint64(r.IntN(1000))
			h = append(h, mergeItem{key: k})
			keys = append(keys, k)
		}
		h.init()
		var got []uint64
		for len(h) > 0 {
			got = append(got, h.pop().key)
			if r.IntN(3) == 0 {
				k := got[len(got)-1] + uint64(r.IntN(100))
				h.push(mergeItem{key: k})
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if !slices.IsSorted(got) || len(got) != len(keys) {
			t.Fatalf("n %d: popped %v, want the keys %v in order", n, got, keys)
		}
	}
}

// TestCJKLetters: every rune isCJKLetter takes is a letter for
// unicode.IsLetter, so that classify's quick test changes no class.
func TestCJKLetters(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isCJKLetter(r) && !unicode.IsLetter(r) {
			t.Fatalf("%U: isCJKLetter, not unicode.IsLetter", r)
		}
	}
}

// TestPrefixOfMergedWord: a word cut where one of its tokens ends merges
// to its tokens up to there (what prefixOfCached relies on), on the
// long words of text decoded from random ids and on random ones; and
// encoding a text cut after a token gives the same ids with the cache of
// the whole text's encoding as with a tokenizer that never saw it.
func TestPrefixOfMergedWord(t *testing.T) {
	t.Parallel()
	tok, err := Load(hfDir(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	m := tok.(*hfTokenizer).model.(*bpeModel)
	hf := *m
	hf.scan = false
	r := rand.New(rand.NewPCG(7, 8))
	// Windows of consecutive ids, as vLLM's random dataset draws them:
	// those of the Chinese part of the vocabulary decode to long words.
	window := func(start, n int) []int {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = start + i
		}
		return ids
	}
	var words []string
	for k := range 40 {
		for _, w := range tok.(*hfTokenizer).preTokenize(tok.Decode(window(100_000+1000*k, 400)), true, nil) {
			if len(w) >= 200 {
				words = append(words, w)
			}
		}
	}
	for range 200 {
		b := make([]byte, 100+r.IntN(400))
		for i := range b {
			b[i] = "abcde thn"[r.IntN(9)]
		}
		words = append(words, string(b))
	}
	if len(words) < 230 {
		t.Fatalf("only %d long words", len(words))
	}
	lens := m.singles.words.get().lens
	for _, w := range words {
		full := hf.mergeWord(w, nil)
		n := 0
		for j, id := range full[:len(full)-1] {
			n += int(lens[id])
			if got := hf.mergeWord(w[:n], nil); !slices.Equal(got, full[:j+1]) {
				t.Fatalf("%q cut after token %d (%d bytes): %v, the whole word's tokens %v", w, j, n, got, full[:j+1])
			}
		}
	}
	cold := func() Tokenizer {
		c, err := Load(hfDir(t, "qwen3"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}()
	for k := range 40 {
		text := tok.Decode(window(100_000+1000*k+500, 300))
		enc := tok.Encode(text, false)
		cut := tok.Decode(enc[:len(enc)*(k+1)/42])
		if got, want := tok.Encode(cut, false), cold.Encode(cut, false); !slices.Equal(got, want) {
			t.Fatalf("window %d: the cut text encodes to %v after the whole, %v alone", k, got, want)
		}
	}
}
