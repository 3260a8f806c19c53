package sim

import (
	"math/rand/v2"
	"time"
)

// core is the scheduler's state machine, without goroutines or clocks:
// schedule plans one engine step from the queues, finish applies the step's
// result at the instant the step ended. The Scheduler drives it in real
// time; tests may drive it directly. It follows vLLM's Scheduler.schedule
// (vllm/v1/core/sched/scheduler.py):
//
//  1. A step has a budget of MaxNumBatchedTokens tokens.
//  2. Running requests come first, in order: each gets the tokens that
//     bring its computed tokens up to its known tokens (the rest of its
//     prompt, or 1 decode token plus its speculative tokens), capped by the
//     budget, so a long prompt is prefilled in chunks over several steps.
//  3. A running request that needs a KV block when none is free preempts
//     the newest running request (the last in the list): its blocks are
//     freed, its computed tokens reset to 0, and it goes back to the front
//     of the waiting queue. If the request to preempt is the one being
//     scheduled, it is preempted itself and the running pass stops.
//  4. Only if nothing was preempted, waiting requests are admitted in order
//     while the budget lasts and fewer than MaxNumSeqs run; the first one
//     that does not fit in the KV cache stops admission. An admitted request
//     looks up its prompt in the prefix cache first (full blocks only, and
//     never its last token) and computes only the rest.
//  5. A request produces an output only in the step that brings its
//     computed tokens up to its known tokens: no output until the last
//     chunk of its prompt. A preempted request recomputes its prompt and the
//     tokens it had generated, then continues.
type core struct {
	cfg     SchedulerConfig
	kv      *kvCache
	waiting []*seq
	running []*seq
	rng     *rand.Rand
	nextUID uint64
	buf     []int
}

// newCore builds the state machine for a validated configuration.
func newCore(cfg SchedulerConfig) *core {
	return &core{
		cfg: cfg,
		kv:  newKVCache(cfg.NumGPUBlocks, cfg.BlockSize, cfg.EnablePrefixCaching),
		rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed5eed)),
	}
}

// stepItem is one request's share of a step.
type stepItem struct {
	q      *seq
	tokens int
	// spec is how many of the tokens are speculative tokens to verify.
	spec int
	// decode is true when the request was caught up before the step, so
	// exactly one of its tokens is a plain decode token.
	decode bool
}

// stepPlan is a scheduled step, vLLM's SchedulerOutput reduced to counts.
type stepPlan struct {
	// start is when the step starts: the instant it was planned from, or
	// the arrival of the latest request it admits if that is later.
	start          time.Time
	items          []stepItem
	preemptions    int
	prefillTokens  int // tokens other than one decode token per decoding request
	tokens         int
	prefixRequests int
	prefixQueries  int
	prefixHits     int
}

// add queues a new request at the back of the waiting queue.
func (c *core) add(q *seq) {
	c.nextUID++
	q.uid = c.nextUID
	q.state = seqWaiting
	c.waiting = append(c.waiting, q)
}

// idle reports whether there is nothing to schedule.
func (c *core) idle() bool { return len(c.waiting) == 0 && len(c.running) == 0 }

// schedule plans the step that starts at start (or later, see
// stepPlan.start).
func (c *core) schedule(start time.Time) *stepPlan {
	p := &stepPlan{start: start}
	budget := c.scheduleRunning(p, c.cfg.MaxNumBatchedTokens)
	var admitted []*seq
	if p.preemptions == 0 {
		admitted = c.admitWaiting(p, budget)
	}
	// A catching-up step may be planned from an instant before a request it
	// admits had arrived: the step then starts when the last of them
	// arrived, and that is their first SCHEDULED (vLLM stamps every request
	// admitted in a step with the step's start).
	for _, q := range admitted {
		q.timing.Scheduled = p.start
	}
	return p
}

