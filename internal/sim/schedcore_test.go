package sim

import (
	"testing"
	"time"
)

// The core is driven here without goroutines or clocks: each step is
// planned at a virtual instant and finished 10 ms later, so these tests
// check the scheduling rules exactly.

// testCore builds a core from a small configuration changed by mod.
func testCore(t *testing.T, mod func(*SchedulerConfig)) *core {
	t.Helper()
	cfg := SchedulerConfig{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, BlockSize: 16, NumGPUBlocks: 1024,
		MaxModelLen: 4096, SpecAcceptanceRate: 0.7}
	if mod != nil {
		mod(&cfg)
	}
	if err := cfg.validate(flagName); err != nil {
		t.Fatal(err)
	}
	return newCore(cfg)
}

// testSeq is a request of prompt tokens that generates out tokens.
func testSeq(prompt, out int, ids ...int) *seq {
	return &seq{promptLen: prompt, maxOut: out, promptIDs: ids, ready: make(chan struct{}, 1)}
}

// coreClock steps a core on a virtual timeline.
type coreClock struct {
	c   *core
	now time.Time
}

func (cc *coreClock) step() (*stepPlan, []produced, StepStats) {
	p := cc.c.schedule(cc.now)
	cc.now = cc.now.Add(10 * time.Millisecond)
	st := StepStats{AcceptedPerPosition: make([]int, cc.c.cfg.NumSpeculativeTokens)}
	outs := cc.c.finish(p, cc.now, &st)
	return p, outs, st
}

func tokensOf(p *stepPlan, q *seq) int {
	for _, it := range p.items {
		if it.q == q {
			return it.tokens
		}
	}
	return 0
}

func TestCoreChunkedPrefill(t *testing.T) {
	t.Parallel()
	// Budget 32, prompt 100: chunks of 32, 32, 32 and 4 tokens, and no
	// output until the last chunk; then one decode token per step.
	c := testCore(t, func(c *SchedulerConfig) { c.MaxNumBatchedTokens = 32 })
	cc := &coreClock{c: c, now: time.Unix(0, 0)}
	q := testSeq(100, 3)
	c.add(q)
	wantTokens := []int{32, 32, 32, 4, 1, 1}
	wantOutput := []bool{false, false, false, true, true, true}
	for i := range wantTokens {
		p, outs, _ := cc.step()
		if got := tokensOf(p, q); got != wantTokens[i] {
			t.Errorf("step %d scheduled %d tokens, want %d", i, got, wantTokens[i])
		}
		if got := len(outs) == 1; got != wantOutput[i] {
			t.Errorf("step %d output %t, want %t", i, got, wantOutput[i])
		}
	}
	if q.state != seqFinished || !c.idle() {
		t.Errorf("state %v, idle %t after 3 tokens", q.state, c.idle())
	}
	if got, want := q.timing.FirstToken.Sub(q.timing.Scheduled), 40*time.Millisecond; got != want {
		t.Errorf("prefill interval %v, want %v (4 steps)", got, want)
	}
}

func TestCoreRunningFirstThenWaiting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		maxSeqs   int
		budget    int
		wantB     int // tokens of the newcomer in the step after A's prefill
		wantQueue bool
	}{
		// A decodes 1 token, B takes the rest of the budget.
		{"budget shared", 256, 64, 63, false},
		// With room for one sequence B waits until A finishes.
		{"max-num-seqs 1", 1, 64, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testCore(t, func(c *SchedulerConfig) { c.MaxNumSeqs, c.MaxNumBatchedTokens = tt.maxSeqs, tt.budget })
			cc := &coreClock{c: c, now: time.Unix(0, 0)}
			a, b := testSeq(10, 5), testSeq(100, 2)
			c.add(a)
			cc.step() // A's prefill and first token
			c.add(b)
			p, _, _ := cc.step()
			if got := tokensOf(p, a); got != 1 {
				t.Errorf("A got %d tokens, want its 1 decode token first", got)
			}
			if got := tokensOf(p, b); got != tt.wantB {
				t.Errorf("B got %d tokens, want %d", got, tt.wantB)
			}
			if queued := b.state == seqWaiting; queued != tt.wantQueue {
				t.Errorf("B waiting %t, want %t", queued, tt.wantQueue)
			}
		})
	}
}

func TestCorePreemption(t *testing.T) {
	t.Parallel()
	// 4 blocks of 4 tokens. A and B each start with a 4-token prompt; as
	// they decode they need a second block each, then a third: the cache
	// runs out and the newest running request (B) is preempted.
	c := testCore(t, func(c *SchedulerConfig) { c.BlockSize, c.NumGPUBlocks, c.MaxModelLen = 4, 4, 16 })
	cc := &coreClock{c: c, now: time.Unix(0, 0)}
	a, b := testSeq(4, 10), testSeq(4, 10)
	c.add(a)
	c.add(b)
	preempted := 0
	var bScheduled time.Time
	for i := 0; i < 100 && !c.idle(); i++ {
		p, _, _ := cc.step()
		if i == 0 {
			bScheduled = b.timing.Scheduled
		}
		if p.preemptions > 0 {
			preempted += p.preemptions
			if b.state != seqWaiting || b.computed != 0 || len(b.blocks) != 0 || c.waiting[0] != b {
				t.Fatalf("step %d: B not back at the front of the queue with nothing computed: state %v computed %d blocks %d",
					i, b.state, b.computed, len(b.blocks))
			}
			if len(p.items) != 1 || p.items[0].q != a {
				t.Errorf("step %d: a preempting step admitted someone: %d items", i, len(p.items))
			}
		}
		if got := c.kv.numFree + len(a.blocks) + len(b.blocks); got != 4 {
			t.Fatalf("step %d: blocks leak: %d free + held, want 4", i, got)
		}
	}
	if !c.idle() {
		t.Fatal("requests never finished")
	}
	if preempted == 0 || b.timing.Preemptions == 0 || a.timing.Preemptions != 0 {
		t.Errorf("preemptions: total %d, A %d, B %d; want B preempted, A never", preempted, a.timing.Preemptions, b.timing.Preemptions)
	}
	if !b.timing.Scheduled.Equal(bScheduled) {
		t.Errorf("B's first SCHEDULED moved from %v to %v after its preemption", bScheduled, b.timing.Scheduled)
	}
	if a.numOutput != 10 || b.numOutput != 10 {
		t.Errorf("outputs A %d B %d, want 10 each", a.numOutput, b.numOutput)
	}
}

