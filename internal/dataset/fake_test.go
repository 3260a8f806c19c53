package dataset

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/numpyrand"
)

// fakeTokenizer is the greedy longest-match tokenizer that
// tools/gen-dataset-vectors/gen_dataset_vectors.py defines identically: ids
// 0 and 1 are special, decode -> encode can merge pieces, so vLLM's
// fix-up loop runs. The golden files were produced by a copy of vLLM's
// dataset code with it.
type fakeTokenizer struct {
	pieces []string
	byLen  []int
}

func newFake() *fakeTokenizer {
	p := []string{"<s>", "</s>"}
	for _, c := range "abcdefghij" {
		p = append(p, string(c))
	}
	p = append(p, " ")
	for _, a := range "abcde" {
		for _, b := range "abcde" {
			p = append(p, string(a)+string(b))
		}
	}
	for _, w := range []string{"the", "cat", "sat", "on", "mat", "a", "b", "ab"} {
		p = append(p, " "+w)
	}
	p = append(p, "abc", "cab", "bca")
	byLen := make([]int, len(p))
	for i := range p {
		byLen[i] = i
	}
	sort.SliceStable(byLen, func(i, j int) bool {
		li, lj := utf8.RuneCountInString(p[byLen[i]]), utf8.RuneCountInString(p[byLen[j]])
		if li != lj {
			return li > lj
		}
		return byLen[i] < byLen[j]
	})
	return &fakeTokenizer{pieces: p, byLen: byLen}
}

func (f *fakeTokenizer) Name() string               { return "fake" }
func (f *fakeTokenizer) VocabSize() int             { return len(f.pieces) }
func (f *fakeTokenizer) AllSpecialIDs() []int       { return []int{0, 1} }
func (f *fakeTokenizer) NumSpecialTokensToAdd() int { return 1 }

func (f *fakeTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && id < len(f.pieces) {
			b.WriteString(f.pieces[id])
		} else {
			b.WriteString("?")
		}
	}
	return b.String()
}

func (f *fakeTokenizer) Encode(text string, addSpecial bool) []int {
	var out []int
	if addSpecial {
		out = append(out, 0)
	}
	for i := 0; i < len(text); {
		matched := false
		for _, id := range f.byLen {
			if strings.HasPrefix(text[i:], f.pieces[id]) {
				out = append(out, id)
				i += len(f.pieces[id])
				matched = true
				break
			}
		}
		if !matched {
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
	}
	return out
}

func newGen(seed uint64) *numpyrand.Generator { return numpyrand.NewGenerator(seed) }
