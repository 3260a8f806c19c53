package sim

import (
	"slices"
	"testing"
)

func TestKVCacheAllocateRelease(t *testing.T) {
	t.Parallel()
	c := newKVCache(4, 16, false)
	if c.numFree != 4 || c.usage() != 0 {
		t.Fatalf("new cache: %d free, usage %v", c.numFree, c.usage())
	}
	a := c.allocate(nil, 3)
	if !slices.Equal(a, []int32{0, 1, 2}) || c.numFree != 1 || c.usage() != 0.75 {
		t.Fatalf("allocate 3: got %v, %d free, usage %v", a, c.numFree, c.usage())
	}
	// Released last block first: the free queue is then 3, 2, 1, 0, so the
	// request's tail blocks are reused first.
	c.release(a)
	got := c.allocate(nil, 4)
	if want := []int32{3, 2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("reallocation order %v, want %v", got, want)
	}
	if c.usage() != 1 {
		t.Errorf("usage %v, want 1", c.usage())
	}
}

func TestKVCachePrefixHits(t *testing.T) {
	t.Parallel()
	c := newKVCache(4, 2, true)
	h1 := blockHash(0, []int{1, 2})
	h2 := blockHash(h1, []int{3, 4})
	ids := c.allocate(nil, 2)
	c.register(ids[0], h1)
	c.register(ids[1], h2)
	tests := []struct {
		name      string
		hashes    []uint64
		maxBlocks int
		want      int
	}{
		// Both blocks cached: a request with the same 4-token prefix hits both.
		{"full prefix", []uint64{h1, h2}, 2, 2},
		// The cap (never the prompt's last token) limits the hit.
		{"capped", []uint64{h1, h2}, 1, 1},
		// A different first block breaks the chain at once.
		{"different start", []uint64{blockHash(0, []int{9, 9}), h2}, 2, 0},
	}
	for _, tt := range tests {
		if got := len(c.lookup(tt.hashes, tt.maxBlocks)); got != tt.want {
			t.Errorf("%s: %d hits, want %d", tt.name, got, tt.want)
		}
	}
	// Freed cached blocks stay findable, count as free, and a hit takes
	// them out of the free queue.
	c.release(ids)
	if c.usage() != 0 {
		t.Fatalf("usage %v after release, want 0", c.usage())
	}
	hits := c.lookup([]uint64{h1, h2}, 2)
	if len(hits) != 2 || c.evictable(hits) != 2 {
		t.Fatalf("hits %v, evictable %d", hits, c.evictable(hits))
	}
	c.touch(hits)
	if c.numFree != 2 {
		t.Errorf("%d free after touching 2 hits, want 2", c.numFree)
	}
	// Reallocating a cached block evicts its hash.
	c.release(hits)
	c.allocate(nil, 4)
	if n := len(c.lookup([]uint64{h1, h2}, 2)); n != 0 {
		t.Errorf("%d hits after every block was reallocated, want 0", n)
	}
}
