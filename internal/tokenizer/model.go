package tokenizer

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
)

// newBPEModel builds the BPE model from model.vocab and model.merges the
// way HF's BpeBuilder::build does: every merge's two parts and their
// concatenation must be in the vocabulary, and the merge's rank is its index
// (a later duplicate pair overrides an earlier one, as in HF's map).
// charLevel selects SentencePiece-style BPE, whose pre-tokens are text
// rather than the bytes of a byte-level vocabulary.
func newBPEModel(m *modelJSON, vocab *vocabulary, merges [][2]string, charLevel bool) (*bpeModel, error) {
	model := &bpeModel{
		vocabSize:    vocab.len(),
		merges:       newPairTable(len(merges)),
		ignoreMerges: m.IgnoreMerges,
		unkID:        -1,
		fuseUnk:      m.FuseUnk,
		cache:        newWordCache(maphash.MakeSeed()),
	}
	if len(merges) > math.MaxInt32 {
		return nil, fieldError("model.merges", errors.New("too many merges"))
	}
	prefix, suffix := subwordAffixes(m)
	keys, vals, err := mergeValues(vocab, merges, prefix)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		model.merges.set(k, vals[i])
	}
	if m.UnkToken != nil {
		if id, ok := vocab.get(*m.UnkToken); ok {
			model.unkID = int32(id)
		}
	}
	if charLevel {
		model.chars = newCharSymbols(m, vocab)
		if model.ignoreMerges {
			model.words = model.chars.vocab
		}
		return model, nil
	}
	model.initial = initialSymbols(m, vocab, prefix, suffix)
	model.startTables(vocab, prefix, suffix, len(merges))
	return model, nil
}

// subwordAffixes are the model's continuing-subword prefix and
// end-of-word suffix, "" when it has none.
func subwordAffixes(m *modelJSON) (prefix, suffix string) {
	if m.ContinuingSubwordPrefix != nil {
		prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		suffix = *m.EndOfWordSuffix
	}
	return prefix, suffix
}

// initialSymbols are a byte-level model's start symbols: each byte's
// byte-level character, with the continuing-subword prefix unless first
// and the end-of-word suffix if last; byte_fallback tokens when that is
// not in the vocabulary.
func initialSymbols(m *modelJSON, vocab *vocabulary, prefix, suffix string) (initial [4][256]initialSymbol) {
	bl := newByteLevel()
	for v := 0; v < 4; v++ {
		first, last := v&1 == 0, v&2 != 0
		for b := 0; b < 256; b++ {
			s := string(bl.toRune[b])
			if !first {
				s = prefix + s
			}
			if last {
				s += suffix
			}
			if id, ok := vocab.get(s); ok {
				initial[v][b] = initialSymbol{ids: []int32{int32(id)}}
			} else if ids := byteFallback(m, vocab, s); ids != nil {
				initial[v][b] = initialSymbol{ids: ids, fallback: true}
			}
		}
	}
	return initial
}

// byteFallback is s as byte_fallback tokens (<0xNN>), nil when the model
// has none or the vocabulary lacks one of them.
func byteFallback(m *modelJSON, vocab *vocabulary, s string) []int32 {
	if !m.ByteFallback {
		return nil
	}
	ids := make([]int32, 0, len(s))
	for k := 0; k < len(s); k++ {
		id, ok := vocab.get(fmt.Sprintf("<0x%02X>", s[k]))
		if !ok {
			return nil
		}
		ids = append(ids, int32(id))
	}
	return ids
}

// startTables starts the byte-level model's shortcut tables, each on a
// goroutine of its own (background), and builds the rest.
func (m *bpeModel) startTables(vocab *vocabulary, prefix, suffix string, merges int) {
	if !m.ignoreMerges {
		m.singles = newSingleTokens(vocab, m.cache.seed)
	}
	m.scan = scanOK(m, prefix, suffix, merges)
	if m.scan {
		m.bytePairs = newBytePairsInBackground(m)
		if m.singles != nil {
			m.cuts = newCutFilterInBackground(m.singles)
		}
	}
	m.uniqueIDs = buildInBackground(func() bool { return uniqueIDs(vocab) })
	m.concat = newConcatTables(m)
	if m.ignoreMerges {
		m.words = rawWords(vocab)
	}
}

// rawWords maps the raw bytes of vocab's byte-level tokens to their ids.
func rawWords(vocab *vocabulary) map[string]int32 {
	bl := newByteLevel()
	words := make(map[string]int32, vocab.len())
	for tok, id := range vocab.all() {
		if raw, ok := bl.rawBytes(tok); ok {
			words[string(raw)] = int32(id)
		}
	}
	return words
}

