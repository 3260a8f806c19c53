package tokenizer

import (
	"sync"
	"sync/atomic"
)

// singleTokens is a cache for the words that are a token of a byte-level
// vocabulary by themselves. Text decoded from token ids (vLLM's random
// dataset) is made of such words more than half of the time, and of so
// many different ones that the word cache, bounded like HF's, misses
// them; yet merging a word of ten bytes costs about ten lookups in the
// pair table. Here the word finds its token id in a map from the tokens'
// raw bytes, and a state per token id records whether merging that word
// gives that one token: the state is computed by the merge loop the first
// time, so the cache never changes a result.
type singleTokens struct {
	// words maps the raw bytes of every token to its id, and knows the
	// longest. It is built on its own goroutine when the model is loaded
	// and waited for on first use, so that loading does not wait for it.
	words func() rawTokens
	// merges[id] is singleUnknown, singleYes (merging the token's bytes
	// gives exactly [id]) or singleNo.
	merges []atomic.Uint32
}

// rawTokens maps the raw bytes of every token to its id; maxLen is the
// longest token's length in bytes: a longer word is no token, and looking
// it up would only hash it.
type rawTokens struct {
	ids    map[string]int32
	maxLen int
}

const (
	singleUnknown uint32 = iota
	singleYes
	singleNo
)

// newSingleTokens starts building the map from vocab, which it does not
// modify and the caller must not modify either; maxID is vocab's largest
// id.
func newSingleTokens(vocab map[string]int, maxID int) *singleTokens {
	ch := make(chan rawTokens, 1)
	go func() {
		bl := newByteLevel()
		words := rawTokens{ids: make(map[string]int32, len(vocab))}
		for tok, id := range vocab {
			if raw, ok := bl.rawBytes(tok); ok {
				words.ids[string(raw)] = int32(id)
				words.maxLen = max(words.maxLen, len(raw))
			}
		}
		ch <- words
	}()
	return &singleTokens{words: sync.OnceValue(func() rawTokens { return <-ch }), merges: make([]atomic.Uint32, maxID+1)}
}

// lookup returns the id of the token whose raw bytes are word and whether
// merging word is known to give it alone; ok is false when word is no
// token.
func (s *singleTokens) lookup(word string) (id int32, state uint32, ok bool) {
	words := s.words()
	if len(word) > words.maxLen {
		return 0, 0, false
	}
	id, ok = words.ids[word]
	if !ok {
		return 0, 0, false
	}
	return id, s.merges[id].Load(), true
}

// record stores what merging the word of token id gave.
func (s *singleTokens) record(id int32, ids []int32) {
	state := singleNo
	if len(ids) == 1 && ids[0] == id {
		state = singleYes
	}
	s.merges[id].Store(state)
}
