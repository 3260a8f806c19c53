package tokenizer

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// RoundTrip returns tok.Decode(ids) and tok.Encode of that text without
// special tokens: one step of vLLM's gen_prompt_decode_to_target_len
// (vllm/benchmarks/datasets/datasets.py@11dfa3169), which the random and
// prefix_repetition datasets take two or three times per prompt. The
// result is always exactly that of the two calls; a byte-level tokenizer
// of this package gets there faster (see roundTripper).
func RoundTrip(tok Tokenizer, ids []int) (string, []int) {
	text, out, _ := roundTripNext(tok, nil, ids, false)
	return text, out
}

// RoundTripNext is RoundTrip for the next round of one prompt: ids are
// mostly last's result, cut or padded with more ids (vLLM's fix-up), and
// the new text is mostly last's text. A tokenizer that can (see
// nextRound) decodes, normalizes, pre-tokenizes and tokenizes only the
// part that may differ and takes last's ids for the rest; the result is
// always exactly RoundTrip's. It returns what the round after it may use
// (nil from a tokenizer that has no faster round trip); last may be nil
// (the first round). The ids it returns belong to that Trip: they must not
// be changed while it is in use (appending to them is fine).
func RoundTripNext(tok Tokenizer, last *Trip, ids []int) (string, []int, *Trip) {
	return roundTripNext(tok, last, ids, true)
}

func roundTripNext(tok Tokenizer, last *Trip, ids []int, record bool) (string, []int, *Trip) {
	if r, ok := tok.(roundTripper); ok {
		return r.roundTrip(last, ids, record)
	}
	text := tok.Decode(ids)
	return text, tok.Encode(text, false), nil
}

// Trip is what a round trip leaves for the next round of the same prompt
// (RoundTripNext): its ids, its normalized text when that was one
// segment with no added tokens (the text the ids decode to), and where
// each pre-token of that text lies and which ids it got. Without that
// text it gives the next round nothing.
type Trip struct {
	ids    []int
	norm   string
	pieces []tripPiece
}

// tripPiece is one pre-token of a Trip: it starts at off in the text and
// got ids[from:to].
type tripPiece struct {
	off, from, to int32
}

// tripRecorder records a Trip while its round encodes: the pieces of
// the text's one normalized segment, if it has one and no added token.
type tripRecorder struct {
	next  *Trip
	segs  int  // the normalized segments met
	added bool // an added token was met
	pos   int32
}

// segment notes a normalized segment of the text.
func (s *tripRecorder) segment(text string) {
	if s != nil {
		s.segs++
		s.next.norm = text
	}
}

// record notes piece p, which got out[from:to].
func (s *tripRecorder) record(p string, from, to int) {
	if s != nil {
		s.next.pieces = append(s.next.pieces, tripPiece{s.pos, int32(from), int32(to)})
		s.pos += int32(len(p))
	}
}

// skip notes an added token.
func (s *tripRecorder) skip() {
	if s != nil {
		s.added = true
	}
}

// done returns the Trip of a round whose ids are out.
func (s *tripRecorder) done(out []int) *Trip {
	s.next.ids = out
	if s.segs != 1 || s.added {
		s.next.norm, s.next.pieces = "", nil
	}
	return s.next
}

// roundTripper is a tokenizer with a faster RoundTrip.
type roundTripper interface {
	roundTrip(last *Trip, ids []int, record bool) (string, []int, *Trip)
}

var _ roundTripper = (*hfTokenizer)(nil)