func TestCorePrefixCaching(t *testing.T) {
	t.Parallel()
	prompt := make([]int, 40)
	for i := range prompt {
		prompt[i] = 100 + i
	}
	tests := []struct {
		name     string
		caching  bool
		other    []int
		wantHits int
	}{
		// 40 tokens, blocks of 16: two full blocks (32 tokens) are cached;
		// the last token is never a hit.
		{"same prompt", true, prompt, 32},
		// A different first token changes every chained hash.
		{"different start", true, append([]int{7}, prompt[1:]...), 0},
		{"caching off", false, prompt, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testCore(t, func(c *SchedulerConfig) { c.EnablePrefixCaching = tt.caching })
			cc := &coreClock{c: c, now: time.Unix(0, 0)}
			c.add(testSeq(40, 1, prompt...))
			cc.step()
			b := testSeq(40, 1, tt.other...)
			c.add(b)
			p, _, _ := cc.step()
			if got := tokensOf(p, b); got != 40-tt.wantHits {
				t.Errorf("computed %d tokens, want %d", got, 40-tt.wantHits)
			}
			if b.timing.CachedTokens != tt.wantHits || p.prefixHits != tt.wantHits {
				t.Errorf("cached %d, step hits %d, want %d", b.timing.CachedTokens, p.prefixHits, tt.wantHits)
			}
			if tt.caching && p.prefixQueries != 40 {
				t.Errorf("queries %d, want 40", p.prefixQueries)
			}
		})
	}
}

func TestCoreSpeculativeDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rate       float64
		wantTokens int // tokens per decode output
	}{
		{"all accepted", 1, 4},
		{"none accepted", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testCore(t, func(c *SchedulerConfig) { c.NumSpeculativeTokens, c.SpecAcceptanceRate = 3, tt.rate })
			cc := &coreClock{c: c, now: time.Unix(0, 0)}
			q := testSeq(8, 13)
			c.add(q)
			_, outs, _ := cc.step()
			if len(outs) != 1 || outs[0].out.Tokens != 1 {
				t.Fatalf("prefill output %v, want 1 token", outs)
			}
			p, outs, st := cc.step()
			if got := tokensOf(p, q); got != 4 {
				t.Errorf("decode step scheduled %d tokens, want 1 + 3 drafts", got)
			}
			if len(outs) != 1 || outs[0].out.Tokens != tt.wantTokens {
				t.Fatalf("decode output %v, want %d tokens", outs, tt.wantTokens)
			}
			if st.Drafts != 1 || st.DraftTokens != 3 || st.AcceptedTokens != tt.wantTokens-1 {
				t.Errorf("spec stats %+v", st)
			}
			if q.computed != q.numTokens()-1 {
				t.Errorf("computed %d of %d tokens: rejected drafts must not count", q.computed, q.numTokens())
			}
		})
	}
}

func TestCoreCatchUpStepNeverPrecedesArrival(t *testing.T) {
	t.Parallel()
	// The engine plans a catching-up step from an instant before a request
	// it admits had queued: the request is scheduled when it queued, not
	// before, and its prefill interval stays positive.
	c := testCore(t, nil)
	t0 := time.Unix(100, 0)
	q := testSeq(10, 1)
	q.timing.Queued = t0.Add(5 * time.Millisecond)
	c.add(q)
	p := c.schedule(t0)
	if !p.start.Equal(q.timing.Queued) || !q.timing.Scheduled.Equal(q.timing.Queued) {
		t.Fatalf("step start %v, scheduled %v, want the arrival %v", p.start, q.timing.Scheduled, q.timing.Queued)
	}
	st := StepStats{}
	c.finish(p, p.start.Add(time.Millisecond), &st)
	if d := q.timing.FirstToken.Sub(q.timing.Scheduled); d <= 0 {
		t.Errorf("prefill interval %v", d)
	}
}

func TestCoreLoneRequestFitsWithSpeculation(t *testing.T) {
	t.Parallel()
	// A cache of exactly the max model length (4 blocks of 4 = 16 tokens)
	// and a request that fills it: with 3 speculative slots per step the
	// request must still finish, never preempting itself forever.
	c := testCore(t, func(c *SchedulerConfig) {
		c.BlockSize, c.NumGPUBlocks, c.MaxModelLen, c.NumSpeculativeTokens, c.SpecAcceptanceRate = 4, 4, 16, 3, 0.5
	})
	cc := &coreClock{c: c, now: time.Unix(0, 0)}
	q := testSeq(6, 10)
	c.add(q)
	for i := 0; i < 200 && !c.idle(); i++ {
		cc.step()
	}
	if !c.idle() || q.numOutput != 10 || q.timing.Preemptions != 0 {
		t.Errorf("idle %t, %d tokens, %d preemptions", c.idle(), q.numOutput, q.timing.Preemptions)
	}
}