// scheduleRunning gives the running requests their tokens in order (rule
// 2), preempting the newest when one needs a block and none is free (rule
// 3), and returns what is left of the budget.
func (c *core) scheduleRunning(p *stepPlan, budget int) int {
	lookahead := c.cfg.NumSpeculativeTokens
	for i := 0; i < len(c.running) && budget > 0; {
		q := c.running[i]
		n := min(q.numTokens()+q.spec-q.computed, budget, c.cfg.MaxModelLen-1-q.computed)
		if n <= 0 {
			i++
			continue
		}
		scheduled := true
		for !c.grow(q, n, lookahead) {
			victim := c.running[len(c.running)-1]
			c.running = c.running[:len(c.running)-1]
			c.preempt(victim)
			p.preemptions++
			if victim == q {
				scheduled = false
				break
			}
		}
		if !scheduled {
			break
		}
		it := stepItem{q: q, tokens: n, decode: q.numOutput > 0 && q.computed == q.numTokens()-1}
		it.spec = max(0, q.computed+n-q.numTokens())
		p.add(it)
		budget -= n
		i++
	}
	return budget
}

// admitWaiting admits waiting requests in order while the budget lasts
// and fewer than MaxNumSeqs run (rule 4), and returns those scheduled for
// the first time.
func (c *core) admitWaiting(p *stepPlan, budget int) []*seq {
	var admitted []*seq
	for len(c.waiting) > 0 && budget > 0 && len(c.running) < c.cfg.MaxNumSeqs {
		q := c.waiting[0]
		var hits []int32
		if c.kv.caching && q.computed == 0 {
			// The prompt's last token is always recomputed: the model
			// needs one input token to produce an output.
			maxBlocks := (q.numTokens() - 1) / c.cfg.BlockSize
			hits = c.kv.lookup(c.hashes(q, maxBlocks), maxBlocks)
		}
		computed := len(hits) * c.cfg.BlockSize
		n := min(q.numTokens()-computed, budget)
		need := c.kv.blocksFor(computed+n) - len(hits)
		if need+c.kv.evictable(hits) > c.kv.numFree {
			break
		}
		if c.kv.caching && q.timing.Preemptions == 0 {
			// Counted once, at admission: a request that waits for
			// blocks is looked up again every step, and vLLM records
			// the lookup only once the request is scheduled
			// (vllm/v1/core/sched/scheduler.py, record_prefix_cache_stats,
			// since vllm-project/vllm#48860). A resumed request's
			// lookup is counted apart, not in the prefix cache counters.
			p.prefixRequests++
			p.prefixQueries += q.numTokens()
			p.prefixHits += computed
		}
		c.kv.touch(hits)
		q.blocks = c.kv.allocate(append(q.blocks[:0], hits...), need)
		q.registered = len(hits)
		q.computed = computed
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
		c.running = append(c.running, q)
		q.state = seqRunning
		if q.timing.Scheduled.IsZero() {
			admitted = append(admitted, q)
			p.start = later(p.start, q.timing.Queued)
		}
		if !q.cachedSet {
			q.cachedSet, q.timing.CachedTokens = true, computed
		}
		p.add(stepItem{q: q, tokens: n})
		budget -= n
	}
	return admitted
}

// add appends an item and counts its tokens.
func (p *stepPlan) add(it stepItem) {
	p.items = append(p.items, it)
	p.tokens += it.tokens
	p.prefillTokens += it.tokens
	if it.decode {
		p.prefillTokens-- // its one decode token is not a prefill token
	}
}

// grow gives q the blocks it needs to compute n more tokens (plus the
// lookahead slots of speculative decoding); false when too few are free.
func (c *core) grow(q *seq, n, lookahead int) bool {
	// Slots past the max model length are never needed; capping them keeps
	// a lone request within a cache that holds MaxModelLen tokens.
	lookahead = max(0, min(lookahead, c.cfg.MaxModelLen-q.computed-n))
	need := c.kv.blocksFor(q.computed+n+lookahead) - len(q.blocks)
	if need <= 0 {
		return true
	}
	if need > c.kv.numFree {
		return false
	}
	q.blocks = c.kv.allocate(q.blocks, need)
	return true
}

// preempt frees q's blocks and puts it back at the front of the waiting
// queue with nothing computed (vLLM's _preempt_request).
func (c *core) preempt(q *seq) {
	c.kv.release(q.blocks)
	q.blocks = q.blocks[:0]
	q.computed, q.spec, q.registered = 0, 0, 0
	q.timing.Preemptions++
	q.state = seqWaiting
	c.waiting = append([]*seq{q}, c.waiting...)
}

// produced is one output handed to a request by finish.
type produced struct {
	q   *seq
	out Output
	// first is true for the request's first output.
	first bool
	done  bool
}