// uniqueIDs reports whether no two tokens of vocab share an id.
func uniqueIDs(vocab *vocabulary) bool {
	maxID := vocab.maxID()
	if maxID >= 1<<26 {
		return false // not worth a bitmap; mergeScan is only faster
	}
	seen := make([]bool, maxID+1)
	for _, id := range vocab.all() {
		if id < 0 || seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}

// addTokens registers tokenizer.json's added_tokens the way HF's
// AddedVocabulary::add_tokens does when it loads a file. The "id" fields of
// the file are not used: a token that is in the model vocabulary gets that
// id and the others are numbered from the vocabulary size on, which is what
// HF does (it only warns when the file disagrees).
func (t *hfTokenizer) addTokens(list []addedTokenJSON, vocab *vocabulary) (byID map[int]*addedToken, err error) {
	t.added = map[string]*addedToken{}
	byID = map[int]*addedToken{}
	var special, plain []*addedToken
	specialSet := map[string]bool{}
	for _, a := range list {
		if a.Special && a.Content != "" && !specialSet[a.Content] {
			specialSet[a.Content] = true
		}
	}
	nextID := t.vocabSize
	type key struct {
		content                                             string
		singleWord, lstrip, rstrip, normalized, specialFlag bool
	}
	existing := map[key]bool{}
	for i, a := range list {
		if a.Content == "" {
			continue
		}
		tok := &addedToken{
			content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip, rstrip: a.RStrip,
			normalized: !a.Special, special: a.Special,
		}
		if a.Normalized != nil {
			tok.normalized = *a.Normalized
		}
		k := key{tok.content, tok.singleWord, tok.lstrip, tok.rstrip, tok.normalized, tok.special}
		if existing[k] {
			continue
		}
		existing[k] = true
		if prev, ok := t.added[a.Content]; ok {
			tok.id = prev.id
		} else if id, ok := vocab.get(a.Content); ok {
			tok.id = id
		} else {
			tok.id = nextID
			nextID++
		}
		if tok.id > 1<<30 {
			return nil, fieldError(fmt.Sprintf("added_tokens[%d]", i), fmt.Errorf("id %d is too large", tok.id))
		}
		t.added[tok.content] = tok
		byID[tok.id] = tok
		if tok.special {
			special = append(special, tok)
		} else if !specialSet[tok.content] {
			plain = append(plain, tok)
		}
	}
	// Matching order is HF's: special tokens first, then the others, split
	// by whether they are matched before or after normalization.
	var rawPat, normPat []string
	var rawOwn, normOwn []*addedToken
	for _, tok := range append(special, plain...) {
		owner := byID[tok.id]
		if tok.normalized {
			p := tok.content
			if t.normalize != nil {
				p = t.normalize(p)
			}
			normPat, normOwn = append(normPat, p), append(normOwn, owner)
		} else {
			rawPat, rawOwn = append(rawPat, tok.content), append(rawOwn, owner)
		}
	}
	t.rawMatch = newMatcher(rawPat, rawOwn)
	t.normMatch = newMatcher(normPat, normOwn)
	return byID, nil
}

// buildDecodeTable records what every id decodes from: added tokens first
// (HF looks them up before the model), then the model vocabulary. With a
// ByteLevel decoder each id's bytes are precomputed.
func (t *hfTokenizer) buildDecodeTable(vocab *vocabulary, added map[int]*addedToken) {
	size := 0
	for _, id := range vocab.all() {
		size = max(size, id+1)
	}
	for id := range added {
		size = max(size, id+1)
	}
	names := make([]string, size)
	known := make([]bool, size)
	for tok, id := range vocab.all() {
		// Two tokens with one id would make the result depend on map
		// order (in HF too); keep the smaller one so it is deterministic.
		if known[id] && names[id] < tok {
			continue
		}
		names[id], known[id] = tok, true
	}
	for id, tok := range added {
		names[id], known[id] = tok.content, true
	}
	if t.decoder != decodeByteLevel {
		t.tokens, t.known = names, known
		return
	}
	// All the bytes in one array (a token's raw bytes are never longer
	// than its spelling, so it never grows): one allocation instead of
	// one per token.
	total := 0
	for id, ok := range known {
		if ok {
			total += len(names[id])
		}
	}
	bl := newByteLevel()
	arena := make([]byte, 0, total)
	t.decodeOff = make([]uint32, size+1)
	for id, ok := range known {
		if ok {
			var raw bool
			if arena, raw = bl.appendRaw(arena, names[id]); !raw {
				arena = append(arena, names[id]...) // as bl.decode does
			}
		}
		// The tokens' bytes are fewer than tokenizer.json's, so they fit.
		t.decodeOff[id+1] = uint32(len(arena))
	}
	t.decodeBytes = arena
}
