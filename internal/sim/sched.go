package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SchedulerConfig describes the engine model: vLLM's scheduler limits, its
// KV cache, the cost of one step, and speculative decoding. Field names
// follow the `vllm serve` flags they stand for.
type SchedulerConfig struct {
	// MaxNumSeqs is --max-num-seqs: the most requests running at once.
	MaxNumSeqs int
	// MaxNumBatchedTokens is --max-num-batched-tokens: the token budget of
	// one step, shared by decode tokens and prefill chunks.
	MaxNumBatchedTokens int
	// BlockSize is --block-size: tokens per KV cache block.
	BlockSize int
	// NumGPUBlocks is --num-gpu-blocks-override: the KV cache size in
	// blocks. It must hold at least one request of MaxModelLen tokens.
	NumGPUBlocks int
	// EnablePrefixCaching is --enable-prefix-caching: full prompt blocks
	// already in the cache are not computed again.
	EnablePrefixCaching bool
	// MaxModelLen is --max-model-len; NewServer copies Config.MaxModelLen.
	MaxModelLen int

	// StepBase, StepPerToken and StepPerSeq make the step time: StepBase +
	// StepPerToken × prefill tokens + StepPerSeq × sequences in the step.
	// Prefill tokens are all scheduled tokens except one decode token per
	// decoding request (so prompt chunks, recomputation after a preemption
	// and speculative tokens to verify). A larger batch therefore slows
	// every stream in it, as on a GPU. They are used as given: zero is
	// free. DefaultSchedulerConfig has values for an 8B model on one GPU.
	StepBase, StepPerToken, StepPerSeq time.Duration

	// NumSpeculativeTokens is vLLM's num_speculative_tokens: when
	// positive, every decoding request proposes that many draft tokens per
	// step, verified in the next step.
	NumSpeculativeTokens int
	// SpecAcceptanceRate is the probability that a draft token is accepted
	// given that the ones before it were; a step yields 1 + accepted tokens.
	SpecAcceptanceRate float64
	// Seed seeds the acceptance draws.
	Seed int64

	// OnStep, when set, receives the statistics of every step (the server
	// feeds /metrics with them). It is called from the engine goroutine,
	// outside the scheduler's lock.
	OnStep func(StepStats)
}

// DefaultSchedulerConfig is the engine model of an 8B model in bf16 on one
// 80 GB GPU: vLLM's OpenAI-server limits (256 sequences, 8192 batched
// tokens), 16-token blocks, about 490,000 tokens of KV cache, prefix
// caching on (vLLM's default), and a step of 6 ms plus 50 µs per prefill
// token plus 40 µs per sequence, so one stream decodes at about 6 ms per
// token, 256 streams at about 16 ms, and a 1,000-token prompt alone takes
// about 56 ms.
func DefaultSchedulerConfig() SchedulerConfig {
	return SchedulerConfig{
		MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, BlockSize: 16, NumGPUBlocks: 30720,
		EnablePrefixCaching: true,
		StepBase:            6 * time.Millisecond, StepPerToken: 50 * time.Microsecond, StepPerSeq: 40 * time.Microsecond,
		SpecAcceptanceRate: 0.7,
	}
}

// validate checks c; errors name the field and, through flag, the flag
// (vllm serve's name, with the prefix of the command that took it).
func (c SchedulerConfig) validate(flag func(name string) string) error {
	positive := []struct {
		name, flag string
		v          int
	}{
		{"MaxNumSeqs", flag("max-num-seqs"), c.MaxNumSeqs},
		{"MaxNumBatchedTokens", flag("max-num-batched-tokens"), c.MaxNumBatchedTokens},
		{"BlockSize", flag("block-size"), c.BlockSize},
		{"NumGPUBlocks", flag("num-gpu-blocks-override"), c.NumGPUBlocks},
		{"MaxModelLen", flag("max-model-len"), c.MaxModelLen},
	}
	for _, f := range positive {
		if f.v <= 0 {
			return fmt.Errorf("sim: SchedulerConfig.%s (%s) must be positive, got %d", f.name, f.flag, f.v)
		}
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"StepBase", c.StepBase}, {"StepPerToken", c.StepPerToken}, {"StepPerSeq", c.StepPerSeq}} {
		if f.d < 0 {
			return fmt.Errorf("sim: SchedulerConfig.%s must not be negative, got %v", f.name, f.d)
		}
	}
	if c.NumSpeculativeTokens < 0 {
		return fmt.Errorf("sim: SchedulerConfig.NumSpeculativeTokens (%s) must not be negative, got %d",
			flag("num-speculative-tokens"), c.NumSpeculativeTokens)
	}
	if !(c.SpecAcceptanceRate >= 0 && c.SpecAcceptanceRate <= 1) {
		return fmt.Errorf("sim: SchedulerConfig.SpecAcceptanceRate (%s) must be in [0, 1], got %v",
			flag("spec-acceptance-rate"), c.SpecAcceptanceRate)
	}
	if tokens := c.NumGPUBlocks * c.BlockSize; tokens < c.MaxModelLen {
		// vLLM refuses to start in this case too: a request of the maximum
		// length could never be scheduled.
		return fmt.Errorf("sim: the KV cache of %d blocks of %d tokens (%s × %s = %d tokens) "+
			"cannot hold one request of the max model length %d (%s): lower %[7]s or add blocks",
			c.NumGPUBlocks, c.BlockSize, flag("num-gpu-blocks-override"), flag("block-size"), tokens, c.MaxModelLen, flag("max-model-len"))
	}
	return nil
}

