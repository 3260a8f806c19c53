package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// concatFixture is a byte-level tokenizer whose words of whole tokens are
// checked without merging, with what the checks need.
type concatFixture struct {
	tok   *hfTokenizer
	m     *bpeModel
	h     *decodeHints // piece states and the tables, no text
	bytes func(id int32) string
}

func newConcatFixture(t testing.TB, name string) *concatFixture {
	t.Helper()
	tok := namedTokenizer(t, name).(*hfTokenizer)
	m := tok.model.(*bpeModel)
	m.waitTables()
	h := tok.decodeHinted(nil)
	if h == nil || h.joins == nil {
		t.Fatalf("%s: words of whole tokens are not checked", name)
	}
	return &concatFixture{tok: tok, m: m, h: h, bytes: func(id int32) string {
		return string(tok.decodeBytes[tok.decodeOff[id]:tok.decodeOff[id+1]])
	}}
}

// merged is the merge loop's ids of the bytes of ids, one word.
func (f *concatFixture) merged(ids ...int32) []int32 {
	var w string
	for _, id := range ids {
		w += f.bytes(id)
	}
	if len(w) <= scanMaxLen {
		return f.m.mergeScan(w, nil)
	}
	return f.m.mergeWord(w, nil)
}

// TestSelfEncodesEqualsMerge asks, for every token of the model, whether
// its bytes encode to it alone: the answer from its split (a walk) is the
// merge loop's.
func TestSelfEncodesEqualsMerge(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newConcatFixture(t, name)
			yes := 0
			for id := range int32(f.tok.vocabSize) {
				if len(f.bytes(id)) == 0 {
					continue
				}
				got := f.h.selfEncodes(id)
				want := slices.Equal(f.merged(id), []int32{id})
				if got != want {
					t.Fatalf("token %d %q: selfEncodes = %v, the merge loop says %v", id, f.bytes(id), got, want)
				}
				if got {
					yes++
				}
			}
			// Nearly every token of a trained vocabulary encodes to itself.
			if yes < f.tok.vocabSize*9/10 {
				t.Errorf("only %d of %d tokens encode to themselves", yes, f.tok.vocabSize)
			}
		})
	}
}

// TestKeepsApartEqualsMerge compares keepsApart with the merge loop on
// pairs of tokens that encode to themselves: random pairs, neighbouring
// ids (vLLM's random dataset decodes windows of the vocabulary) and
// pairs that do merge (a token's own split).
func TestKeepsApartEqualsMerge(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newConcatFixture(t, name)
			var self []int32
			for id := range int32(f.tok.vocabSize) {
				if len(f.bytes(id)) > 0 && f.h.selfEncodes(id) {
					self = append(self, id)
				}
			}
			r := rand.New(rand.NewPCG(5, 6))
			var pairs [][2]int32
			for range 100_000 {
				pairs = append(pairs, [2]int32{self[r.IntN(len(self))], self[r.IntN(len(self))]})
			}
			for k := 0; k+1 < len(self); k += 3 {
				pairs = append(pairs, [2]int32{self[k], self[k+1]})
			}
			for _, id := range self[:min(len(self), 20_000)] {
				if s := f.h.joins.split(id); splitRank(s) >= 0 {
					pairs = append(pairs, [2]int32{splitLeft(s), splitRight(s)})
				}
			}
			apart := 0
			for _, p := range pairs {
				got := f.m.keepsApart(f.h.joins, p[0], p[1], false)
				want := slices.Equal(f.merged(p[0], p[1]), p[:])
				if got != want {
					t.Fatalf("%d %q + %d %q: keepsApart = %v, the merge loop says %v (%v)",
						p[0], f.bytes(p[0]), p[1], f.bytes(p[1]), got, want, f.merged(p[0], p[1]))
				}
				if got {
					apart++
				}
			}
			// Both answers must be common for the comparison to mean
			// something.
			if apart < len(pairs)/2 || apart == len(pairs) {
				t.Errorf("%d of %d pairs keep apart", apart, len(pairs))
			}
		})
	}
}

// FuzzKeepsApart compares keepsApart with the merge loop for any two
// tokens of the built-in tokenizer that encode to themselves.
func FuzzKeepsApart(f *testing.F) {
	fx := newConcatFixture(f, "builtin")
	f.Add(uint32(300), uint32(301))
	f.Add(uint32(104), uint32(101))
	f.Fuzz(func(t *testing.T, a, b uint32) {
		n := uint32(fx.tok.vocabSize)
		x, y := int32(a%n), int32(b%n)
		if len(fx.bytes(x)) == 0 || len(fx.bytes(y)) == 0 || !fx.h.selfEncodes(x) || !fx.h.selfEncodes(y) {
			return
		}
		got := fx.m.keepsApart(fx.h.joins, x, y, false)
		if want := slices.Equal(fx.merged(x, y), []int32{x, y}); got != want {
			t.Fatalf("%d %q + %d %q: keepsApart = %v, the merge loop says %v", x, fx.bytes(x), y, fx.bytes(y), got, want)
		}
	})
}

