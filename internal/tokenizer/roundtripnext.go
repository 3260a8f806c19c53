package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// The next round of one prompt (RoundTripNext) mostly decodes the last
// round's ids cut short, and its text is the last round's normalized text
// up to the cut: nearly all of its work (decoding, normalizing,
// pre-tokenizing, tokenizing) would repeat the last round's. nextRound
// does only the part that can differ, for the tokenizers where that part
// is known: the byte-level decoder, NFC or no normalizer, and a
// pre-tokenizer that is one of the hand-written splitters (gptsplit.go),
// optionally followed by a ByteLevel step that changes nothing.
//
// Let D be the last round's normalized text (its only segment: no added
// tokens in it), which its ids decode to byte for byte, and let the new
// ids share their first p ids with the last ones, whose bytes are D[:B].
// Then:
//
//   - The new text is D[:c], c the last character boundary at or before
//     B, then the rest of the bytes made valid: decoding replaces invalid
//     UTF-8 from left to right, and D[:c] is valid.
//   - Its NFC form is the text up to r, the last NFC-stable rune at or
//     before c, then the NFC form of the rest: nfcMapped's stretches
//     before r are D's, which NFC leaves as they are (D is NFC already),
//     and a stretch starts at every stable rune.
//   - A hand-written splitter finds each pre-token from where the last
//     one ended, reading the pre-token, at most a few runes more (the
//     rune after a run of a class, a contraction's letters) and, for a
//     run of whitespace, the whole run. So every pre-token of D that ends
//     before a restart point i, where D has a rune that is not whitespace
//     and that lies more than restartMargin bytes before r, is read from
//     D[:r] alone and is also a pre-token of the new text; the new text's
//     pre-tokens from i on are the splitter's pre-tokens of its text from
//     i.
//
// So the new ids are the last ids of the pre-tokens before i, then the
// model's ids of the pre-tokens of the new text from i on.
// TestNextRoundEqualsDecodeEncode, FuzzNextRound and FuzzRoundTrip check the result
// against Decode then Encode.

// restartMargin is how far before r a restart point must lie: more than
// any splitter reads past the pre-token it finds, outside whitespace
// runs (a contraction's apostrophe and two runes: 9 bytes).
const restartMargin = 16

// nextSplit returns the splitter nextRound may use, nil if it may not.
func (t *hfTokenizer) nextSplit() func(s string, out []string) []string {
	if t.normalize != nil && !t.nfc {
		return nil
	}
	switch {
	case len(t.pre) == 1:
	case len(t.pre) == 2 && t.pre[1].byteLevel && !t.pre[1].addPrefixSpace && t.pre[1].fast == nil:
	default:
		return nil
	}
	if st := &t.pre[0]; st.text == nil && !st.byteLevel && st.fast != nil && st.behavior == behaviorIsolated {
		return st.fast
	}
	return nil
}

// nextRound is the round trip of ids after last (see above), if it can
// take it: false when last cannot be followed (its text had added
// tokens, the ids share too little with it, the new text has added
// tokens) or the tokenizer is not one it serves.
func (t *hfTokenizer) nextRound(last *Trip, ids []int) (string, []int, *Trip, bool) {
	if last == nil || last.norm == "" {
		return "", nil, nil, false
	}
	split := t.nextSplit()
	if split == nil {
		return "", nil, nil, false
	}
	d := last.norm
	p := commonPrefix(ids, last.ids)
	b, ok := last.bytesOf(p, t)
	if !ok {
		return "", nil, nil, false
	}
	// c: the last character boundary at or before b in d.
	c := b
	for c > 0 && c < len(d) && !utf8.RuneStart(d[c]) {
		c--
	}
	var tail []byte
	tail = append(tail, d[c:b]...)
	for _, id := range ids[p:] {
		tail = append(tail, t.decodeBytesOf(id)...)
	}
	// The text is a new string, not a part of d: the prompt a dataset
	// keeps must not keep the longer text of the round before.
	var text string
	if len(tail) > 0 {
		text = d[:c] + toValidUTF8(string(tail))
	} else {
		text = strings.Clone(d[:c])
	}
	if segs := t.rawMatch.split(text, nil); len(segs) != 1 || segs[0].tok != nil {
		return "", nil, nil, false
	}
	// r: the last NFC-stable rune at or before c.
	r, norm := c, text
	if t.nfc {
		bits := nfcStableBits()
		for r > 0 {
			if r < len(text) {
				if rn, w := decodeRune(text, r); isNFCStable(rn, w, bits) {
					break
				}
			}
			_, w := utf8.DecodeLastRuneInString(text[:r])
			r -= w
		}
		if rest := nfcString(text[r:]); rest != text[r:] {
			norm = text[:r] + rest
		}
	}
	if segs := t.normMatch.split(norm, nil); len(segs) != 1 || segs[0].tok != nil {
		return "", nil, nil, false
	}
	// k: the last piece of last that starts at a restart point.
	tab := runeClasses()
	k := len(last.pieces)
	for k > 0 {
		k--
		if off := int(last.pieces[k].off); off+restartMargin <= r && classAt(d, off, tab) != classSpace {
			break
		}
	}
	if k == 0 {
		return "", nil, nil, false
	}
	from := int(last.pieces[k].off)
	next := &Trip{norm: norm, pieces: append(make([]tripPiece, 0, k+16), last.pieces[:k]...)}
	out := append(make([]int, 0, len(ids)+16), last.ids[:last.pieces[k].from]...)
	pos := int32(from)
	for _, piece := range split(norm[from:], nil) {
		n := len(out)
		out = t.model.tokenize(piece, out)
		next.pieces = append(next.pieces, tripPiece{pos, int32(n), int32(len(out))})
		pos += int32(len(piece))
	}
	next.ids = out
	return text, out, next, true
}

// commonPrefix is how many ids a and b share from their start.
func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	if n > 0 && &a[0] == &b[0] {
		return n // a cut of the same ids, as vLLM's next round mostly is
	}
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// bytesOf returns how many bytes of the Trip's text its first p ids
// decode to, from the piece that holds id p-1.
func (tr *Trip) bytesOf(p int, t *hfTokenizer) (int, bool) {
	if p == 0 {
		return 0, false
	}
	// The first piece that ends after id p-1.
	lo, hi := 0, len(tr.pieces)
	for lo < hi {
		m := (lo + hi) / 2
		if int(tr.pieces[m].to) < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(tr.pieces) {
		return 0, false
	}
	pc := tr.pieces[lo]
	n := int(pc.off)
	for _, id := range tr.ids[pc.from:p] {
		n += len(t.decodeBytesOf(id))
	}
	return n, n <= len(tr.norm)
}

// decodeBytesOf is id's bytes in the decode table (none for an id that
// has none, as decodeHinted skips it).
func (t *hfTokenizer) decodeBytesOf(id int) []byte {
	if uint(id)+1 < uint(len(t.decodeOff)) {
		return t.decodeBytes[t.decodeOff[id]:t.decodeOff[id+1]]
	}
	return nil
}
