package numpyrand

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShuffleMatchesNumPy: values printed by NumPy 1.24 for
// default_rng(s).permutation(n), rng.shuffle(list) followed by a draw that
// reads the buffered 32-bit half, and integers(0, 1000, size=5) followed by
// a permutation.
func TestShuffleMatchesNumPy(t *testing.T) {
	t.Parallel()
	perm := func(g *Generator, n int) []int {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		g.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		return p
	}
	if diff := cmp.Diff([]int{9, 18, 3, 7, 1, 16, 19, 13, 11, 2, 4, 17, 10, 12, 6, 15, 0, 5, 14, 8}, perm(NewGenerator(5), 20)); diff != "" {
		t.Errorf("permutation(20), seed 5 (-numpy +go):\n%s", diff)
	}
	g := NewGenerator(7)
	if diff := cmp.Diff([]int{6, 8, 0, 7, 4, 1, 10, 3, 12, 2, 5, 9, 11}, perm(g, 13)); diff != "" {
		t.Errorf("shuffle of 13, seed 7 (-numpy +go):\n%s", diff)
	}
	if got := g.Integers(0, 1000); got != 499 {
		t.Errorf("integers after the shuffle = %d, want 499", got)
	}
	g = NewGenerator(0)
	if got := g.IntegersN(0, 1000, 5); !slices.Equal(got, []int64{850, 636, 511, 269, 307}) {
		t.Errorf("integers(0, 1000, size=5) = %v", got)
	}
	if diff := cmp.Diff([]int{4, 5, 2, 0, 3, 1}, perm(g, 6)); diff != "" {
		t.Errorf("permutation(6) after integers (-numpy +go):\n%s", diff)
	}
}
