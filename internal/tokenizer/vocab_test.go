package tokenizer

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// vocabularyOf builds a vocabulary from a map, in the map's (random)
// order.
func vocabularyOf(m map[string]int) *vocabulary {
	toks := make([]string, 0, len(m))
	ids := make([]int, 0, len(m))
	for tok, id := range m {
		toks, ids = append(toks, tok), append(ids, id)
	}
	return vocabInOrder(toks, ids)
}

// vocabInOrder builds a vocabulary whose file order is toks (with ids).
func vocabInOrder(toks []string, ids []int) *vocabulary {
	var text []byte
	ends := make([]uint32, 0, len(toks))
	ids32 := make([]int32, 0, len(ids))
	for i, tok := range toks {
		text = append(text, tok...)
		ends = append(ends, uint32(len(text)))
		ids32 = append(ids32, int32(ids[i]))
	}
	return newVocabulary(string(text), ends, ids32)
}

// vocabMap is v as a map.
func vocabMap(v *vocabulary) map[string]int {
	m := map[string]int{}
	for tok, id := range v.all() {
		if _, dup := m[tok]; dup {
			panic(fmt.Sprintf("vocabulary.all yields %q twice", tok))
		}
		m[tok] = id
	}
	return m
}

// TestVocabulary: the table answers as a map[string]int filled in file
// order would (the last duplicate wins, len counts tokens once), lists
// its tokens in file order, and guesses a token by id only where that is
// safe.
func TestVocabulary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		toks []string
		ids  []int
	}{
		{"empty", nil, nil},
		{"one", []string{"a"}, []int{0}},
		{"empty token", []string{"", "a"}, []int{0, 1}},
		{"duplicate", []string{"a", "b", "a"}, []int{0, 1, 7}},
		{"shared id", []string{"a", "b"}, []int{3, 3}},
		{"prefixes", []string{"a", "ab", "abc", "b", "bc"}, []int{0, 1, 2, 3, 4}},
	}
	// Enough tokens to fill many probe chains, with a duplicate every 97.
	var many []string
	var manyIDs []int
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		tok := fmt.Sprintf("t%x", rng.Uint32()%4096)
		if i%97 == 0 && i > 0 {
			tok = many[i/2]
		}
		many, manyIDs = append(many, tok), append(manyIDs, i)
	}
	tests = append(tests, struct {
		name string
		toks []string
		ids  []int
	}{"many", many, manyIDs})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVocabulary(t, tt.toks, tt.ids) })
	}
}

// checkVocabulary checks the vocabulary built of toks and ids (the last
// entry of a token wins) against a map built the plain way.
func checkVocabulary(t *testing.T, toks []string, ids []int) {
	t.Helper()
	v := vocabInOrder(toks, ids)
	want := map[string]int{}
	var order []string // first occurrences... of the last entry of each token
	last := map[string]int{}
	for i, tok := range toks {
		want[tok] = ids[i]
		last[tok] = i
	}
	for i, tok := range toks {
		if last[tok] == i {
			order = append(order, tok)
		}
	}
	if got := vocabMap(v); !maps.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if v.len() != len(want) {
		t.Errorf("len %d, want %d", v.len(), len(want))
	}
	var gotOrder []string
	for tok := range v.all() {
		gotOrder = append(gotOrder, tok)
	}
	if !slices.Equal(gotOrder, order) {
		t.Errorf("order %q, want %q", gotOrder, order)
	}
	for tok, id := range want {
		if got, ok := v.get(tok); !ok || got != id {
			t.Errorf("get(%q) = %d, %v; want %d", tok, got, ok, id)
		}
	}
	for _, absent := range []string{"zz", "a\x00", "abcd", "t"} {
		if _, in := want[absent]; in {
			continue
		}
		if id, ok := v.get(absent); ok {
			t.Errorf("get(%q) = %d, want absent", absent, id)
		}
	}
	dups := len(want) != len(toks)
	for id := range len(toks) + 1 {
		tok, ok := v.atID(id)
		wantOK := !dups && id < len(toks) && ids[id] == id
		if ok != wantOK || (ok && tok != toks[id]) {
			t.Errorf("atID(%d) = %q, %v; want %v", id, tok, ok, wantOK)
		}
	}
}

// TestVocabularyLoadFactor: the index stays at most 70 % full, so that
// probe chains stay short.
func TestVocabularyLoadFactor(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 11, 12, 1000, 151643} {
		toks, ids := make([]string, n), make([]int, n)
		for i := range n {
			toks[i], ids[i] = fmt.Sprint(i), i
		}
		v := vocabInOrder(toks, ids)
		if size := len(v.slots); size&(size-1) != 0 || n*10 > size*7 || (size > 16 && n*10 <= size/2*7) {
			t.Errorf("%d tokens: %d slots, want the least power of two at most 70 %% full", n, size)
		}
	}
}
