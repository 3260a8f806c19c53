package backend

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/stream"
)

// This file holds what Client.Do shares with gobench's other client engine
// (package evloop, --client-engine epoll): the record a request starts
// from, its headers, the per-event step and the texts of its errors, so
// that both engines build the same records from the same bytes.

// NewOutput is the record a request starts from, before it is sent.
func NewOutput(b Backend, req *Request) metrics.Output {
	var out metrics.Output
	startOutput(&out, b, req)
	return out
}

// startOutput makes *out the record a request starts from (NewOutput) in
// place: Client.Do builds it in its result, so that no frame under an idle
// stream holds a copy (see Client.Do on the stack of an idle stream).
func startOutput(out *metrics.Output, b Backend, req *Request) {
	*out = metrics.Output{}
	out.PromptLen, out.InputAudioDuration = req.PromptLen, req.AudioDuration
	_, pooling := b.(Pooler)
	if pooling {
		// _run_pooling_request starts from RequestFuncOutput(): a failed
		// pooling request has prompt_len 0.
		out.PromptLen = 0
	}
	if req.OutputLen > 1 && !pooling {
		// One gap per token after the first, allocated once: growing the
		// slice while streaming would copy it log(n) times per request.
		out.ITL = make([]float64, 0, min(req.OutputLen-1, 1<<16))
	}
}

// RequestHeaders are the headers Do sends with body for req: Headers with
// the body's content type (see ContentTyper).
func (c *Client) RequestHeaders(b Backend, req *Request, body []byte) http.Header {
	contentType := "application/json"
	if ct, ok := b.(ContentTyper); ok {
		contentType = ct.ContentType(body)
	}
	return c.headers(contentType, req.ExtraHeaders, req.RequestID)
}

// StopText is the record's error for a request that a bound stopped:
// cause is ErrNoProgress (idleBytes arrived since the last progress),
// ErrDeadline or context.Canceled (the run was interrupted); any other
// cause is its own text.
func (c *Client) StopText(cause error, idleBytes int64) string {
	switch {
	case errors.Is(cause, ErrNoProgress):
		if idleBytes > 0 {
			return fmt.Sprintf("timed out: no token from the server for %s, only %d bytes without one (SSE comments, empty chunks) (--read-timeout / VLLM_BENCH_SOCK_READ)", c.ReadTimeout, idleBytes)
		}
		return fmt.Sprintf("timed out: no data from the server for %s (--read-timeout / VLLM_BENCH_SOCK_READ)", c.ReadTimeout)
	case errors.Is(cause, ErrDeadline):
		return fmt.Sprintf("timed out: the request did not finish within %s (--request-timeout)", c.Deadline)
	case errors.Is(cause, context.Canceled):
		return "cancelled: the run was interrupted before this request finished"
	}
	return cause.Error()
}

// Stream turns the events of one streamed answer into its record, as
// Client.Do does: the epoll engine feeds it the events it parses.
type Stream struct {
	b     Backend
	tm    timing
	chunk Chunk
}

// NewStream starts the record out of a request sent at clock reading start
// whose answer is a stream of events (b is not a Pooler).
func NewStream(b Backend, out *metrics.Output, start float64) *Stream {
	return &Stream{b: b, tm: newTiming(b, out, start)}
}

// Event takes one event read at clock reading ts. It reports whether the
// event is progress for the read timeout, whether the stream ended there,
// and whether it ended well ([DONE] or a terminal event); an event that
// ends it badly sets the record's Error.
func (s *Stream) Event(ev stream.Event, ts float64) (progress, end, done bool) {
	return step(s.b, ev, ts, &s.chunk, &s.tm)
}

// Finish completes the record (its text, latency and verdict) once the
// stream ended, however it ended; an Error set before stays.
func (s *Stream) Finish() { s.tm.finish() }

// newTiming starts the timing of a stream sent at clock reading start.
func newTiming(b Backend, out *metrics.Output, start float64) timing {
	var tm timing
	tm.begin(b, out, start)
	return tm
}

// begin makes t the timing of a stream sent at clock reading start, in
// place: Client.Do's frame holds it for as long as the stream is idle, and
// a copy made by value would be a second one beside it.
func (t *timing) begin(b Backend, out *metrics.Output, start float64) {
	t.out, t.start, t.last = out, start, start
	if ts, ok := b.(terminalStream); ok {
		t.needTerminal = ts.EndsWithTerminalEvent()
	}
}