// StepStats are the facts of one engine step, what vLLM's engine core
// reports in its SchedulerStats and IterationStats.
type StepStats struct {
	// Start and End are the step's model times; End is the timestamp of
	// every output it produced.
	Start, End time.Time
	// Late is how long after End the engine goroutine woke up to deliver
	// the outputs: the simulator's own lateness.
	Late time.Duration
	// Seqs and Tokens are the sequences and tokens the step computed;
	// PrefillTokens the tokens that counted as prefill in its cost.
	Seqs, Tokens, PrefillTokens int
	// PromptTokens are the prompt tokens of the requests whose first token
	// the step produced (vLLM counts them then), CachedPromptTokens the
	// part of them that came from the prefix cache, GenerationTokens the
	// tokens of all its outputs.
	PromptTokens, CachedPromptTokens, GenerationTokens int
	// Preemptions counts the requests preempted while planning the step.
	Preemptions int
	// PrefixRequests, PrefixQueries and PrefixHits are the prefix cache
	// lookups of the requests the step admitted, in requests and tokens
	// (resumed requests apart): each request is counted once, however many
	// steps it waited for blocks.
	PrefixRequests, PrefixQueries, PrefixHits int
	// Drafts, DraftTokens and AcceptedTokens count speculative decoding;
	// AcceptedPerPosition[i] the drafts whose token i was accepted.
	Drafts, DraftTokens, AcceptedTokens int
	AcceptedPerPosition                 []int
	// Running, Waiting and KVUsage are the state after the step.
	Running, Waiting int
	KVUsage          float64
}

// Scheduler is the engine model: one goroutine runs vLLM-like steps over
// the admitted requests while there are any. See core for the scheduling
// rules and SchedulerConfig for the cost model.
//
// Timing (subtleness ahead): a step planned at start is due at start +
// cost; the goroutine sleeps until then and stamps every output of the step
// with the due instant, not the wake-up, so host jitter does not leak into
// the model's timestamps. The next step starts at the previous step's due
// end while the engine is busy (and at the wake-up when it was idle), so a
// late wake-up is caught up instead of accumulating, as the fixed-latency
// engine's absolute timeline does.
type Scheduler struct {
	mu      sync.Mutex
	core    *core
	looping bool
	wake    chan struct{}
	onStep  func(StepStats)
	specK   int
	cost    func(*stepPlan) time.Duration
}

var _ Engine = (*Scheduler)(nil)

// NewScheduler validates cfg and returns an idle engine.
func NewScheduler(cfg SchedulerConfig) (*Scheduler, error) {
	if err := cfg.validate(flagName); err != nil {
		return nil, err
	}
	s := &Scheduler{core: newCore(cfg), wake: make(chan struct{}, 1), onStep: cfg.OnStep, specK: cfg.NumSpeculativeTokens}
	s.cost = func(p *stepPlan) time.Duration {
		return cfg.StepBase + time.Duration(p.prefillTokens)*cfg.StepPerToken + time.Duration(len(p.items))*cfg.StepPerSeq
	}
	return s, nil
}

