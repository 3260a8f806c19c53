package sim

import "hash/fnv"

// kvCache is the scheduler's model of vLLM's KV cache block pool
// (vllm/v1/core/block_pool.py): a fixed number of blocks of BlockSize
// tokens, a free queue in least-recently-used order, and, with prefix
// caching, a map from the hash of a full block to the block that holds it.
//
// The rules that matter for timing are vLLM's:
//
//   - A request holds ceil(tokens/BlockSize) blocks; a step that needs a
//     block when none is free preempts (see core.schedule).
//   - A freed block goes to the tail of the free queue, the blocks of one
//     request in reverse order, so its last blocks are evicted first.
//     Allocation takes blocks from the head.
//   - With prefix caching a freed full block keeps its hash and stays
//     findable until it is reallocated: a free cached block is both "free"
//     (it counts as free in the usage) and a possible cache hit. A hit on a
//     free block takes it out of the free queue.
//   - Usage is 1 - free/total, so cached but unreferenced blocks count as
//     free: vllm:kv_cache_usage_perc counts live requests only.
//
// vLLM reserves one null block; the model does not. kvCache is not safe for
// concurrent use; the scheduler's mutex guards it.
type kvCache struct {
	blockSize int
	blocks    []kvBlock
	// head and tail of the free queue (-1 when empty).
	head, tail int32
	numFree    int
	caching    bool
	cached     map[uint64]int32 // full-block hash -> block holding it
}

// kvBlock is one block: its reference count, its hash when it is a cached
// full block, and its links in the free queue.
type kvBlock struct {
	ref        int32
	hash       uint64
	hashed     bool
	prev, next int32
	free       bool
}

// newKVCache builds a pool of n blocks, all free, in id order.
func newKVCache(n, blockSize int, caching bool) *kvCache {
	c := &kvCache{blockSize: blockSize, blocks: make([]kvBlock, n), head: -1, tail: -1, caching: caching}
	if caching {
		c.cached = make(map[uint64]int32)
	}
	for i := range c.blocks {
		c.blocks[i].prev, c.blocks[i].next = -1, -1
		c.pushTail(int32(i))
	}
	return c
}

// usage is vLLM's kv_cache_usage: the fraction of blocks not free.
func (c *kvCache) usage() float64 {
	if len(c.blocks) == 0 {
		return 0
	}
	return 1 - float64(c.numFree)/float64(len(c.blocks))
}

// blocksFor is how many blocks hold n tokens.
func (c *kvCache) blocksFor(n int) int { return (n + c.blockSize - 1) / c.blockSize }

func (c *kvCache) pushTail(id int32) {
	b := &c.blocks[id]
	b.prev, b.next, b.free = c.tail, -1, true
	if c.tail >= 0 {
		c.blocks[c.tail].next = id
	} else {
		c.head = id
	}
	c.tail = id
	c.numFree++
}

func (c *kvCache) unlink(id int32) {
	b := &c.blocks[id]
	if b.prev >= 0 {
		c.blocks[b.prev].next = b.next
	} else {
		c.head = b.next
	}
	if b.next >= 0 {
		c.blocks[b.next].prev = b.prev
	} else {
		c.tail = b.prev
	}
	b.prev, b.next, b.free = -1, -1, false
	c.numFree--
}

// allocate takes n blocks from the head of the free queue, evicting the
// cache entries they held. The caller has checked that n are free.
func (c *kvCache) allocate(dst []int32, n int) []int32 {
	for range n {
		id := c.head
		c.unlink(id)
		b := &c.blocks[id]
		if b.hashed {
			if c.cached[b.hash] == id {
				delete(c.cached, b.hash)
			}
			b.hashed = false
		}
		b.ref = 1
		dst = append(dst, id)
	}
	return dst
}

// lookup returns the blocks of the longest run of leading full-block hashes
// that are cached, at most maxBlocks of them.
func (c *kvCache) lookup(hashes []uint64, maxBlocks int) []int32 {
	if !c.caching {
		return nil
	}
	var ids []int32
	for i, h := range hashes {
		if i >= maxBlocks {
			break
		}
		id, ok := c.cached[h]
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	return ids
}

// evictable counts the blocks among ids that are free, which a hit must
// take out of the free queue (vLLM's num_evictable_computed_blocks).
func (c *kvCache) evictable(ids []int32) int {
	n := 0
	for _, id := range ids {
		if c.blocks[id].ref == 0 {
			n++
		}
	}
	return n
}

// touch takes a reference on cache-hit blocks.
func (c *kvCache) touch(ids []int32) {
	for _, id := range ids {
		b := &c.blocks[id]
		if b.ref == 0 && b.free {
			c.unlink(id)
		}
		b.ref++
	}
}

// release drops a request's references, last block first, so that its
// tail blocks are the first to be evicted.
func (c *kvCache) release(ids []int32) {
	for i := len(ids) - 1; i >= 0; i-- {
		b := &c.blocks[ids[i]]
		b.ref--
		if b.ref == 0 {
			c.pushTail(ids[i])
		}
	}
}

// register makes block id findable under hash h, unless another block
// already holds that content (vLLM then keeps both; the model keeps the
// first, which changes nothing for hits).
func (c *kvCache) register(id int32, h uint64) {
	if !c.caching {
		return
	}
	b := &c.blocks[id]
	if b.hashed {
		return
	}
	if _, ok := c.cached[h]; ok {
		return
	}
	b.hash, b.hashed = h, true
	c.cached[h] = id
}

// blockHash chains the hash of a block's tokens to its parent's, as vLLM's
// hash_block_tokens does, so equal hashes mean equal prefixes.
func blockHash(parent uint64, tokens []int) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) {
		for i := range buf {
			buf[i] = byte(v >> (8 * i))
		}
		_, _ = h.Write(buf[:])
	}
	put(parent)
	for _, t := range tokens {
		put(uint64(t))
	}
	return h.Sum64()
}
