package tokenizer

// bpeModel is HF's BPE model (tokenizers/src/models/bpe). For byte-level
// vocabularies it works on raw bytes: a byte-level token string stands for
// exactly one byte per rune, so "the runes of the pre-token" and "the bytes of
// the raw text" are the same sequence and no per-call conversion is needed.
// For SentencePiece-style vocabularies (chars set) the start symbols are the
// characters of the text instead (charbpe.go); the merging is shared.
//
// It applies the real merge ranks with HF's algorithm (a priority queue on
// (rank, position) with its stale-entry check), so its output equals HF's for
// any merge list, not only for lists where merge order follows token ids.
type bpeModel struct {
	vocabSize int // len(model.vocab): HF's vocab_size

	// merges maps the pair (left id, right id) to the merge's rank and the
	// id of the merged token, packed as rank<<32 | id.
	merges *pairTable

	// initial[v][b] is what byte b starts as, for the variant v of its
	// position in the word (see variant).
	initial [4][256]initialSymbol

	ignoreMerges bool
	words        map[string]int32 // raw bytes of each byte-level token, for ignore_merges
	unkID        int32            // -1 when there is no unk token
	fuseUnk      bool

	// chars is set for SentencePiece-style BPE (Llama-2, Mistral, Gemma):
	// pre-tokens are text, split into characters, not bytes.
	chars *charSymbols

	// singles is set for byte-level vocabularies (not with ignore_merges,
	// which looks words up itself).
	singles *singleTokens

	// scan says mergeScan may replace mergeWord (scanOK) if uniqueIDs
	// says no two tokens share an id (see scans).
	scan      bool
	uniqueIDs *background[bool]

	// bytePairs is set where scan is (see bytePairTable).
	bytePairs *background[*bytePairTable]

	// cuts is set where scan is: long words are cut where no token
	// crosses (bpecut.go) if scans says mergeScan may be used.
	cuts *background[*cutFilter]

	// concat is set where a word made of whole tokens may be checked
	// without merging it (bpeconcat.go).
	concat *concatTables

	cache *wordCache
}

// initialSymbol is the start of BPE for one byte: normally the id of its
// byte-level character; with byte_fallback and no such token, the <0xXX>
// tokens of that character's UTF-8 bytes. No ids means "not in the
// vocabulary", which becomes unk or, without unk, is dropped as HF does.
type initialSymbol struct {
	ids      []int32
	fallback bool
}

// variant is the index into bpeModel.initial: whether the byte is the first
// of its word (no continuing_subword_prefix) and whether it is the last (gets
// end_of_word_suffix).
func variant(first, last bool) int {
	v := 0
	if !first {
		v |= 1
	}
	if last {
		v |= 2
	}
	return v
}

// pairKey packs a pair of token ids into a merges key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// tokenize appends the ids of one pre-token (raw bytes, never empty) to out.
func (m *bpeModel) tokenize(word string, out []int) []int {
	out, _ = m.tokenizeCached(word, out)
	return out
}

// tokenizeCached is tokenize that also returns the word cache's entry of
// word when word went through the cache whole (nil when it did not: a token
// by itself, a single byte, a word that is cut or too long).
func (m *bpeModel) tokenizeCached(word string, out []int) ([]int, *cachedWord) {
	if len(word) >= cutMinWord && m.cuts != nil && m.scans() {
		if f, ok := m.cuts.ready(); ok {
			for start := 0; start < len(word); {
				end := f.nextCut(word, start)
				out, _ = m.tokenizeWord(word[start:end], out)
				start = end
			}
			return out, nil
		}
	}
	return m.tokenizeWord(word, out)
}

