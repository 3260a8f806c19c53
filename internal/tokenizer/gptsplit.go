package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The split patterns of almost every byte-level BPE tokenizer are one of two
// regular expressions. HF runs them with Oniguruma; running them with a
// backtracking engine in Go (regexp2) costs more than the BPE itself, so
// these hand-written matchers implement them directly. They reproduce
// Oniguruma's leftmost-first alternation and backtracking for these exact
// patterns (tests compare them with regexp2, and the golden files with HF).
const (
	// patternGPT4 is the pre-tokenizer of cl100k, Llama-3 and the builtin
	// tokenizer; with \p{N} instead of \p{N}{1,3} it is Qwen2/Qwen3's.
	patternGPT4 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patternQwen = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// patternGPT2 is the ByteLevel pre-tokenizer's own regex (use_regex).
	patternGPT2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
)

// fastSplitter returns a hand-written matcher for pattern, or nil. It
// appends the pieces of s (matches and, if there were any, the gaps between
// them) to out, which is what Split with behavior Isolated produces.
func fastSplitter(pattern string) func(s string, out []string) []string {
	switch pattern {
	case patternGPT4:
		return func(s string, out []string) []string { return splitGPT4(s, 3, out) }
	case patternQwen:
		return func(s string, out []string) []string { return splitGPT4(s, 1, out) }
	case patternGPT2:
		return splitGPT2
	}
	return nil
}

// Character classes of the patterns: \p{L}, \p{N}, \s and everything else.
const (
	classOther = iota
	classLetter
	classNumber
	classSpace
)

// classify returns the class of r. \s is Unicode White_Space in Oniguruma,
// which is what unicode.IsSpace tests.
func classify(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			return classLetter
		case '0' <= r && r <= '9':
			return classNumber
		case r == ' ', '\t' <= r && r <= '\r':
			return classSpace
		}
		return classOther
	}
	switch {
	case isCJKLetter(r), unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// isCJKLetter reports whether r is in a block of letters only (CJK
// Unified Ideographs with Extension A, Hangul syllables): text decoded
// from Chinese, Japanese and Korean tokens is mostly made of them, and
// this test is quicker than unicode.IsLetter's table search.
// TestCJKLetters checks it against unicode.IsLetter.
func isCJKLetter(r rune) bool {
	return (0x4E00 <= r && r <= 0x9FFF) || (0x3400 <= r && r <= 0x4DBF) || (0xAC00 <= r && r <= 0xD7A3)
}

// runeAt decodes the rune at s[i:]; i must be < len(s).
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// classAt is the class of the rune at i, or -1 at the end of s.
func classAt(s string, i int, tab *[1 << 16]uint8) int {
	if i >= len(s) {
		return -1
	}
	c, _ := classAtFast(s, i, tab)
	return c
}

// scanClass returns the end of the run of runes of class c starting at i,
// stopping after max runes when max > 0.
func scanClass(s string, i, c, max int, tab *[1 << 16]uint8) int {
	if max <= 0 {
		for i < len(s) {
			// Runs of ASCII letters are most of English text.
			if b := s[i]; b < utf8.RuneSelf {
				if int(asciiClass[b]) != c {
					break
				}
				i++
				continue
			}
			k, w := classAtFast(s, i, tab)
			if k != c {
				break
			}
			i += w
		}
		return i
	}
	for n := 0; i < len(s) && n < max; n++ {
		k, w := classAtFast(s, i, tab)
		if k != c {
			break
		}
		i += w
	}
	return i
}

// contraction returns the length of 's, 't, 're, 've, 'm, 'll or 'd after
// the apostrophe at s[i-1], or 0. With fold, letters match case-insensitively
// as Oniguruma's (?i) does, where U+017F (long s) folds to 's'.
func contraction(s string, i int, fold bool) int {
	eq := func(j int, want byte) (int, bool) {
		if j >= len(s) {
			return 0, false
		}
		r, w := runeAt(s, j)
		if r == rune(want) {
			return w, true
		}
		if fold && (r == rune(want-'a'+'A') || (want == 's' && r == 'ſ')) {
			return w, true
		}
		return 0, false
	}
	for _, suffix := range [...]string{"s", "t", "re", "ve", "m", "ll", "d"} {
		n, j := 0, i
		ok := true
		for k := 0; k < len(suffix) && ok; k++ {
			var w int
			w, ok = eq(j, suffix[k])
			j += w
			n += w
		}
		if ok {
			return n
		}
	}
	return 0
}

// spaceEnd handles a whitespace run at i when no earlier alternative
// matched: \s*[\r\n]+ (up to the last CR or LF of the run, if any), else
// \s+(?!\S) (the run without its last rune, unless it ends the text or has
// only one rune), else \s+.
func spaceEnd(s string, i int, crlf bool, tab *[1 << 16]uint8) int {
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		c, w := classAtFast(s, end, tab)
		if c != classSpace {
			break
		}
		if s[end] == '\r' || s[end] == '\n' {
			lastNL = end
		}
		lastStart = end
		end += w
	}
	switch {
	case crlf && lastNL >= 0:
		return lastNL + 1
	case end == len(s) || lastStart == i:
		return end
	default:
		return lastStart
	}
}

// splitGPT4 implements patternGPT4 (maxDigits 3) and patternQwen
// (maxDigits 1), alternative by alternative.
func splitGPT4(s string, maxDigits int, out []string) []string {
	tab := runeClasses()
	for i := 0; i < len(s); {
		c, w := classAtFast(s, i, tab)
		r := rune(s[i]) // only compared with ASCII runes below
		end := -1
		if r == '\'' {
			if n := contraction(s, i+w, true); n > 0 {
				end = i + w + n
			}
		}
		if end < 0 {
			switch c {
			case classLetter:
				end = scanClass(s, i, classLetter, 0, tab)
			case classNumber:
				end = scanClass(s, i, classNumber, maxDigits, tab)
			default:
				// [^\r\n\p{L}\p{N}]?\p{L}+ with the optional rune present.
				if r != '\r' && r != '\n' && classAt(s, i+w, tab) == classLetter {
					end = scanClass(s, i+w, classLetter, 0, tab)
					break
				}
				// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
				j := i
				if r == ' ' {
					j = i + w
				}
				if classAt(s, j, tab) == classOther {
					end = scanClass(s, j, classOther, 0, tab)
					for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
						end++
					}
					break
				}
				end = spaceEnd(s, i, true, tab)
			}
		}
		out = append(out, s[i:end])
		i = end
	}
	return out
}

// splitGPT2 implements patternGPT2.
func splitGPT2(s string, out []string) []string {
	tab := runeClasses()
	for i := 0; i < len(s); {
		r, w := runeAt(s, i)
		end := -1
		if r == '\'' {
			if n := contraction(s, i+w, false); n > 0 {
				end = i + w + n
			}
		}
		if end < 0 {
			j := i
			if r == ' ' {
				j = i + w
			}
			switch c := classAt(s, j, tab); c {
			case classLetter, classNumber, classOther:
				end = scanClass(s, j, c, 0, tab)
			default:
				end = spaceEnd(s, i, false, tab)
			}
		}
		out = append(out, s[i:end])
		i = end
	}
	return out
}
