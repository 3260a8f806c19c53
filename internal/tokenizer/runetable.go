package tokenizer

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Per-rune tables of the Basic Multilingual Plane, which holds nearly every
// rune of real text: the split patterns' class of each rune, and whether
// NFC leaves it alone. Looking a rune up in them costs one load, where
// unicode.IsLetter and the norm package's trie cost a search each; the
// pre-tokenizer and the NFC normalizer ask once per rune of every prompt.
// Runes outside the plane take the slow path.

// runeClasses is the split class (classify) of every BMP rune, one byte
// each, built on first use (about 0.1 ms: it walks the Unicode range
// tables once rather than asking per rune).
var runeClasses = sync.OnceValue(func() *[1 << 16]uint8 {
	t := new([1 << 16]uint8)
	// In classify's order of precedence: a rune that is a letter is never
	// asked whether it is a number.
	for _, rc := range []struct {
		tab   *unicode.RangeTable
		class uint8
	}{{unicode.L, classLetter}, {unicode.N, classNumber}, {unicode.White_Space, classSpace}} {
		for _, r := range rc.tab.R16 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				if t[c] == classOther {
					t[c] = rc.class
				}
			}
		}
	}
	return t
})

// classAtFast is the class of the rune at s[i:] and its width in bytes;
// i must be < len(s). It equals classify(runeAt(s, i)) (TestRuneClasses).
func classAtFast(s string, i int, tab *[1 << 16]uint8) (int, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return int(asciiClass[c]), 1
	}
	r, w := decodeRune(s, i)
	if r < 1<<16 {
		return int(tab[r]), w
	}
	return classify(r), w
}

// decodeRune is utf8.DecodeRuneInString(s[i:]) (FuzzDecodeRune), with
// the two- and three-byte sequences of the BMP (all of it but ASCII)
// decoded in line: the standard library takes them on its slow path, a
// call and a table lookup per rune.
func decodeRune(s string, i int) (rune, int) {
	c := s[i]
	switch {
	case c < utf8.RuneSelf:
		return rune(c), 1
	case 0xC2 <= c && c <= 0xDF && i+1 < len(s):
		if c1 := s[i+1]; c1&0xC0 == 0x80 {
			return rune(c&0x1F)<<6 | rune(c1&0x3F), 2
		}
	case 0xE0 <= c && c <= 0xEF && i+2 < len(s):
		c1, c2 := s[i+1], s[i+2]
		// No overlong form (E0 80..9F) and no surrogate (ED A0..BF).
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c != 0xE0 || c1 >= 0xA0) && (c != 0xED || c1 < 0xA0) {
			return rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// asciiClass is classify on the ASCII runes, so that ASCII text needs no
// other table.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = uint8(classify(r))
	}
	return t
}()

// nfcStable reports whether NFC neither changes r nor lets it interact with
// what precedes it: r is a starter (canonical combining class 0) whose NFC
// quick-check value is Yes. Unicode guarantees a normalization boundary
// before every such rune (ICU calls this hasCompBoundaryBefore), so NFC
// of a text is the concatenation of NFC of the pieces it is cut into in
// front of them, and text made only of them is already NFC.
func nfcStable(r rune) bool {
	var buf [utf8.UTFMax]byte
	b := buf[:utf8.EncodeRune(buf[:], r)]
	p := norm.NFC.Properties(b)
	// BoundaryBefore is ccc 0 and no backward combination (quick check not
	// Maybe); a rune that NFC changes by itself has quick check No.
	return p.BoundaryBefore() && norm.NFC.IsNormal(b)
}

// nfcStableBits has a bit set for every BMP rune that is nfcStable: 8 KB
// that stay in the L1 cache. Building it asks the norm package about
// 63,000 runes (about 2 ms), so buildNormalizer starts it on its own
// goroutine when a tokenizer asks for NFC and the first call waits for
// it.
var nfcStableBits = sync.OnceValue(func() *[1 << 16 / 8]uint8 {
	t := new([1 << 16 / 8]uint8)
	for r := rune(0); r < 1<<16; r++ {
		if r < utf8.RuneSelf || (!(0xD800 <= r && r < 0xE000) && (isCJKLetter(r) || nfcStable(r))) {
			t[r>>3] |= 1 << (r & 7)
		}
	}
	return t
})

// nfcString is norm.NFC.String, but it leaves the stable runes
// (nfcStable) to themselves and hands the norm package only the stretches
// around the others, each from the last stable rune before it to the next
// stable rune after it: boundaries lie in front of stable runes, so the
// result is the same (FuzzNFCString), and text that needs no change, as
// nearly all does, is returned as it is without being copied.
func nfcString(s string) string { return nfcMapped(s, nil) }

// textEdit is a stretch s[From:To] of a text that a normalizer replaced
// with out[OutFrom:OutTo] of its result; the text between edits is copied
// as it is.
type textEdit struct {
	from, to, outFrom, outTo int
}

// nfcMapped is nfcString that also appends to edits, if it is not nil,
// the stretches it changed, in order (roundTrip follows the decoded ids'
// bytes through them).
func nfcMapped(s string, edits *[]textEdit) string {
	bits := nfcStableBits()
	var b strings.Builder
	done := 0       // s[:done] is normalized (into b, once b is used)
	lastStable := 0 // start of the last stable rune seen, or done
	whole := func() string {
		n := norm.NFC.String(s)
		if edits != nil {
			*edits = (*edits)[:0]
			if n != s {
				*edits = append(*edits, textEdit{0, len(s), 0, len(n)})
			}
		}
		return n
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			lastStable = i
			i++
			continue
		}
		r, w := decodeRune(s, i)
		if isNFCStable(r, w, bits) {
			lastStable = i
			i += w
			continue
		}
		if r == utf8.RuneError && w == 1 {
			// The norm package's handling of invalid bytes reaches past
			// them, here and below; Encode never passes any, so do not
			// reason about it.
			return whole()
		}
		// An unstable rune: normalize from the last stable rune before it
		// to the next stable rune after it (which starts the next piece).
		end := i + w
		for end < len(s) {
			r, w := decodeRune(s, end)
			if isNFCStable(r, w, bits) {
				break
			}
			if r == utf8.RuneError && w == 1 {
				return whole()
			}
			end += w
		}
		// Most such stretches are in NFC already: then the text stays
		// as it is, not copied (roundTrip finds its pre-tokens in the
		// decoded text by their place).
		if n := norm.NFC.String(s[lastStable:end]); n != s[lastStable:end] {
			if b.Cap() == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[done:lastStable])
			if edits != nil {
				*edits = append(*edits, textEdit{lastStable, end, b.Len(), b.Len() + len(n)})
			}
			b.WriteString(n)
			done = end
		}
		lastStable, i = end, end
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// isNFCStable is nfcStable(r) for the rune r of width w; an invalid byte
// (width 1, RuneError) is not stable.
func isNFCStable(r rune, w int, bits *[1 << 16 / 8]uint8) bool {
	if r < 1<<16 {
		return bits[r>>3]&(1<<(r&7)) != 0 && (r != utf8.RuneError || w != 1)
	}
	return nfcStable(r)
}