// tokenizeWord is tokenize without cutting the word; it also returns the
// word cache's entry of word, if word went through the cache.
func (m *bpeModel) tokenizeWord(word string, out []int) ([]int, *cachedWord) {
	if m.ignoreMerges {
		if id, ok := m.words[word]; ok {
			return append(out, int(id)), nil
		}
	}
	// A single byte has nothing to merge: looking it up in the cache would
	// cost more than mergeWord.
	useCache := len(word) > 1 && len(word) <= longWordMaxLen
	var single int32 = -1
	var singleSlot int
	var h uint64
	if useCache {
		h = m.cache.hash(word)
	}
	if useCache && m.singles != nil {
		id, state, slot, ok := m.singles.lookup(word, h)
		switch {
		case ok && state == singleYes:
			return append(out, int(id)), nil
		case ok && state == singleUnknown:
			single, singleSlot = id, slot
		}
	}
	if useCache {
		if e := m.cache.get(word, h); e != nil {
			return e.appendIDs(out), e
		}
		if out, ok := m.prefixOfCached(word, out); ok {
			return out, nil
		}
	}
	var buf [64]int32
	var ids []int32
	switch {
	case m.chars != nil:
		ids = m.mergeChars(word, buf[:0])
	case len(word) <= scanMaxLen && m.scans():
		ids = m.mergeScan(word, buf[:0])
	default:
		ids = m.mergeWord(word, buf[:0])
	}
	if single >= 0 {
		m.singles.record(singleSlot, single, ids)
	}
	var e *cachedWord
	if useCache {
		e = m.cache.put(word, h, ids)
	}
	for _, id := range ids {
		out = append(out, int(id))
	}
	return out, e
}

// prefixOfCached appends the ids of word to out when word is a prefix of
// a cached long word that ends where one of that word's tokens ends: they
// are that word's ids up to that token. vLLM's random dataset cuts each
// prompt after a token and encodes it again, and text without spaces
// (Chinese) makes a word of the whole tail, which would otherwise be
// merged again from its bytes.
//
// It gives the merge loop's result because no symbol of the longer word
// ever crossed the end of that token (symbols only grow, and the token is
// one of the last ones), so the merges left of it never met the ones
// right of it: the queue took the left ones in the order the word alone
// takes them, as their pairs, ranks and positions are the same
// (TestPrefixOfMergedWord). This needs what mergeScan needs (scans), and
// the tokens' lengths (the single-token table).
func (m *bpeModel) prefixOfCached(word string, out []int) ([]int, bool) {
	if len(word) < longPrefixLen || m.singles == nil || !m.scans() {
		return out, false
	}
	ids, ok := m.cache.longerWord(word)
	if !ok {
		return out, false
	}
	words, ok := m.singles.words.ready()
	if !ok {
		return out, false
	}
	lens := words.lens
	n, end := 0, 0
	for ; end+4 <= len(ids) && n < len(word); end += 4 {
		id := cachedID(ids[end:])
		if int(id) >= len(lens) || lens[id] == 0 {
			return out, false
		}
		n += int(lens[id])
	}
	if n != len(word) {
		return out, false
	}
	for k := 0; k < end; k += 4 {
		out = append(out, int(cachedID(ids[k:])))
	}
	return out, true
}

// symbol is one element of the doubly linked list of a word being merged,
// as in HF's word.rs; size 0 marks a symbol merged into its left neighbour.
type symbol struct {
	id         int32
	prev, next int32
	size       int32
}

// addSymbol appends a symbol to the linked list of a word (HF's Word::add).
func addSymbol(syms []symbol, id, size int32) []symbol {
	n := int32(len(syms))
	if n > 0 {
		syms[n-1].next = n
	}
	return append(syms, symbol{id: id, prev: n - 1, next: -1, size: size})
}

// mergeItem is a candidate merge in the queue. key orders the queue like
// HF's Merge: lowest rank first, then leftmost (rank<<32 | position, so
// that one comparison does).
type mergeItem struct {
	key   uint64
	newID int32
	span  int32 // the pair's size when queued (see mergeSymbols)
}

// newMergeItem is the candidate merge at pos of rank and merged id packed
// in v (a pair table value), whose pair has size span.
func newMergeItem(v uint64, pos, span int32) mergeItem {
	return mergeItem{key: v>>32<<32 | uint64(uint32(pos)), newID: int32(uint32(v)), span: span}
}

func (a mergeItem) pos() int32 { return int32(uint32(a.key)) }