// roundTrip is RoundTrip for a tokenizer read from tokenizer.json.
//
// Decoding knows what encoding must find out again: where each id's bytes
// are in the text. Text decoded from token ids is mostly made of pre-tokens
// that are each the bytes of one of those ids (more than half of the
// pre-tokens of vLLM's random dataset; nearly all of its second and third
// round trips), and a pre-token that is the bytes of id t always encodes
// the same way. So the encoder, meeting a pre-token that is exactly the
// bytes one id was decoded to, reads what encoding those bytes gave the
// first time: a state per id (pieceStates), 2 bits each, 38 KB for Qwen3,
// which stay in the CPU's cache, where finding the pre-token's token by
// its bytes costs a hash and a miss in a table of megabytes (on random
// ids) or more.
//
// A pre-token is known to be an id's bytes by where it is, not by its
// bytes: encoding never copies the decoded text unless a step changes it
// (a normalizer that finds something to change, Metaspace), so a
// pre-token whose memory lies within the text's is that part of the
// text; decoding recorded which id's bytes it wrote there. NFC's changes
// are followed (nfcMapped reports them, decodeHints.edited moves the ids
// around them); pre-tokens of text changed otherwise lie elsewhere and
// take the usual path, as do ids whose bytes touch invalid UTF-8, which
// decoding replaces. The state of id t is "encoding t's decoded bytes
// gives exactly t" (yes, no or not yet known), which depends on nothing
// but those bytes and the model, so it is correct for every later
// pre-token with those bytes, on any goroutine. A pre-token that is
// several ids' bytes is checked without merging (bpeconcat.go), and the
// next round of a prompt is taken from this one (nextRound);
// TestRoundTripEqualsDecodeEncode and FuzzRoundTrip check the result
// against Decode then Encode.
func (t *hfTokenizer) roundTrip(last *Trip, ids []int, record bool) (string, []int, *Trip) {
	if text, out, next, ok := t.nextRound(last, ids); ok {
		if !record {
			next = nil
		}
		return text, out, next
	}
	h := t.decodeHinted(ids)
	if h == nil {
		text := t.Decode(ids)
		return text, t.Encode(text, false), nil
	}
	if record && t.nextSplit() != nil {
		h.trip = &tripRecorder{next: &Trip{pieces: make([]tripPiece, 0, len(h.ids))}}
	}
	out := t.encode(h.text, false, h)
	if h.trip == nil {
		return h.text, out, nil
	}
	return h.text, out, h.trip.done(out)
}

// roundTripHints is roundTrip that also returns its hints, for tests.
func (t *hfTokenizer) roundTripHints(ids []int) (*decodeHints, []int) {
	h := t.decodeHinted(ids)
	return h, t.encode(h.text, false, h)
}

// decodeHints is text decoded from ids with the place of every id's
// bytes in it: ids[k]'s bytes are text[starts[k]:starts[k+1]] (ids of no
// bytes are left out), or ids[k] is -1 when its bytes are not in the text
// as they are (they touch invalid UTF-8, replaced in the text).
type decodeHints struct {
	text   string
	ids    []int32
	starts []int32
	// next is the cursor of at: the first k whose span may hold a later
	// pre-token (pre-tokens come in order).
	next int
	// cached is the model, if it is a cachingModel and the ids are
	// windowed: only then are words anchored.
	cached cachingModel
	// concat and joins are set when the model can tell whether a word
	// made of whole ids encodes to them (bpeconcat.go).
	concat *bpeModel
	joins  *concatTables
	// trip is set for RoundTripNext.
	trip *tripRecorder
	// states and anchors are the tokenizer's (roundTripTables).
	states  []atomic.Uint32
	anchors []atomic.Pointer[cachedWord]
	// pieces counts the pre-tokens asked about, found and known those
	// found to be an id's bytes and, of them, those whose id had a piece
	// state (for tests).
	pieces, found, known, anchored int
}

// decodeHinted is Decode that also returns where each id's bytes are; nil
// if the tokenizer's decoding is not the byte-level decoder without
// clean-up (the text is then not the ids' bytes) or the text could be too
// long for int32 offsets.
func (t *hfTokenizer) decodeHinted(ids []int) *decodeHints {
	if t.decoder != decodeByteLevel || t.cleanup || t.rt == nil {
		return nil
	}
	off, arena := t.decodeOff, t.decodeBytes
	h := &decodeHints{ids: make([]int32, 0, len(ids)), starts: make([]int32, 0, len(ids)+1)}
	h.states, h.anchors = t.rt.get(len(off) - 1)
	if windowed(ids) {
		h.cached, _ = t.model.(cachingModel)
	}
	if m, ok := t.model.(*bpeModel); ok {
		if c := m.concatTables(); c != nil {
			h.concat, h.joins = m, c
		}
	}
	n := 0
	for _, id := range ids {
		if uint(id) < uint(len(off)-1) && off[id+1] > off[id] {
			h.ids = append(h.ids, int32(id))
			h.starts = append(h.starts, int32(n))
			n += int(off[id+1] - off[id])
			if n > math.MaxInt32 {
				return nil
			}
		}
	}
	if n > (math.MaxInt32-3)/3 { // lossy text may be three times as long
		return nil
	}
	h.starts = append(h.starts, int32(n))
	// The arena holds the ids' bytes in id order, so a run of
	// consecutive ids (most of a window of the vocabulary) is one copy.
	var b strings.Builder
	b.Grow(n)
	for k := 0; k < len(h.ids); {
		from, to := off[h.ids[k]], off[h.ids[k]+1]
		for k++; k < len(h.ids) && off[h.ids[k]] == to; k++ {
			to = off[h.ids[k]+1]
		}
		b.Write(arena[from:to])
	}
	h.text = b.String()
	if !utf8.ValidString(h.text) {
		h.text = h.lossy(h.text)
	}
	return h
}