// TestBuildSplits builds the splits of hand-made merge lists: a good one,
// one where two merges make the same token, and one where a merge is
// ranked before the merge that makes one of its parts (not monotonic).
// Tokens 0-255 are the bytes.
func TestBuildSplits(t *testing.T) {
	model := func(merges ...[4]int) *bpeModel {
		m := &bpeModel{vocabSize: 300, merges: newPairTable(len(merges))}
		for b := range 256 {
			m.initial[0][b] = initialSymbol{ids: []int32{int32(b)}}
		}
		for _, mg := range merges { // left, right, rank, merged id
			m.merges.set(pairKey(int32(mg[0]), int32(mg[1])), uint64(mg[2])<<32|uint64(mg[3]))
		}
		return m
	}
	a, b, c := int('a'), int('b'), int('c')
	splits, ok := buildSplits(model([4]int{a, b, 0, 256}, [4]int{256, c, 1, 257}))
	if !ok {
		t.Fatal("a good list is refused")
	}
	if s := splits[257]; splitLeft(s) != 256 || splitRight(s) != int32(c) || splitRank(s) != 1 {
		t.Errorf("split of 257 = %d, %d, rank %d; want 256, %d, rank 1", splitLeft(s), splitRight(s), splitRank(s), c)
	}
	if splitRank(splits[a]) != -1 || splits[258] != 0 {
		t.Errorf("a byte's split has rank %d, want -1; an unmade token's is %#x, want 0", splitRank(splits[a]), splits[258])
	}
	if _, ok := buildSplits(model([4]int{a, b, 0, 256}, [4]int{b, a, 1, 256})); ok {
		t.Error("a token made by two merges is accepted")
	}
	if _, ok := buildSplits(model([4]int{256, c, 0, 257}, [4]int{a, b, 1, 256})); ok {
		t.Error("a merge ranked before its part's merge is accepted")
	}
}

// TestEditedHints follows decoded ids through NFC's changes: ids whose
// bytes touch a changed stretch lose their span, the others move with
// it. The text is "ab", "e", U+0301 (combining acute), "cd", "x": NFC
// makes "e" U+0301 (3 bytes) one "é" (2 bytes).
func TestEditedHints(t *testing.T) {
	text := "ab" + "e" + "\u0301" + "cd" + "x"
	h := &decodeHints{text: text, ids: []int32{1, 2, 3, 4, 5}, starts: []int32{0, 2, 3, 5, 7, 8}}
	for _, tc := range []struct {
		name       string
		from, to   int // the part of text normalized
		wantText   string
		wantIDs    []int32
		wantStarts []int32
	}{
		{"whole text", 0, len(text), "abécdx", []int32{1, -1, -1, 4, 5}, []int32{0, 2, 2, 4, 6, 7}},
		// A part that starts and ends inside ids' bytes: those are no
		// id's.
		{"inside ids", 1, 6, "béc", []int32{-1, -1, -1, -1}, []int32{0, 1, 1, 3, 4}},
		{"from an id", 2, 7, "écd", []int32{-1, -1, 4}, []int32{0, 0, 2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edits []textEdit
			s := text[tc.from:tc.to]
			out := nfcMapped(s, &edits)
			if out != tc.wantText {
				t.Fatalf("nfcMapped(%q) = %q, want %q", s, out, tc.wantText)
			}
			e := h.edited(s, out, edits)
			if e == nil {
				t.Fatal("edited = nil for a part of the text")
			}
			if !slices.Equal(e.ids, tc.wantIDs) || !slices.Equal(e.starts, tc.wantStarts) {
				t.Errorf("ids %v starts %v, want %v %v", e.ids, e.starts, tc.wantIDs, tc.wantStarts)
			}
		})
	}
	if e := h.edited("elsewhere", "elsewhere", nil); e != nil {
		t.Error("edited takes text that is not part of the decoded text")
	}
}

// TestPairTableFilter checks that the filter in front of the pair table
// never hides a key and that absent keys are absent.
func TestPairTableFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tab := newPairTable(50_000)
	keys := map[uint64]uint64{}
	for len(keys) < 50_000 {
		k := pairKey(int32(r.IntN(200_000)), int32(r.IntN(200_000)))
		keys[k] = r.Uint64() >> 1
		tab.set(k, keys[k])
	}
	for k, v := range keys {
		if got, ok := tab.get(k); !ok || got != v {
			t.Fatalf("get(%#x) = %d, %v; want %d", k, got, ok, v)
		}
	}
	for range 100_000 {
		k := pairKey(int32(r.IntN(200_000)), int32(r.IntN(200_000)))
		if _, ok := tab.get(k); ok != hasKey(keys, k) {
			t.Fatalf("get(%#x) found = %v", k, ok)
		}
	}
}

func hasKey(m map[uint64]uint64, k uint64) bool { _, ok := m[k]; return ok }
