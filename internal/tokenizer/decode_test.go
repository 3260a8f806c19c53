package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendLossy(t *testing.T) {
	// Expectations from Python's bytes.decode("utf-8", "replace"), which
	// like Rust's from_utf8_lossy replaces each maximal invalid subpart.
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"plain ascii", "plain ascii"},
		{"\xff", "\uFFFD"},
		{"\xe2\x82", "\uFFFD"},
		{"\xe2\x82a", "\uFFFDa"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xc0\x80", "\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"a\xf0\x9f\x98\x80b", "a😀b"},
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98\xf0\x9f\x98\x80", "\uFFFD😀"},
		{"\xe0\xa0", "\uFFFD"},
		{"\xf1\x80\x80", "\uFFFD"},
		{"\x80\x80", "\uFFFD\uFFFD"},
		{"\xc2", "\uFFFD"},
		{"\xef\xbf\xbd", "\uFFFD"},
	}
	for _, tc := range tests {
		if got := string(appendLossy(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendLossy(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(appendLossy(nil, tc.in)); got != tc.want {
			t.Errorf("appendLossy(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := toValidUTF8(tc.in); got != tc.want {
			t.Errorf("toValidUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanUpTokenizationSpaces(t *testing.T) {
	// Hand-computed with transformers' chained str.replace rules.
	tests := []struct{ in, want string }{
		{"", ""},
		{"Hello , world !", "Hello, world!"},
		{"Really ? Yes .", "Really? Yes."},
		{"I don 't know", "I don 't know"}, // " 't" is not a rule
		{"I do n't know", "I don't know"},
		{"I 'm here , you 're there", "I'm here, you're there"},
		{"it 's we 've", "it's we've"},
		{"a ' b", "a'b"},
		{" . . .", "..."},
		{"x  .", "x ."}, // one space goes per match
		{"no change here", "no change here"},
		{"tab\t.", "tab\t."},
	}
	for _, tc := range tests {
		if got := cleanUpTokenizationSpaces(tc.in); got != tc.want {
			t.Errorf("cleanUpTokenizationSpaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeSkipsUnknownIDs(t *testing.T) {
	tok := Builtin()
	want := tok.Decode([]int{72, 101})
	got := tok.Decode([]int{-1, 72, 1 << 40, tok.VocabSize() + 1, 101, -1 << 40})
	if got != want {
		t.Errorf("Decode with unknown ids = %q, want %q (unknown ids skipped)", got, want)
	}
	if got := tok.Decode(nil); got != "" {
		t.Errorf("Decode(nil) = %q, want empty", got)
	}
}

func TestDecodeKeepsSpecialTokens(t *testing.T) {
	tok := Builtin()
	ids := tok.Encode("hi", true)
	if got, want := tok.Decode(ids), "<|endoftext|>hi"; got != want {
		t.Errorf("Decode(Encode(%q, true)) = %q, want %q", "hi", got, want)
	}
}

// checkCleanup checks clean_up_tokenization_spaces against the config: the
// Llama-3 file sets it, so transformers (and Decode) clean up what HF
// decodes; the oracle does not, so the golden text is cleaned here by hand.
func checkCleanup(t *testing.T, tok Tokenizer, g *goldenFile, want bool) {
	t.Helper()
	if got := tok.(*hfTokenizer).cleanup; got != want {
		t.Fatalf("clean_up_tokenization_spaces = %v, want %v", got, want)
	}
	if !want {
		return
	}
	changed := 0
	for _, c := range g.Cases {
		wantText := cleanUpTokenizationSpaces(c.Decoded)
		if wantText != c.Decoded {
			changed++
		}
		if got := tok.Decode(c.IDs); got != wantText {
			t.Errorf("Decode(%v) = %q, want %q", c.IDs, got, wantText)
		}
	}
	if changed == 0 {
		t.Error("no golden case exercises the clean-up rules")
	}
	// EqualFold: BERT's normalizer lowercases.
	if got, want := tok.Decode(tok.Encode("Hello , world ! I 'm", false)), "Hello, world! I'm"; !strings.EqualFold(got, want) {
		t.Errorf("clean-up: got %q, want %q", got, want)
	}
}

// FuzzAppendLossy compares appendLossy, on a string and on bytes, with
// the same replacement built on utf8.DecodeRune's idea of a valid
// sequence.
func FuzzAppendLossy(f *testing.F) {
	for _, s := range []string{"", "abc", "a\xf0\x9f\x98\x80b", "\xed\xa0\x80", "\xe0\xa0", "\xf4\x90\x80\x80", "\xef\xbf\xbd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []byte
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				want = append(want, "\uFFFD"...)
				n, _ := maximalSubpart(s[i:])
				i += n
				continue
			}
			want = append(want, s[i:i+size]...)
			i += size
		}
		if got := appendLossy(nil, s); string(got) != string(want) {
			t.Fatalf("appendLossy(%q) = %q, want %q", s, got, want)
		}
		if got := appendLossy(nil, []byte(s)); string(got) != string(want) {
			t.Fatalf("appendLossy([]byte(%q)) = %q, want %q", s, got, want)
		}
	})
}
