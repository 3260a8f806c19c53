package tokenizer

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// Word cache sizes: how many words it holds at most, of up to 255 bytes
// (HF's cache takes words shorter than 256 bytes) and of 256 bytes up to
// longWordMaxLen (text without spaces, such as Chinese, makes such
// words). Both are powers of two. Full, the cache holds about 7 MB (on
// Qwen3, 1 MB of slots and about 50 bytes per short word; the long words'
// table is small so that it adds a few megabytes at most); the vocabulary
// windows of vLLM's random dataset repeat enough words that 2^17 slots
// merge a fifth fewer bytes than 2^15.
const (
	wordCacheSlots = 1 << 17
	longWordSlots  = 1 << 7
	longWordMaxLen = 1 << 14
)

// wordCache remembers the ids of recently merged words. It is
// direct-mapped: a word has one slot, chosen by its hash, and a new word
// replaces the one in its slot. So it keeps the words seen last rather
// than, like HF's, the first 10,000 seen: vLLM's random dataset re-encodes
// each prompt after cutting or padding it, and nearly every word of the
// second encoding was merged moments before; and its prompts are windows
// of consecutive ids at random offsets, which overlap, so that words
// recur from prompt to prompt however large the vocabulary. Slots hold immutable entries
// swapped atomically, so lookups take no lock; a result is only ever the
// merge loop's own, so the cache never changes one.
type wordCache struct {
	seed maphash.Seed
	// slots returns the tables of short and long words, allocated on
	// first use (so that a loaded tokenizer holds none).
	slots func() *cacheTables
}

type cacheTables struct {
	short [wordCacheSlots]atomic.Pointer[cachedWord]
	long  [longWordSlots]atomic.Pointer[cachedWord]
	// byPrefix holds the long words again, by their first longPrefixLen
	// bytes (see longerWord).
	byPrefix [longWordSlots]atomic.Pointer[cachedWord]
}

// longPrefixLen is how many leading bytes index a long word in byPrefix:
// every long word has that many.
const longPrefixLen = 256

// cachedWord is one word and its ids in one string: the word's bytes, then
// each id in four bytes (little-endian). One allocation for both keeps a
// full cache to a few megabytes.
type cachedWord struct {
	data    string
	wordLen int
}

// newCachedWord copies word and its ids into one entry.
func newCachedWord(word string, ids []int32) *cachedWord {
	var b strings.Builder
	b.Grow(len(word) + 4*len(ids))
	b.WriteString(word)
	var id [4]byte
	for _, v := range ids {
		binary.LittleEndian.PutUint32(id[:], uint32(v))
		b.Write(id[:])
	}
	return &cachedWord{data: b.String(), wordLen: len(word)}
}

// appendIDs appends e's ids to out.
func (e *cachedWord) appendIDs(out []int) []int {
	for ids := e.data[e.wordLen:]; len(ids) >= 4; ids = ids[4:] {
		out = append(out, int(cachedID(ids)))
	}
	return out
}

func newWordCache(seed maphash.Seed) *wordCache {
	return &wordCache{seed: seed, slots: sync.OnceValue(func() *cacheTables { return new(cacheTables) })}
}

// hash is word's hash, which picks its slot. The single-token table
// (singleTokens) hashes words with the same seed, so that a word looked up
// in both is hashed once.
func (c *wordCache) hash(word string) uint64 { return maphash.String(c.seed, word) }

// slot is the slot of word, of hash h; word is 2 to longWordMaxLen bytes
// long.
func (c *wordCache) slot(word string, h uint64) *atomic.Pointer[cachedWord] {
	if len(word) < 256 {
		return &c.slots().short[h&(wordCacheSlots-1)]
	}
	return &c.slots().long[h&(longWordSlots-1)]
}

// get returns the entry of word, of hash h, if word is cached.
func (c *wordCache) get(word string, h uint64) *cachedWord {
	e := c.slot(word, h).Load()
	if e == nil || e.data[:e.wordLen] != word {
		return nil
	}
	return e
}

// cachedID is the first id of ids as cachedWord keeps them.
func cachedID(ids string) int32 {
	return int32(uint32(ids[0]) | uint32(ids[1])<<8 | uint32(ids[2])<<16 | uint32(ids[3])<<24)
}

// longerWord returns the ids (four bytes each, as cachedWord keeps them)
// of a cached long word of which word is a prefix, if there is one; word
// is at least longPrefixLen bytes long.
func (c *wordCache) longerWord(word string) (ids string, ok bool) {
	e := c.slots().byPrefix[maphash.String(c.seed, word[:longPrefixLen])&(longWordSlots-1)].Load()
	if e == nil || e.wordLen < len(word) || e.data[:len(word)] != word {
		return "", false
	}
	return e.data[e.wordLen:], true
}

// put caches the ids of word, of hash h, copying both (word points into
// the caller's text, which the cache must not keep alive), and returns
// the entry.
func (c *wordCache) put(word string, h uint64, ids []int32) *cachedWord {
	e := newCachedWord(word, ids)
	c.slot(word, h).Store(e)
	if len(word) >= longPrefixLen {
		c.slots().byPrefix[maphash.String(c.seed, word[:longPrefixLen])&(longWordSlots-1)].Store(e)
	}
	return e
}