// Start implements Engine: the request joins the back of the waiting queue.
func (s *Scheduler) Start(_ context.Context, req Request) (Stream, error) {
	if req.OutputTokens < 1 {
		return nil, errors.New("sim: a request must produce at least one token")
	}
	if req.PromptTokens+req.OutputTokens > s.core.cfg.MaxModelLen {
		return nil, fmt.Errorf("sim: prompt %d + output %d tokens exceed the max model length %d",
			req.PromptTokens, req.OutputTokens, s.core.cfg.MaxModelLen)
	}
	q := &seq{id: req.ID, promptLen: max(req.PromptTokens, 1), maxOut: req.OutputTokens, promptIDs: req.PromptIDs,
		pooling: req.Pooling, ready: make(chan struct{}, 1)}
	q.timing.Queued = req.Queued
	if q.timing.Queued.IsZero() {
		q.timing.Queued = req.Received
	}
	s.mu.Lock()
	s.core.add(q)
	if !s.looping {
		s.looping = true
		go s.loop()
	} else {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	return &schedStream{s: s, q: q}, nil
}

// loop runs steps until no request is left, then exits; the next Start
// starts it again.
func (s *Scheduler) loop() {
	var timer *time.Timer
	var next time.Time // due end of the previous step while busy
	for {
		s.mu.Lock()
		if s.core.idle() {
			s.looping = false
			s.mu.Unlock()
			return
		}
		now := time.Now()
		start := now
		if !next.IsZero() && next.Before(now) {
			start = next // catch up: the engine has been busy since then
		}
		p := s.core.schedule(start)
		start = p.start
		s.mu.Unlock()
		if len(p.items) == 0 {
			// Nothing fits (every request waits for blocks that a running
			// one will free, or was just aborted): wait for a change.
			next = time.Time{}
			select {
			case <-s.wake:
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		end := start.Add(s.cost(p))
		if d := time.Until(end); d > 0 {
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			<-timer.C
		}
		late := time.Since(end)
		st := StepStats{Start: start, End: end, Late: late, Seqs: len(p.items), Tokens: p.tokens,
			PrefillTokens: p.prefillTokens, Preemptions: p.preemptions, PrefixRequests: p.prefixRequests,
			PrefixQueries: p.prefixQueries, PrefixHits: p.prefixHits, AcceptedPerPosition: make([]int, s.specK)}
		s.mu.Lock()
		outs := s.core.finish(p, end, &st)
		st.Running, st.Waiting, st.KVUsage = len(s.core.running), len(s.core.waiting), s.core.kv.usage()
		s.mu.Unlock()
		for _, o := range outs {
			o.q.deliver(o.out)
		}
		if s.onStep != nil {
			s.onStep(st)
		}
		next = end
	}
}

// Snapshot returns the number of running and waiting requests and the KV
// cache usage, for gauges read between steps.
func (s *Scheduler) Snapshot() (running, waiting int, kvUsage float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.core.running), len(s.core.waiting), s.core.kv.usage()
}

// seqState is where a request is in the engine.
type seqState uint8

const (
	seqWaiting seqState = iota
	seqRunning
	seqFinished
)

// seq is one request inside the engine, vLLM's Request reduced to its
// token counts, blocks and timeline, plus the queue of outputs the HTTP
// handler has not taken yet.
type seq struct {
	id        string
	uid       uint64
	promptLen int
	maxOut    int
	promptIDs []int
	pooling   bool

	numOutput  int // tokens generated so far
	computed   int // tokens whose KV is computed
	spec       int // draft tokens proposed for the next step
	blocks     []int32
	hashes     []uint64 // chained hashes of full blocks of known tokens
	registered int      // leading blocks registered in the prefix cache
	cachedSet  bool
	state      seqState
	timing     Timing

	mu      sync.Mutex
	pending []Output
	ready   chan struct{}
}

// numTokens is vLLM's num_tokens: prompt plus generated tokens.
func (q *seq) numTokens() int { return q.promptLen + q.numOutput }

// tokenID is the id of token i of q (prompt, then generated): the prompt's
// real ids when the server has them, else ids unique to this request; the
// generated tokens cycle through the vocabulary, as the text does.
func (q *seq) tokenID(i int) int {
	if i < q.promptLen {
		if i < len(q.promptIDs) {
			return q.promptIDs[i]
		}
		return int(1<<62 | q.uid<<24 | uint64(i))
	}
	return 1<<61 | (i-q.promptLen)%64
}

// deliver queues an output for the handler and wakes it.
func (q *seq) deliver(o Output) {
	q.mu.Lock()
	q.pending = append(q.pending, o)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// schedStream is the Stream of one request in the Scheduler.
type schedStream struct {
	s        *Scheduler
	q        *seq
	leftover int // tokens of the current output that Next has not handed out
}

var _ OutputStream = (*schedStream)(nil)

// NextOutput implements OutputStream.
func (t *schedStream) NextOutput(ctx context.Context) (Output, error) {
	for {
		t.q.mu.Lock()
		if len(t.q.pending) > 0 {
			o := t.q.pending[0]
			t.q.pending = t.q.pending[1:]
			t.q.mu.Unlock()
			return o, nil
		}
		t.q.mu.Unlock()
		select {
		case <-t.q.ready:
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
}

// Next implements Stream, one token at a time.
func (t *schedStream) Next(ctx context.Context) error {
	if t.leftover > 0 {
		t.leftover--
		return ctx.Err()
	}
	o, err := t.NextOutput(ctx)
	if err != nil {
		return err
	}
	t.leftover = o.Tokens - 1
	return nil
}

// Timing implements OutputStream.
func (t *schedStream) Timing() Timing {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	return t.q.timing
}

// Close implements Stream: a request that has not finished is aborted and
// its blocks freed.
func (t *schedStream) Close() {
	t.s.mu.Lock()
	t.s.core.abort(t.q)
	t.s.mu.Unlock()
}
