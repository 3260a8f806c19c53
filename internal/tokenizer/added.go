package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// addedToken is one entry of tokenizer.json's added_tokens, with the id HF
// assigns it.
type addedToken struct {
	content    string
	id         int
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

// matcher finds added tokens in text like HF's AhoCorasick with
// MatchKind::LeftmostLongest: the match that starts first wins, and among
// those the longest. It is a byte trie stored in one map, walked only from
// positions whose byte can start a token, which is cheap because added tokens
// are few and mostly start with '<'.
type matcher struct {
	first  [256]bool
	edges  map[uint64]int32 // node<<8 | byte -> child node
	tokens []int32          // per node: index into the pattern's owner list, or -1
	owners []*addedToken
}

// newMatcher builds a matcher for the given patterns; pattern i belongs to
// owners[i]. Empty patterns are skipped, as HF skips empty tokens.
func newMatcher(patterns []string, owners []*addedToken) *matcher {
	m := &matcher{edges: map[uint64]int32{}, tokens: []int32{-1}, owners: owners}
	for i, p := range patterns {
		if p == "" {
			continue
		}
		m.first[p[0]] = true
		node := int32(0)
		for j := 0; j < len(p); j++ {
			key := uint64(node)<<8 | uint64(p[j])
			next, ok := m.edges[key]
			if !ok {
				next = int32(len(m.tokens))
				m.tokens = append(m.tokens, -1)
				m.edges[key] = next
			}
			node = next
		}
		if m.tokens[node] < 0 { // the first of two equal patterns wins
			m.tokens[node] = int32(i)
		}
	}
	return m
}

// longestAt returns the longest pattern that starts at s[i:], as the end
// offset and the pattern's owner, or -1.
func (m *matcher) longestAt(s string, i int) (int, *addedToken) {
	end, owner := -1, (*addedToken)(nil)
	node := int32(0)
	for j := i; j < len(s); j++ {
		next, ok := m.edges[uint64(node)<<8|uint64(s[j])]
		if !ok {
			break
		}
		node = next
		if t := m.tokens[node]; t >= 0 {
			end, owner = j+1, m.owners[t]
		}
	}
	return end, owner
}

// segment is a piece of text: either an added token (tok != nil) or text
// that still has to be tokenized.
type segment struct {
	text string
	tok  *addedToken
}

// split appends the segments of s to out, following HF's
// AddedVocabulary::find_matches: non-overlapping leftmost-longest matches,
// single_word matches dropped when touching a word character, lstrip/rstrip
// widening the match over neighbouring whitespace. Empty segments are
// dropped, as PreTokenizedString::split drops them.
func (m *matcher) split(s string, out []segment) []segment {
	if len(m.owners) == 0 || s == "" {
		if s != "" {
			out = append(out, segment{text: s})
		}
		return out
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if !m.first[s[i]] {
			i++
			continue
		}
		stop, tok := m.longestAt(s, i)
		if tok == nil {
			i++
			continue
		}
		start := i
		i = stop // the next search starts after this match, whatever we do with it
		if tok.singleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.lstrip {
			start = max(trailingSpaceStart(s[:start]), startOffset)
		}
		if tok.rstrip {
			stop += leadingSpaceLen(s[stop:])
		}
		if startOffset < start {
			out = append(out, segment{text: s[startOffset:start]})
		}
		// HF would panic on a range that rstrip made inverted; an empty
		// token text is harmless here because only tok is used.
		out = append(out, segment{text: s[min(start, stop):stop], tok: tok})
		startOffset = stop
	}
	if startOffset < len(s) {
		out = append(out, segment{text: s[startOffset:]})
	}
	return out
}

// isWordRune is Rust regex's Unicode \w: Alphabetic, marks, decimal digits,
// connector punctuation and joiners. Alphabetic is L, Nl and the
// Other_Alphabetic/Other_Lowercase/Other_Uppercase additions (circled
// letters and the like).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Pc, r) || r == 0x200C || r == 0x200D ||
		unicode.Is(unicode.Other_Alphabetic, r) || unicode.Is(unicode.Other_Lowercase, r) ||
		unicode.Is(unicode.Other_Uppercase, r)
}

// endsWithWord is HF's ends_with_word (regex `\w$`).
func endsWithWord(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return size > 0 && isWordRune(r)
}

// startsWithWord is HF's starts_with_word (regex `^\w`).
func startsWithWord(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size > 0 && isWordRune(r)
}

// trailingSpaceStart is HF's space_leftmost_at_end (regex `\s*$`): the offset
// where the run of whitespace at the end of s starts.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// leadingSpaceLen is HF's space_rightmost_at_start (regex `^\s*`): the length
// of the run of whitespace at the start of s.
func leadingSpaceLen(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}
