package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestRuneClasses: the class table gives classify's class for every BMP
// rune, and classAtFast the width runeAt gives.
func TestRuneClasses(t *testing.T) {
	t.Parallel()
	tab := runeClasses()
	for r := rune(0); r < 1<<16; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r) + "x"
		c, w := classAtFast(s, 0, tab)
		if want := classify(r); c != want || w != utf8.RuneLen(r) {
			t.Fatalf("%U: class %d width %d, want %d and %d", r, c, w, want, utf8.RuneLen(r))
		}
	}
	// Outside the BMP, and an invalid byte, which runeAt reads as U+FFFD.
	for _, s := range []string{"😀", "\U00020000", "\U0001D7CE", "\xff"} {
		r, rw := runeAt(s, 0)
		if c, w := classAtFast(s, 0, tab); c != classify(r) || w != rw {
			t.Errorf("%q: class %d width %d, want %d and %d", s, c, w, classify(r), rw)
		}
	}
}

// TestNFCStableBits: the bit table says nfcStable for every BMP rune
// (its CJK shortcut included), and stable runes are left alone by NFC.
func TestNFCStableBits(t *testing.T) {
	t.Parallel()
	bits := nfcStableBits()
	for r := rune(0); r < 1<<16; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		got := isNFCStable(r, utf8.RuneLen(r), bits)
		if want := nfcStable(r); got != want {
			t.Fatalf("%U: table says %v, nfcStable %v", r, got, want)
		}
		if got && norm.NFC.String(string(r)) != string(r) {
			t.Fatalf("%U: stable but NFC changes it", r)
		}
	}
}

// FuzzNFCString compares nfcString with norm.NFC.String, which it must
// equal on any input; the seeds mix stable runes with ones that compose
// with their neighbours (combining marks, Hangul jamo, singletons).
func FuzzNFCString(f *testing.F) {
	for _, s := range []string{
		"", "plain ASCII", "e\u0301", "A\u030a\u0301x", "\u1100\u1161\u11a8", "\uac00\u11a8",
		"\u2126 ohm", "\u0344", "日本語 e\u0301 😀\u0301", "a" + strings.Repeat("\u0301", 40) + "b",
		"\u0b47\u0b3e", "\xff\u0301", "\u1e0a\u0323", "q\u0307\u0323", "\U0001D15E\u0301",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := nfcString(s), norm.NFC.String(s); got != want {
			t.Fatalf("nfcString(%+q) = %+q, want %+q", s, got, want)
		}
		checkNFCEdits(t, s)
	})
}

// checkNFCEdits checks nfcMapped's edits of s: in order, and the text
// between them copied as it is, they make its result.
func checkNFCEdits(t *testing.T, s string) {
	t.Helper()
	var edits []textEdit
	out := nfcMapped(s, &edits)
	var b strings.Builder
	done := 0
	for _, e := range edits {
		if e.from < done || e.to < e.from || e.outFrom != b.Len()+e.from-done {
			t.Fatalf("nfcMapped(%+q): edits %+v out of order", s, edits)
		}
		b.WriteString(s[done:e.from])
		b.WriteString(out[e.outFrom:e.outTo])
		done = e.to
	}
	b.WriteString(s[done:])
	if b.String() != out {
		t.Fatalf("nfcMapped(%+q) = %+q, its edits %+v make %+q", s, out, edits, b.String())
	}
}

// FuzzDecodeRune compares decodeRune with utf8.DecodeRuneInString at
// every offset of any string.
func FuzzDecodeRune(f *testing.F) {
	for _, s := range []string{"a\u00e9\u4e2d\U0001F600", "\xe0\x80\x80\xed\xa0\x80\xc0\xaf", "\xe4\xb8", "\xc3", "\xef\xbf\xbd\xf4\x90\x80\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := range len(s) {
			r, w := decodeRune(s, i)
			if wr, ww := utf8.DecodeRuneInString(s[i:]); r != wr || w != ww {
				t.Fatalf("decodeRune(%q, %d) = %U, %d; want %U, %d", s, i, r, w, wr, ww)
			}
		}
	})
}
