package tokenizer

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

func TestBuiltin(t *testing.T) {
	tok := Builtin()
	if tok != Builtin() {
		t.Error("Builtin() returned a different tokenizer on the second call")
	}
	if got := tok.Name(); got != BuiltinName {
		t.Errorf("Name() = %q, want %q", got, BuiltinName)
	}
	if got := tok.VocabSize(); got != 8192 {
		t.Errorf("VocabSize() = %d, want 8192", got)
	}
	if got := tok.AllSpecialIDs(); !slices.Equal(got, []int{8192}) {
		t.Errorf("AllSpecialIDs() = %v, want [8192]", got)
	}
	if got := tok.NumSpecialTokensToAdd(); got != 1 {
		t.Errorf("NumSpecialTokensToAdd() = %d, want 1", got)
	}
	if got := tok.Encode("", true); !slices.Equal(got, []int{8192}) {
		t.Errorf("Encode(\"\", true) = %v, want [8192]", got)
	}
	if got := tok.Encode("a<|endoftext|>b", false); len(got) != 3 || got[1] != 8192 {
		t.Errorf("Encode of text with <|endoftext|> = %v, want the special id in the middle", got)
	}
	// AllSpecialIDs returns a copy: changing it must not change the tokenizer.
	tok.AllSpecialIDs()[0] = 1
	if got := tok.AllSpecialIDs(); got[0] != 8192 {
		t.Error("AllSpecialIDs() exposes the tokenizer's own slice")
	}
}

// TestConcurrentUse encodes and decodes from many goroutines at once;
// with -race it checks that the shared BPE cache is safe.
func TestConcurrentUse(t *testing.T) {
	g := readGolden(t, "builtin")
	tok := Builtin()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range g.Cases {
				if c.Kind != "text" {
					continue
				}
				if got := tok.Encode(c.Text, false); !slices.Equal(got, c.IDs) {
					t.Errorf("concurrent Encode(%q) = %v, want %v", c.Text, got, c.IDs)
					return
				}
				if got := tok.Decode(c.IDs); got != c.Decoded {
					t.Errorf("concurrent Decode = %q, want %q", got, c.Decoded)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// FuzzEncodeDecode checks on the builtin tokenizer that decoding an
// encoding gives the text back (for valid UTF-8 without the text of the
// special token, which would become the special id), that the BOS is added,
// and that Decode never panics, whatever the ids: out-of-range and negative
// ids are skipped, as Hugging Face skips ids it does not know.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"", "Hello, world!", "I'm  here\r\n\tok", "<|endoftext|>", "<|endoftext", "日本語 😀", "\xff\xfe", "a\u0301"} {
		f.Add(s, []byte{1, 0, 0, 0, 255, 255, 255, 255, 0, 32, 0, 0})
	}
	tok := Builtin()
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		ids := make([]int, 0, len(raw)/4)
		for len(raw) >= 4 {
			ids = append(ids, int(int32(binary.LittleEndian.Uint32(raw))))
			raw = raw[4:]
		}
		if d := tok.Decode(ids); !utf8.ValidString(d) {
			t.Fatalf("Decode(%v) = %q is not valid UTF-8", ids, d)
		}
		got := tok.Encode(s, false)
		for _, id := range got {
			if id < 0 || id > tok.VocabSize() {
				t.Fatalf("Encode(%q) produced id %d out of range", s, id)
			}
		}
		if withBOS := tok.Encode(s, true); len(withBOS) != len(got)+1 || withBOS[0] != 8192 || !slices.Equal(withBOS[1:], got) {
			t.Fatalf("Encode(%q, true) = %v, want [8192] + %v", s, withBOS, got)
		}
		if !utf8.ValidString(s) || strings.Contains(s, "<|endoftext|>") {
			return
		}
		if d := tok.Decode(got); d != s {
			t.Fatalf("Decode(Encode(%q)) = %q (ids %v)", s, d, got)
		}
	})
}

// FuzzSplitters compares the hand-written pre-tokenizer matchers with the
// regular expressions they implement, run by regexp2. The one known
// difference is deliberate: Oniguruma (which HF uses) folds "ſ" (U+017F) to
// "s" in (?i:'s), regexp2 does not, and the matchers follow Oniguruma (see
// the "'ſo" golden cases).
func FuzzSplitters(f *testing.F) {
	for _, s := range []string{"", "Hello world", "I'm  here\r\n\tok  ", "x  \n\n  y", "12345 a1b2", " !!\r\n", "'S 'll 'Ve", "日本語 😀", "\u00a0\u3000 x\u2028"} {
		f.Add(s)
	}
	patterns := []struct {
		pattern string
		fast    func(string, []string) []string
	}{
		{patternGPT4, fastSplitter(patternGPT4)},
		{patternQwen, fastSplitter(patternQwen)},
		{patternGPT2, fastSplitter(patternGPT2)},
	}
	res := make([]*regexp2.Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = regexp2.MustCompile(p.pattern, regexp2.None)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 'ſ') {
			return
		}
		for i, p := range patterns {
			var want []string
			for _, sp := range regexSpans(res[i], s) {
				if sp.end > sp.start {
					want = append(want, s[sp.start:sp.end])
				}
			}
			if got := p.fast(s, nil); !slices.Equal(got, want) {
				t.Fatalf("pattern %d on %q:\n got %q\nwant %q", i, s, got, want)
			}
		}
	})
}