// lossy returns raw as appendLossy converts it, and maps h's starts into
// the converted text. An id whose bytes overlap a replaced (invalid) part
// becomes -1; the others keep their bytes, moved by the replacements
// before them. (An id that starts or ends inside a valid sequence, a
// character split over two ids, keeps its span: no pre-token starts or
// ends there, so at never matches it.)
func (h *decodeHints) lossy(raw string) string {
	dst := make([]byte, 0, len(raw)+16)
	starts, n := h.starts, len(h.ids)
	k := 0   // starts[:k] are mapped; starts[k:] still hold offsets in raw
	run := 0 // raw[run:i] is valid and not yet copied
	for i := 0; i < len(raw); {
		// Eight ASCII bytes at a time: most of the text.
		for i+8 <= len(raw) && (uint64(raw[i])|uint64(raw[i+1])<<8|uint64(raw[i+2])<<16|uint64(raw[i+3])<<24|
			uint64(raw[i+4])<<32|uint64(raw[i+5])<<40|uint64(raw[i+6])<<48|uint64(raw[i+7])<<56)&0x8080808080808080 == 0 {
			i += 8
		}
		if i == len(raw) {
			break
		}
		if raw[i] < utf8.RuneSelf {
			i++
			continue
		}
		size, valid := maximalSubpart(raw[i:])
		if valid {
			i += size
			continue
		}
		// raw[i:i+size] is replaced: copy the valid run before it and
		// move the starts in it.
		dst = append(dst, raw[run:i]...)
		shift := int32(len(dst) - i)
		for k < n && int(starts[k]) < i {
			starts[k] += shift
			k++
		}
		// The id holding byte i and every id that starts in the
		// replaced part lose their span.
		if k > 0 && (k == n || int(starts[k]) > i) {
			h.ids[k-1] = -1
		}
		for k < n && int(starts[k]) < i+size {
			starts[k] = int32(len(dst))
			h.ids[k] = -1
			k++
		}
		dst = append(dst, "\uFFFD"...)
		i += size
		run = i
	}
	dst = append(dst, raw[run:]...)
	shift := int32(len(dst) - len(raw))
	for ; k < n; k++ {
		starts[k] += shift
	}
	starts[n] = int32(len(dst))
	return string(dst)
}

// edited returns hints for out, what a normalizer made of s, a part of
// h's text, through edits (nfcMapped): the ids whose bytes lie in s, those
// that touch a changed stretch as -1, the others moved by the changes
// before them. Nil if s is not part of h's text.
func (h *decodeHints) edited(s, out string, edits []textEdit) *decodeHints {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.StringData(h.text)))
	if len(s) == 0 || p < base || p-base+uintptr(len(s)) > uintptr(len(h.text)) {
		return nil
	}
	from := int32(p - base)
	to := from + int32(len(s))
	e := *h
	e.text, e.next = out, 0
	e.ids, e.starts = nil, nil
	m := editMap{edits: edits}
	k := 0
	for k < len(h.ids) && h.starts[k] < from {
		k++
	}
	if k == len(h.ids) || h.starts[k] > from {
		// s starts inside an id's bytes: the bytes up to the next id
		// are no id's.
		e.ids, e.starts = append(e.ids, -1), append(e.starts, 0)
	}
	for ; k < len(h.ids) && h.starts[k+1] <= to; k++ {
		st, en := h.starts[k]-from, h.starts[k+1]-from
		id := h.ids[k]
		if m.touches(st, en) {
			id = -1
		}
		e.ids = append(e.ids, id)
		e.starts = append(e.starts, m.start(st))
	}
	end := int32(len(out))
	if k < len(h.ids) && h.starts[k] < to {
		// s ends inside an id's bytes, which are no id's here.
		e.ids, e.starts = append(e.ids, -1), append(e.starts, m.start(h.starts[k]-from))
	}
	e.starts = append(e.starts, end)
	return &e
}

