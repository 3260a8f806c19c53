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
	return &fixedStream{due: req.Received.Add(f.TTFT), itl: f.ITL}, nil
}

// fixedStream sleeps to absolute deadlines. Each deadline is derived from
// the previous one by adding ITL (exact integer nanoseconds), never from the
// time the caller got around to asking, so a late wake-up or a slow client
// write does not push back the tokens after it: lateness never accumulates.
type fixedStream struct {
	due   time.Time // when the next token is due
	itl   time.Duration
	timer *time.Timer // created on first use and reused: one per stream, not per token
}

// Next implements Stream.
func (s *fixedStream) Next(ctx context.Context) error {
	due := s.due
	s.due = due.Add(s.itl)
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

// Close implements Stream.
func (s *fixedStream) Close() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
