package tokenizer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers of tokenizers that work on text rather than bytes:
// Metaspace (SentencePiece-style BPE), BertPreTokenizer, Whitespace and
// WhitespaceSplit (WordPiece). Each cuts a piece of normalized text into
// sub-pieces; none is ever empty.

// Prepend schemes of HF's Metaspace.
const (
	prependAlways = iota
	prependFirst
	prependNever
)

// prependScheme reads Metaspace's prepend_scheme, which older files spell
// as add_prefix_space (false means "never").
func prependScheme(scheme string, addPrefix *bool, field string) (int, error) {
	p := prependAlways
	switch scheme {
	case "", "always":
	case "first":
		p = prependFirst
	case "never":
		p = prependNever
	default:
		return 0, fieldError(field+".prepend_scheme", fmt.Errorf("unknown prepend scheme %q", scheme))
	}
	if addPrefix != nil && !*addPrefix {
		if p != prependNever && scheme != "" {
			return 0, fieldError(field, fmt.Errorf("add_prefix_space does not match declared prepend_scheme"))
		}
		p = prependNever
	}
	return p, nil
}

// metaspace is HF's Metaspace pre-tokenizer: spaces become the replacement
// character ("▁"), which is prepended to the piece unless it starts with
// one (always, or only for the piece at the start of the input with
// "first"), and with split the piece is cut before every replacement
// character.
func metaspace(rep rune, scheme int, split bool) func(s string, first bool, out []string) []string {
	r := string(rep)
	return func(s string, first bool, out []string) []string {
		s = strings.ReplaceAll(s, " ", r)
		if !strings.HasPrefix(s, r) && (scheme == prependAlways || scheme == prependFirst && first) {
			s = r + s
		}
		if !split {
			return append(out, s)
		}
		// Split MergedWithNext: cut before every occurrence but at 0.
		start := 0
		for i := 0; ; {
			j := strings.Index(s[i:], r)
			if j < 0 {
				break
			}
			if p := i + j; p > start {
				out = append(out, s[start:p])
				start = p
			}
			i += j + len(r)
		}
		return append(out, s[start:])
	}
}

// bertPreTokenize is HF's BertPreTokenizer: split on whitespace (removed),
// then every punctuation character is a piece of its own.
func bertPreTokenize(s string, _ bool, out []string) []string {
	start := -1
	for i, c := range s {
		switch {
		case unicode.IsSpace(c):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		case isBertPunct(c):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, s[i:i+utf8.RuneLen(c)])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// whitespaceSplit is HF's WhitespaceSplit: the runs between whitespace.
func whitespaceSplit(s string, _ bool, out []string) []string {
	return append(out, strings.FieldsFunc(s, unicode.IsSpace)...)
}

// whitespacePre is HF's Whitespace pre-tokenizer, the pieces matched by
// \w+|[^\w\s]+ (Rust regex, Unicode classes): maximal runs of word
// characters and maximal runs of other non-space characters.
func whitespacePre(s string, _ bool, out []string) []string {
	start, class := 0, 0 // class: 0 space, 1 word, 2 other
	for i, c := range s {
		k := 2
		switch {
		case isWordRune(c):
			k = 1
		case unicode.IsSpace(c):
			k = 0
		}
		if k != class {
			if class != 0 && i > start {
				out = append(out, s[start:i])
			}
			start, class = i, k
		}
	}
	if class != 0 && len(s) > start {
		out = append(out, s[start:])
	}
	return out
}