// editMap maps places in a text to places in what a normalizer made of
// it (edits), for places in ascending order.
type editMap struct {
	edits []textEdit
	x     int   // edits[:x] end at or before the last place asked
	shift int32 // how much edits[:x] moved the text after them
}

// start returns where the byte at i went: moved by the edits before it,
// or to the start of the edit that replaced it.
func (m *editMap) start(i int32) int32 {
	for m.x < len(m.edits) && int32(m.edits[m.x].to) <= i {
		e := m.edits[m.x]
		m.shift += int32(e.outTo-e.outFrom) - int32(e.to-e.from)
		m.x++
	}
	if m.x < len(m.edits) && int32(m.edits[m.x].from) <= i {
		return int32(m.edits[m.x].outFrom)
	}
	return i + m.shift
}

// touches reports whether bytes [st, en) overlap an edit; st must not be
// before the place last asked about.
func (m *editMap) touches(st, en int32) bool {
	m.start(st)
	return m.x < len(m.edits) && int32(m.edits[m.x].from) < en
}

// windowed reports whether ids are in large part runs of consecutive
// ids, as vLLM's random dataset decodes them (windows of the vocabulary,
// and their re-encodings, which keep most of the window's ids): at least
// a quarter of the pairs of neighbours are consecutive. Then the same
// ids recur in the same order from prompt to prompt, and so do the words
// that start in their bytes, which the anchors keep. Ids drawn at random
// (prefix_repetition) make words that never recur: anchoring them would
// cost a miss in the anchors (2.4 MB for Qwen3) for every word, and
// nothing would find them again.
func windowed(ids []int) bool {
	runs := 0
	for k := 1; k < len(ids); k++ {
		if ids[k] == ids[k-1]+1 {
			runs++
		}
	}
	return runs*4 >= len(ids)-1 && runs > 0
}

// at finds piece in h.text: the index k of the id whose bytes hold the
// piece's first byte, whether the piece starts where those bytes start,
// and whether the piece is exactly those bytes; k is
// -1 if the piece is not part of the text or that id's bytes are not in
// it as they are. Pieces must come in the order of their place in the
// text.
func (h *decodeHints) at(piece string) (k int, atStart, exact bool) {
	if len(piece) == 0 || len(h.text) == 0 {
		return -1, false, false
	}
	// Pointers compared as numbers, never turned back into pointers: a
	// piece that is not part of the text (a normalizer's copy) lies
	// outside it, giving an offset past its end.
	p := uintptr(unsafe.Pointer(unsafe.StringData(piece)))
	base := uintptr(unsafe.Pointer(unsafe.StringData(h.text)))
	o := p - base
	if p < base || o >= uintptr(len(h.text)) || o+uintptr(len(piece)) > uintptr(len(h.text)) {
		return -1, false, false
	}
	off := int32(o)
	k, n := h.next, len(h.ids)
	for k < n && h.starts[k+1] <= off {
		k++
	}
	h.next = k
	if k == n || h.ids[k] < 0 {
		return -1, false, false
	}
	atStart = h.starts[k] == off
	return k, atStart, atStart && h.starts[k+1] == off+int32(len(piece))
}

// Piece states, 2 bits per id in pieceStates: whether encoding the bytes
// the id decodes to gives exactly that id.
const (
	pieceUnknown uint32 = iota
	pieceSingle
	pieceOther
)

// state returns id's piece state.
func (h *decodeHints) state(id int32) uint32 {
	return h.states[id/16].Load() >> (2 * (id % 16)) & 3
}

// record sets id's piece state from the ids its bytes encoded to. Every
// goroutine that records id records the same state, so an Or suffices.
func (h *decodeHints) record(id int32, enc []int) {
	s := pieceOther
	if len(enc) == 1 && enc[0] == int(id) {
		s = pieceSingle
	}
	h.setState(id, s)
}

// setState sets id's piece state, which must be unknown or s.
func (h *decodeHints) setState(id int32, s uint32) {
	h.states[id/16].Or(s << (2 * (id % 16)))
}

