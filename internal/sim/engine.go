package sim

import (
	"context"
	"time"
)

// Request is what an Engine learns about an admitted request: enough to
// schedule it, nothing about HTTP or JSON.
type Request struct {
	// ID is the request id without the "cmpl-"/"chatcmpl-" prefix (the
	// x-request-id header when the client sent one).
	ID string
	// Received is when the server started handling the request. Timelines
	// are measured from it, so it carries Go's monotonic clock reading.
	Received time.Time
	// PromptTokens is the prompt length in tokens.
	PromptTokens int
	// OutputTokens is exactly how many tokens the request will produce; the
	// server has already decided where it stops.
	OutputTokens int

	// Queued is when the request reached the engine, after the front end
	// (Config.FrontendLatency); zero means Received. vLLM's queue interval
	// starts here.
	Queued time.Time
	// PromptIDs are the prompt's token ids, which prefix caching hashes;
	// nil when the server has none, and then the prompt shares no prefix
	// with any other.
	PromptIDs []int
	// Pooling marks an embeddings request: it needs its prompt computed and
	// then produces one output that is not a generated token.
	Pooling bool
}

// Output is one engine output of a request: what one engine step produced
// for it. The HTTP layer turns outputs into stream events, so an output of
// several tokens (speculative decoding) is one event, as in vLLM.
type Output struct {
	// Tokens is how many new tokens the output carries, at least 1.
	Tokens int
	// At is the engine's timestamp of the output: when the step that
	// produced it ended, or when a fixed-latency token was due. The gap
	// between two outputs' At is vLLM's inter-token latency sample.
	At time.Time
}

// Timing is the engine's record of one request, the instants of vLLM's
// RequestStateStats from which it derives the queue, prefill, decode and
// inference intervals and the per-request metrics object.
type Timing struct {
	// Queued is when the request entered the waiting queue.
	Queued time.Time
	// Scheduled is when it was first scheduled; a rescheduling after a
	// preemption does not move it (vLLM keeps the first SCHEDULED).
	Scheduled time.Time
	// FirstToken and LastToken are the At of its first and latest output.
	FirstToken, LastToken time.Time
	// Preemptions counts how often it was preempted.
	Preemptions int
	// CachedTokens is how many prompt tokens came from the prefix cache at
	// its first scheduling.
	CachedTokens int
}

// OutputStream is a Stream that hands out whole engine outputs and knows
// its request's engine timeline. The server uses it when an engine's
// streams implement it (the scheduler's do), and otherwise wraps Next as
// one-token outputs stamped when they arrive.
type OutputStream interface {
	Stream
	// NextOutput blocks until the request's next output and returns it, or
	// returns ctx.Err() as soon as ctx ends. Its Tokens add up to
	// Request.OutputTokens.
	NextOutput(ctx context.Context) (Output, error)
	// Timing returns the request's engine timeline so far.
	Timing() Timing
}

// Engine decides when the tokens of each request are produced. The HTTP
// layer asks for one Stream per request and waits on it once per token, so
// an engine that models vLLM's scheduler (a shared step loop, batching, KV
// cache limits, preemption, injected faults) can replace FixedLatency
// without changes to the handlers.
type Engine interface {
	// Start admits req. An error rejects the request before any token; the
	// server answers it with HTTP 500.
	Start(ctx context.Context, req Request) (Stream, error)
}

// Stream is the token timeline of one admitted request. It is used by a
// single goroutine.
type Stream interface {
	// Next blocks until the request's next token has been produced and
	// returns nil, or returns ctx.Err() as soon as ctx ends (the client went
	// away). Any other error aborts the request mid-stream; the server
	// reports it to the client as vLLM does, with an error event. Next is
	// called exactly Request.OutputTokens times unless it fails.
	Next(ctx context.Context) error
	// Close releases the stream, whether or not every token was taken.
	Close()
}

// FixedLatency is the engine with no contention: every request sees the same
// latencies however many run at once. Token k (0-based) of a request is due
// at Received + TTFT + k·ITL.
type FixedLatency struct {
	// TTFT is the delay from receipt to the first token.
	TTFT time.Duration
	// ITL is the delay between consecutive tokens.
	ITL time.Duration
}

var _ Engine = FixedLatency{}

// Start implements Engine. It never fails.
func (f FixedLatency) Start(_ context.Context, req Request) (Stream, error) {
	return &fixedStream{due: req.Received.Add(f.TTFT), itl: f.ITL, received: req.Received}, nil
}

// fixedStream sleeps to absolute deadlines. Each deadline is derived from
// the previous one by adding ITL (exact integer nanoseconds), never from the
// time the caller got around to asking, so a late wake-up or a slow client
// write does not push back the tokens after it: lateness never accumulates.
type fixedStream struct {
	due         time.Time // when the next token is due
	itl         time.Duration
	timer       *time.Timer // created on first use and reused: one per stream, not per token
	received    time.Time
	first, last time.Time // due instants of the first and latest token handed out
}

var _ OutputStream = (*fixedStream)(nil)

// Next implements Stream.
func (s *fixedStream) Next(ctx context.Context) error {
	_, err := s.NextOutput(ctx)
	return err
}

// NextOutput implements OutputStream: one token, stamped with its due time,
// so the gap between two outputs is exactly ITL whatever the wake-up delay.
func (s *fixedStream) NextOutput(ctx context.Context) (Output, error) {
	due := s.due
	s.due = due.Add(s.itl)
	if err := s.sleepUntil(ctx, due); err != nil {
		return Output{}, err
	}
	if s.first.IsZero() {
		s.first = due
	}
	s.last = due
	return Output{Tokens: 1, At: due}, nil
}

func (s *fixedStream) sleepUntil(ctx context.Context, due time.Time) error {
	wait := time.Until(due)
	if wait <= 0 {
		// Already due (ITL 0, or running behind): emit at once, but still
		// notice a client that has gone away.
		return ctx.Err()
	}
	if s.timer == nil {
		s.timer = time.NewTimer(wait)
	} else {
		// Since Go 1.23 Reset discards any stale tick, so no drain dance.
		s.timer.Reset(wait)
	}
	select {
	case <-s.timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Timing implements OutputStream. The fixed-latency engine has no queue:
// a request is queued and scheduled on receipt.
func (s *fixedStream) Timing() Timing {
	return Timing{Queued: s.received, Scheduled: s.received, FirstToken: s.first, LastToken: s.last}
}

// Close implements Stream.
func (s *fixedStream) Close() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