// finish applies plan as of end, the instant the step finished: computed
// tokens advance, caught-up requests produce an output (1 token plus the
// accepted speculative tokens), finished requests free their blocks. The
// step's statistics are added to st.
func (c *core) finish(p *stepPlan, end time.Time, st *StepStats) []produced {
	var outs []produced
	k := c.cfg.NumSpeculativeTokens
	finished := false
	for _, it := range p.items {
		q := it.q
		if q.state != seqRunning {
			continue // aborted while the step ran
		}
		q.computed += it.tokens
		if q.computed < q.numTokens() {
			c.cache(q)
			continue // a prefill chunk: no output yet
		}
		tokens := 1
		if it.spec > 0 {
			acc := c.accept(it.spec)
			q.computed -= it.spec - acc // rejected drafts are not computed
			tokens += acc
			st.Drafts++
			st.DraftTokens += it.spec
			st.AcceptedTokens += acc
			for i := range acc {
				st.AcceptedPerPosition[i]++
			}
		}
		first := q.numOutput == 0
		if q.pooling {
			tokens = 1
		}
		tokens = min(tokens, q.maxOut-q.numOutput)
		q.numOutput += tokens
		q.spec = 0
		if first {
			q.timing.FirstToken = end
			st.PromptTokens += q.promptLen
			st.CachedPromptTokens += q.timing.CachedTokens
		}
		q.timing.LastToken = end
		if !q.pooling {
			st.GenerationTokens += tokens
		}
		c.cache(q)
		done := q.numOutput >= q.maxOut
		if done {
			c.kv.release(q.blocks)
			q.blocks = q.blocks[:0]
			q.state = seqFinished
			finished = true
		} else if k > 0 && !q.pooling {
			q.spec = max(0, min(k, c.cfg.MaxModelLen-1-q.numTokens()))
		}
		outs = append(outs, produced{q: q, out: Output{Tokens: tokens, At: end}, first: first, done: done})
	}
	if finished {
		kept := c.running[:0]
		for _, q := range c.running {
			if q.state == seqRunning {
				kept = append(kept, q)
			}
		}
		clear(c.running[len(kept):])
		c.running = kept
	}
	return outs
}

// accept draws how many of n speculative tokens the target model accepts:
// each position is accepted with probability SpecAcceptanceRate, and the
// first rejection discards the rest, as in rejection sampling.
func (c *core) accept(n int) int {
	a := 0
	for a < n && c.rng.Float64() < c.cfg.SpecAcceptanceRate {
		a++
	}
	return a
}

// abort removes q from the queues and frees its blocks (a client that went
// away; vLLM's finish_requests with FinishReason.ABORT).
func (c *core) abort(q *seq) {
	switch q.state {
	case seqWaiting:
		c.waiting = removeSeq(c.waiting, q)
	case seqRunning:
		c.running = removeSeq(c.running, q)
	default:
		return
	}
	c.kv.release(q.blocks)
	q.blocks = q.blocks[:0]
	q.state = seqFinished
}

func removeSeq(list []*seq, q *seq) []*seq {
	for i, x := range list {
		if x == q {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}

// cache registers q's newly completed full blocks under their hashes.
func (c *core) cache(q *seq) {
	if !c.kv.caching {
		return
	}
	full := min(q.computed/c.cfg.BlockSize, len(q.blocks))
	if full <= q.registered {
		return
	}
	hs := c.hashes(q, full)
	for j := q.registered; j < full; j++ {
		c.kv.register(q.blocks[j], hs[j])
	}
	q.registered = full
}

// hashes returns the chained hashes of q's first n full blocks of known
// tokens (prompt, then generated), computing the missing ones.
func (c *core) hashes(q *seq, n int) []uint64 {
	n = min(n, q.numTokens()/c.cfg.BlockSize)
	bs := c.cfg.BlockSize
	for j := len(q.hashes); j < n; j++ {
		c.buf = c.buf[:0]
		for i := j * bs; i < (j+1)*bs; i++ {
			c.buf = append(c.buf, q.tokenID(i))
		}
		var parent uint64
		if j > 0 {
			parent = q.hashes[j-1]
		}
		q.hashes = append(q.hashes, blockHash(parent, c.buf))
	}
	return q.hashes[:n]
}

// later returns the later of two instants.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