// spanEnd returns j when the n bytes from where ids[k]'s start are
// exactly the bytes of ids[k] to ids[j], all in the text as they are;
// else -1.
func (h *decodeHints) spanEnd(k, n int) int {
	end := h.starts[k] + int32(n)
	for j := k; j < len(h.ids); j++ {
		if h.ids[j] < 0 || h.starts[j+1] > end {
			return -1
		}
		if h.starts[j+1] == end {
			return j
		}
	}
	return -1
}

// joined reports whether the bytes of ids[k] to ids[j] encode to those
// ids (bpeconcat.go): each id encodes to itself and each pair of
// neighbours stays apart.
func (h *decodeHints) joined(k, j int) bool {
	for q := k; q <= j; q++ {
		if !h.selfEncodes(h.ids[q]) {
			return false
		}
	}
	for q := k; q < j; q++ {
		if !h.concat.keepsApart(h.joins, h.ids[q], h.ids[q+1], false) {
			return false
		}
	}
	return true
}

// selfEncodes reports whether id's bytes encode to id alone, as its piece
// state says or, when that is unknown, as its split tells (and the state
// then records): a byte's token does; a token some merge of a and b makes
// does when a and b do and keep apart until they are whole.
func (h *decodeHints) selfEncodes(id int32) bool {
	switch h.state(id) {
	case pieceSingle:
		return true
	case pieceOther:
		return false
	}
	s := h.joins.split(id)
	yes := s != 0
	if yes && splitRank(s) >= 0 {
		a, b := splitLeft(s), splitRight(s)
		yes = h.selfEncodes(a) && h.selfEncodes(b) && h.concat.keepsApart(h.joins, a, b, true)
	}
	st := pieceOther
	if yes {
		st = pieceSingle
	}
	h.setState(id, st)
	return yes
}

// roundTripTables are a tokenizer's piece states (2 bits per id) and
// anchored words (two per id: the word that starts where the id's bytes
// start, and one that starts inside them), allocated on first use (a
// loaded tokenizer that never takes a round trip holds neither).
type roundTripTables struct {
	once    sync.Once
	states  []atomic.Uint32
	anchors []atomic.Pointer[cachedWord]
}

// get returns the tables for ids below n.
func (r *roundTripTables) get(n int) ([]atomic.Uint32, []atomic.Pointer[cachedWord]) {
	r.once.Do(func() {
		r.states = make([]atomic.Uint32, (n+15)/16)
		r.anchors = make([]atomic.Pointer[cachedWord], 2*n)
	})
	return r.states, r.anchors
}

// tokenizeHinted appends the ids of pre-token p to out. When p is one
// id's bytes, as h knows, that id's piece state may give them; else, when
// p starts in the bytes of a known id, p may be the word cached at that
// id (its anchor); else the model tokenizes p.
func (t *hfTokenizer) tokenizeHinted(p string, out []int, h *decodeHints) []int {
	h.pieces++
	k, atStart, exact := h.at(p)
	if k < 0 {
		return t.model.tokenize(p, out)
	}
	if !exact && atStart && h.joins != nil {
		if j := h.spanEnd(k, len(p)); j > k && h.joined(k, j) {
			for q := k; q <= j; q++ {
				out = append(out, int(h.ids[q]))
			}
			return out
		}
	}
	id := h.ids[k]
	st := pieceOther
	if exact {
		h.found++
		if st = h.state(id); st != pieceUnknown {
			h.known++
		}
		if st == pieceSingle || st == pieceUnknown && h.joins != nil && h.selfEncodes(id) {
			return append(out, int(id))
		}
	}
	if h.cached == nil {
		n := len(out)
		out = t.model.tokenize(p, out)
		if st == pieceUnknown {
			h.record(id, out[n:])
		}
		return out
	}
	anchor := &h.anchors[2*int(id)]
	if !atStart {
		anchor = &h.anchors[2*int(id)+1]
	}
	if e := anchor.Load(); e != nil && e.data[:e.wordLen] == p {
		h.anchored++
		return e.appendIDs(out)
	}
	n := len(out)
	out, e := h.cached.tokenizeCached(p, out)
	if st == pieceUnknown {
		h.record(id, out[n:])
	}
	if e != nil {
		anchor.Store(e)
	}
	return out
}

// cachingModel is a word model with a word cache whose entries the
// anchors of roundTrip may share (the byte-level BPE model), so that an
// anchor costs no allocation of its own.
type cachingModel interface {
	tokenizeCached(word string, out []int) ([]int, *cachedWord)
}
