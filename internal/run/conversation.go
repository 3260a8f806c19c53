package run

import (
	"context"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// talker sends the turns of a --multi-turn run's conversations.
type talker struct {
	*dispatcher
	talks *conversations
	jobs  []job
	// offsets receives when each turn was due, in seconds from the start
	// (the plan's Offsets: a later turn's is only known at run time).
	offsets []float64
	// delay is the think time between an answer and the next turn.
	delay time.Duration
	now   func() float64
	// count counts the tokens of an answer the server gave no usage for;
	// nil without a tokenizer.
	count func(string) int
	// startWall is the wall time of the start, which trace times count
	// from.
	startWall time.Time
}

// converse is dispatch for conversations: each conversation arrives on
// the schedule (or at its trace time), waits for a conversation slot
// (--multi-turn-concurrency, else --max-concurrency: a slot is held from
// the first turn's request to the last turn's answer), then sends its
// turns one after the other (talk). The first interrupt sends no further
// turn; turns in flight get the grace, as requests do.
func (x *execution) converse(ctx context.Context, bar *progress, feed *liveFeed) dispatchResult {
	o := &x.Options
	t := x.talks
	var sem *fifo
	if n := x.conversationSlots(); n > 0 {
		sem = newFIFO(n)
	}
	k := &talker{
		dispatcher: &dispatcher{client: x.engine, be: x.Backend.Impl, sem: sem, stop: x.env.Stop, grace: o.InterruptGrace,
			quick: x.env.Quick, progress: bar, live: feed},
		talks: t, jobs: x.jobs, offsets: x.Offsets, delay: time.Duration(o.MultiTurn.DelayMS) * time.Millisecond, now: x.clock.Seconds,
	}
	if tok := x.Tokenizer; tok != nil {
		k.count = func(s string) int { return len(tok.Encode(s, false)) }
	}
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	res := dispatchResult{outputs: make([]metrics.Output, len(x.jobs)), sent: make([]bool, len(x.jobs)),
		released: make([]time.Time, len(t.list))}
	stop := k.stop
	go k.graceThenCancel(ctx, stop, cancelAll)
	var wg sync.WaitGroup
	k.startWall = time.Now()
	res.start = k.now()
	for c := range t.list {
		if !sleepUntil(ctx, stop, k.startWall.Add(metrics.Duration(t.offsets[c]))) {
			break
		}
		arrival := k.now()
		res.released[c] = time.Now()
		var slot chan struct{}
		if sem != nil {
			slot = sem.join() // in the loop, so slots go in arrival order
		}
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			k.talk(ctx, stop, slot, c, arrival, &res)
		}(c)
	}
	wg.Wait()
	res.end = k.now()
	res.interrupted = isClosed(stop)
	return res
}

// sleepUntil waits until the instant, and reports false when the run
// stopped (or the context ended) first or at that instant.
func sleepUntil(ctx context.Context, stop <-chan struct{}, at time.Time) bool {
	if wait := time.Until(at); wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-stop:
			return false
		case <-ctx.Done():
			return false
		}
	}
	select {
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	default:
		return true
	}
}

// talk holds conversation c's slot and sends its turns: turn k+1 only
// after turn k's answer has ended, plus the think time (and not before its
// trace time), with the history: every earlier user turn and the answer
// the server actually generated for it. A conversation ends at its first
// failed turn, as vLLM's Rust client ends it
// (rust/src/bench/src/multi_turn.rs run_conversation): the next turn
// would have no answer to follow. Each goroutine owns the indices of its
// conversation's turns in res.
func (k *talker) talk(ctx context.Context, stop <-chan struct{}, slot chan struct{}, c int, arrival float64, res *dispatchResult) {
	if slot != nil {
		select {
		case <-slot:
		case <-stop:
			k.sem.leave(slot)
			return
		case <-ctx.Done():
			k.sem.leave(slot)
			return
		}
		defer k.sem.release()
	}
	conv := k.talks.list[c]
	var history []backend.Message
	histLen, due := 0, arrival
	for turn := range conv.Turns {
		i := k.talks.first[c] + turn
		if turn > 0 {
			wake := time.Now().Add(k.delay)
			if ts := conv.Turns[turn].Timestamp; k.talks.traced && ts != nil {
				if at := k.startWall.Add(metrics.Duration(*ts)); at.After(wake) {
					wake = at
				}
			}
			if !sleepUntil(ctx, stop, wake) {
				return
			}
			due = k.now()
		} else if isClosed(stop) {
			return
		}
		req, body := *k.jobs[i].req, k.jobs[i].bodyFor(k.be)
		if turn > 0 {
			req.History, req.PromptLen = history, histLen+req.PromptLen
			k.offsets[i] = due - res.start
			body = k.be.Body(&req)
		}
		res.sent[i] = true
		k.progress.sent()
		k.live.sent()
		out := k.client.Do(ctx, k.be, &req, body)
		out.ClientQueueTime = out.StartTime - due
		res.outputs[i] = out
		k.progress.finished(&out)
		k.live.finished(&out)
		if !out.Success {
			return
		}
		history = append(history, backend.Message{Role: "user", Content: req.Prompt},
			backend.Message{Role: "assistant", Content: out.GeneratedText})
		histLen = out.PromptLen + k.answerTokens(&out, req.OutputLen)
	}
}

// answerTokens is the length of an answer in the history: the server's
// usage, else the tokenizer's count, else the tokens asked for.
func (k *talker) answerTokens(out *metrics.Output, asked int) int {
	switch {
	case out.OutputTokens > 0:
		return out.OutputTokens
	case k.count != nil:
		return k.count(out.GeneratedText)
	}
	return asked
}
