package tokenizer

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Word cache sizes: how many words it holds at most, of up to 255 bytes
// (HF's cache takes words shorter than 256 bytes) and of 256 bytes up to
// longWordMaxLen (text without spaces, such as Chinese, makes such
// words). Both are powers of two. The long words' table is small so that
// it holds a few megabytes at most.
const (
	wordCacheSlots = 1 << 15
	longWordSlots  = 1 << 6
	longWordMaxLen = 1 << 14
)

// wordCache remembers the ids of recently merged words. It is
// direct-mapped: a word has one slot, chosen by its hash, and a new word
// replaces the one in its slot. So it keeps the words seen last rather
// than, like HF's, the first 10,000 seen: vLLM's random dataset re-encodes
// each prompt after cutting or padding it, and nearly every word of the
// second encoding was merged moments before, while text decoded from
// random ids repeats few words otherwise. Slots hold immutable entries
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
}

// cachedWord is one word and its ids.
type cachedWord struct {
	word string
	ids  []int32
}

func newWordCache() *wordCache {
	return &wordCache{seed: maphash.MakeSeed(), slots: sync.OnceValue(func() *cacheTables { return new(cacheTables) })}
}

// slot is word's slot; word is 2 to longWordMaxLen bytes long.
func (c *wordCache) slot(word string) *atomic.Pointer[cachedWord] {
	h := maphash.String(c.seed, word)
	if len(word) < 256 {
		return &c.slots().short[h&(wordCacheSlots-1)]
	}
	return &c.slots().long[h&(longWordSlots-1)]
}

// get returns the ids of word, if cached.
func (c *wordCache) get(word string) ([]int32, bool) {
	if e := c.slot(word).Load(); e != nil && e.word == word {
		return e.ids, true
	}
	return nil, false
}

// put caches word's ids, copying both (word points into the caller's
// text, which the cache must not keep alive).
func (c *wordCache) put(word string, ids []int32) {
	c.slot(word).Store(&cachedWord{word: strings.Clone(word), ids: slices.Clone(ids)})
}