// mergeWord is HF's BPE::merge_word followed by Word::merge_all (without
// dropout). It appends the resulting ids to out.
func (m *bpeModel) mergeWord(word string, out []int32) []int32 {
	var symBuf [64]symbol
	syms := symBuf[:0]
	unk, unkSize := int32(-1), int32(0)
	for i := 0; i < len(word); i++ {
		init := &m.initial[variant(i == 0, i == len(word)-1)][word[i]]
		switch {
		case init.fallback:
			// byte_fallback: HF adds the <0xXX> tokens without flushing a
			// pending unk first; keep that order.
			for _, id := range init.ids {
				syms = addSymbol(syms, id, 1)
			}
		case init.ids != nil:
			if unk >= 0 {
				syms = addSymbol(syms, unk, unkSize)
				unk = -1
			}
			syms = addSymbol(syms, init.ids[0], 1)
		case m.unkID >= 0:
			if unk >= 0 && m.fuseUnk {
				unkSize++
				continue
			}
			if unk >= 0 {
				syms = addSymbol(syms, unk, unkSize)
			}
			unk, unkSize = m.unkID, 1
		}
	}
	if unk >= 0 {
		syms = addSymbol(syms, unk, unkSize)
	}
	return m.mergeSymbols(syms, out)
}

// mergeSymbols is HF's Word::merge_all (without dropout) on the linked list
// of a word's start symbols; it appends the resulting ids to out.
func (m *bpeModel) mergeSymbols(syms []symbol, out []int32) []int32 {
	var heapBuf [64]mergeItem
	h := mergeHeap(heapBuf[:0])
	for i := 0; i+1 < len(syms); i++ {
		if v, ok := m.merges.get(pairKey(syms[i].id, syms[i+1].id)); ok {
			h = append(h, newMergeItem(v, int32(i), syms[i].size+syms[i+1].size))
		}
	}
	h.init()
	scans := m.scans()
	for len(h) > 0 {
		top := h.pop()
		pos := top.pos()
		cur := &syms[pos]
		if cur.size == 0 || cur.next == -1 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		// Skip stale entries: HF compares only the merged id. Where
		// mergeScan applies, that is the same as the pair being the one
		// queued (see mergeScan), and so its size unchanged: both symbols
		// only grow, the left one rightwards from where it starts.
		if scans {
			if cur.size+right.size != top.span {
				continue
			}
		} else if v, ok := m.merges.get(pairKey(cur.id, right.id)); !ok || int32(uint32(v)) != top.newID {
			continue
		}
		cur.id = top.newID
		cur.size += right.size
		cur.next = right.next
		syms[nextPos].size = 0
		if right.next >= 0 {
			syms[right.next].prev = pos
		}
		if cur.prev >= 0 {
			prev := &syms[cur.prev]
			if v, ok := m.merges.get(pairKey(prev.id, cur.id)); ok {
				h.push(newMergeItem(v, cur.prev, prev.size+cur.size))
			}
		}
		if cur.next >= 0 {
			next := &syms[cur.next]
			if v, ok := m.merges.get(pairKey(cur.id, next.id)); ok {
				h.push(newMergeItem(v, pos, cur.size+next.size))
			}
		}
	}
	for _, s := range syms {
		if s.size != 0 {
			out = append(out, s.id)
		}
	}
	return out
}

// mergeHeap is a 4-ary min-heap of merge candidates by key. It is
// written out rather than using container/heap because the interface
// calls cost more than the merges themselves on short words; four
// children per node halve the levels a pop goes down on long words
// (text without spaces makes words of thousands of bytes).
type mergeHeap []mergeItem

// init orders a heap built by appending.
func (h mergeHeap) init() {
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(x mergeItem) {
	s := append(*h, x)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if s[i].key >= s[p].key {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	*h = s
}

func (h *mergeHeap) pop() mergeItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.down(0)
	return top
}

// down moves the item at i down to its place.
func (h mergeHeap) down(i int) {
	n := len(h)
	for {
		c := 4*i + 1
		if c >= n {
			return
		}
		best := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].key < h[best].key {
				best = k
			}
		}
		if h[best].key >= h[i].key {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}
