package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/redirect"
	"github.com/gobench/gobench/internal/stream"
)

// NoTokenError is vLLM's message for a stream without a token event, kept
// byte for byte (including the missing space after the first period) so
// error summaries match.
const NoTokenError = "Never received a valid chunk to calculate TTFT.This response will be marked as failed!"

// MaxErrorBody bounds how much of a non-200 body is kept in the error.
const MaxErrorBody = 2048

// Client sends requests and times them.
type Client struct {
	// HTTP sends the requests. It must not have a Timeout: that would bound
	// reading the stream too (Deadline is the bound on a whole request).
	// Its CheckRedirect is not used: Do follows redirects only as package
	// redirect allows, so the user's headers never reach another host.
	HTTP *http.Client
	// Now reads the run's monotonic clock in seconds.
	Now func() float64
	// APIKey, when set, is sent as "Authorization: Bearer <key>"
	// (vLLM reads OPENAI_API_KEY). It is never logged.
	APIKey string
	// ReadTimeout, when > 0, fails a request that makes no progress for
	// that long: no token event, usage event or [DONE] since it was sent
	// or since the previous one (vLLM's VLLM_BENCH_SOCK_READ). aiohttp
	// applies it to every socket read, so a server that sends SSE comments
	// or empty chunks as keep-alives holds a stalled request open forever;
	// gobench counts progress, not bytes.
	ReadTimeout time.Duration
	// Deadline, when > 0, bounds a whole request, from sending it to its
	// last event, so a server that streams forever cannot hang a run
	// (--request-timeout; vLLM's aiohttp session has a total timeout of 6
	// hours, vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169
	// AIOHTTP_TIMEOUT). 0 means none at this level.
	Deadline time.Duration

	// ServerClock, when set, records the server's Date headers against
	// Now (a shard's run: gobench merge bounds the clock skew with them).
	ServerClock *ServerClock

	// AfterFunc starts the timers that bound a request (ReadTimeout,
	// Deadline, the drain after [DONE]); nil means time.AfterFunc. Tests
	// run them on a scripted clock, so that whether a timeout fires does
	// not depend on how loaded the machine is.
	AfterFunc func(d time.Duration, f func()) Timer

	// safe is HTTP with package redirect's rule, made once (safeOnce).
	safe     *http.Client
	safeOnce sync.Once
	// fresh sends re-sent requests, each on a new connection (resend.go).
	fresh     *http.Client
	freshOnce sync.Once
}

// Timer is a started timer that can be restarted or stopped, as
// *time.Timer is.
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// StartTimer starts a timer through AfterFunc, or time.AfterFunc: the
// epoll engine bounds its requests with the same seam.
func (c *Client) StartTimer(d time.Duration, f func()) Timer {
	return c.afterFunc(d, f)
}

// afterFunc starts a timer through AfterFunc, or time.AfterFunc.
func (c *Client) afterFunc(d time.Duration, f func()) Timer {
	if c.AfterFunc != nil {
		return c.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// httpClient is HTTP following redirects only as package redirect allows;
// it is built on the first request, not on every one.
func (c *Client) httpClient() *http.Client {
	c.safeOnce.Do(func() { c.safe = redirect.Client(c.HTTP) })
	return c.safe
}

var readerPool = sync.Pool{New: func() any { return stream.NewReader(nil, 0) }}

// The causes of a request's cancellation that Do itself decides
// (ErrNoProgress and ErrDeadline are the epoll engine's too).
var (
	// ErrNoProgress: no token, usage or terminal event within ReadTimeout.
	ErrNoProgress = errors.New("no progress within the read timeout")
	// ErrDeadline: the request did not finish within Deadline.
	ErrDeadline = errors.New("the request's deadline passed")
	errDrained  = errors.New("done draining after [DONE]")
)

// After [DONE], Do reads what the server still sends for at most
// DoneGrace and MaxDrain bytes, so that the connection can be reused: a
// server ends its response right after [DONE] (microseconds), and one that
// keeps it open or keeps sending must not hold the request.
const (
	// DoneGrace bounds the time spent draining after [DONE].
	DoneGrace = 250 * time.Millisecond
	// MaxDrain bounds the bytes drained after [DONE].
	MaxDrain = 64 << 10
)

// ContentTyper is implemented by a Backend whose body is not JSON
// (openai-audio's multipart form): Client.Do sends ContentType(body) as
// the Content-Type instead of application/json. --header values still
// override it, as in vLLM.
type ContentTyper interface {
	ContentType(body []byte) string
}

// Checker is implemented by Backends that cannot send some requests at
// all: openai-audio without a clip (vLLM raises TypeError before its try
// block), vllm-rerank without documents, infinity without text or one
// media item (vLLM asserts). vLLM finds out in the middle of the run; the
// run asks Check of every request before sending anything, so the mistake
// is reported at once and names what the request lacks.
type Checker interface {
	// Check reports why req cannot be sent by this backend, or nil.
	Check(req *Request) error
}

// Check asks b whether it can send req (see Checker); a Backend without
// the method can send every request.
func Check(b Backend, req *Request) error {
	if c, ok := b.(Checker); ok {
		return c.Check(req)
	}
	return nil
}

// Headers returns the headers of a JSON request, in vLLM's precedence:
// Content-Type and Authorization, then --header values (which override
// them), then x-request-id.
func (c *Client) Headers(extra []Header, requestID string) http.Header {
	return c.headers("application/json", extra, requestID)
}

// headers is Headers with the body's content type.
func (c *Client) headers(contentType string, extra []Header, requestID string) http.Header {
	h := make(http.Header, 4+len(extra))
	h.Set("Content-Type", contentType)
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	for _, e := range extra {
		h.Set(e.Key, e.Value)
	}
	if requestID != "" {
		h.Set("X-Request-Id", requestID)
	}
	return h
}

// Do sends one request whose payload is body and returns its record. It
// never returns an error: a failure of any kind is data in the record
// (Success false, Error set), as vLLM's request functions do.
//
// Timing (subtleness ahead): StartTime is read immediately before the
// request is handed to the transport, after the caller acquired its
// concurrency slot. Each stream event is timestamped once, as soon as the
// reader returns it and before its JSON is decoded, so decoding cost never
// shifts a timestamp. TTFT is the first token event's timestamp minus
// StartTime, each ITL the gap between consecutive token events, and Latency
// the last token event's timestamp minus StartTime; the usage event does not
// extend it. Hence Latency - TTFT = sum(ITL) up to float rounding.
//
// A Responses stream ends with a terminal event instead of [DONE]; its
// Latency runs to that event (see Responses).
//
// The request ends at [DONE], at a terminal event, at the end of the body,
// at an error event, or when ReadTimeout or Deadline runs out.
func (c *Client) Do(ctx context.Context, b Backend, req *Request, body []byte) (out metrics.Output) {
	startOutput(&out, b, req)
	ctx, cancel := c.bound(ctx)
	defer cancel(nil)
	wd := c.newWatchdog(cancel)
	defer wd.stop()
	resp := c.send(ctx, b, req, body, &out, wd)
	if resp == nil {
		return out
	}
	defer resp.Body.Close()
	if pooler, pooling := b.(Pooler); pooling {
		c.readWhole(ctx, pooler, resp.Body, &out, wd)
		return out
	}
	wd.body = &countingReader{r: resp.Body}
	rd := readerPool.Get().(*stream.Reader)
	rd.Reset(wd.body)
	defer func() { rd.Reset(nil); readerPool.Put(rd) }()

	var tm timing
	tm.begin(b, &out, out.StartTime)
	done := c.read(ctx, b, rd, &tm, wd)
	tm.finish()
	if done {
		c.drain(resp.Body, cancel)
	}
	return out
}

// reply is a round trip's answer, as roundTrip hands it to send.
type reply struct {
	resp *http.Response
	err  error
	// st is the clock reading taken immediately before the request was
	// handed to the transport: the record's StartTime.
	st float64
	// resend: the attempt failed in a way that allows one more (resend.go).
	resend bool
}

// send sends the request and returns its response when the status is 200;
// otherwise it returns nil with out.Error set. out.StartTime is set either
// way.
func (c *Client) send(ctx context.Context, b Backend, req *Request, body []byte, out *metrics.Output, wd *watchdog) *http.Response {
	r, sb := c.try(ctx, b, req, body, c.httpClient())
	out.StartTime = r.st
	if r.resend {
		// See resend.go: the first attempt's start stays the record's.
		out.Resent = true
		r, sb = c.try(ctx, b, req, body, c.freshClient())
	}
	if r.err != nil {
		out.Error = c.describe(ctx, r.err, wd)
		return nil
	}
	if r.resp.StatusCode != http.StatusOK {
		out.Error = statusError(r.resp)
		_ = r.resp.Body.Close()
		return nil
	}
	// The answer is in: nothing sends the body again (sentBody).
	sb.release()
	return r.resp
}

// try sends the request once through hc and reports whether a failure
// may be re-sent (resend.go).
func (c *Client) try(ctx context.Context, b Backend, req *Request, body []byte, hc *http.Client) (reply, *sentBody) {
	var at attempt
	hreq, err := http.NewRequestWithContext(at.trace(ctx), http.MethodPost, req.APIURL, nil)
	if err != nil {
		return reply{err: fmt.Errorf("build request: %w", err), st: c.Now()}, nil
	}
	sb := setBody(hreq, body)
	hreq.Header = c.RequestHeaders(b, req, body)
	replies := make(chan reply, 1)
	go c.roundTrip(hc, hreq, replies)
	r := <-replies
	r.resend = at.resendable(ctx, r.err)
	return r, sb
}

// roundTrip sends hreq and hands the answer to replies, on a goroutine of
// its own that ends with the round trip, so that the stack the round trip
// grows is not kept by the request's goroutine for as long as it streams.
func (c *Client) roundTrip(hc *http.Client, hreq *http.Request, replies chan<- reply) {
	st := c.Now()
	resp, err := hc.Do(hreq)
	c.ServerClock.Observe(resp, st, c.Now)
	replies <- reply{resp: resp, err: err, st: st}
}

// bound derives the request's context: cancelled with a cause by the
// watchdog, after [DONE], or by a timer when Deadline passes. One context
// and a timer, not a deadline context under a cancellable one: every
// context level costs a request its own allocations (the context, its
// channel, its parent's map of children) for as long as it streams.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if c.Deadline <= 0 {
		return ctx, cancel
	}
	t := c.afterFunc(c.Deadline, func() { cancel(ErrDeadline) })
	return ctx, func(cause error) { cancel(cause); t.Stop() }
}

// read takes the events of the stream into tm until the stream ends, and
// reports whether it ended with [DONE] or a terminal event.
func (c *Client) read(ctx context.Context, b Backend, rd *stream.Reader, tm *timing, wd *watchdog) (done bool) {
	var chunk Chunk
	for {
		ev, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				tm.out.Error = c.describe(ctx, err, wd)
			}
			return false
		}
		progress, end, done := step(b, ev, c.Now(), &chunk, tm)
		if progress {
			wd.progress()
		}
		if end {
			return done
		}
	}
}

// step takes one event, read at clock reading ts, into tm (decoding it into
// chunk): the per-event work of both client engines, so that they build the
// same records. It reports whether the event is progress for the read
// timeout (a token, usage or terminal event), whether the stream ended
// there, and whether it ended well ([DONE] or a terminal event); an event
// that ends it badly sets tm.out.Error.
func step(b Backend, ev stream.Event, ts float64, chunk *Chunk, tm *timing) (progress, end, done bool) {
	if string(ev.Data) == "[DONE]" {
		return false, true, true
	}
	if err := b.Decode(ev.Type, ev.Data, chunk); err != nil {
		tm.out.Error = err.Error()
		return false, true, false
	}
	if chunk.Error != "" {
		tm.out.Error = "server error event: " + chunk.Error
		return false, true, false
	}
	progress = chunk.Token || chunk.Usage || chunk.Terminal
	tm.add(ts, chunk)
	return progress, chunk.Terminal, chunk.Terminal
}

// maxPoolingBody bounds a pooling answer, which is read whole: a server
// that streams an endless body fails that request instead of exhausting
// memory. One answer holds the vectors of one request's input (a 4096-wide
// embedding is about 80 KB of JSON), so the bound is never near.
const maxPoolingBody = 64 << 20

// readWhole takes a pooling answer (see Pooler): the body is read to its
// end before the clock is read, so the latency includes its download
// (vLLM's later _run_pooling_request, erf.py@02cfb534; the baseline
// 11dfa3169 read the clock at the headers and left the vectors' download
// out of E2EL). TTFT equals the latency, and the prompt length is the
// server's usage.prompt_tokens, 0 without usage, as in vLLM.
func (c *Client) readWhole(ctx context.Context, b Pooler, body io.Reader, out *metrics.Output, wd *watchdog) {
	data, err := io.ReadAll(io.LimitReader(body, maxPoolingBody+1))
	ts := c.Now()
	if err != nil {
		out.Error = c.describe(ctx, err, wd)
		return
	}
	if len(data) > maxPoolingBody {
		out.Error = fmt.Sprintf("the answer is larger than %d MiB, the most gobench reads from a pooling answer", maxPoolingBody>>20)
		return
	}
	out.TTFT, out.Latency = ts-out.StartTime, ts-out.StartTime
	var chunk Chunk
	if err := b.Decode("", data, &chunk); err != nil {
		out.Error = err.Error()
		return
	}
	if chunk.Error != "" {
		out.Error = "server error: " + chunk.Error
		return
	}
	out.PromptLen = chunk.PromptTokens
	out.Success = true
}

// drain reads what follows [DONE] (normally only the end of the body), for
// at most DoneGrace and MaxDrain bytes, so that the connection goes back to
// the pool; past either bound the request's context is cancelled and the
// connection closed.
func (c *Client) drain(body io.Reader, cancel context.CancelCauseFunc) {
	t := c.afterFunc(DoneGrace, func() { cancel(errDrained) })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, MaxDrain))
}

// watchdog cancels a request that makes no progress for ReadTimeout. The
// timer starts before the request is sent, so the wait for the first token
// counts too.
type watchdog struct {
	t Timer
	d time.Duration
	// body counts the bytes of the response; mark is its count at the last
	// progress. Both belong to Do's goroutine.
	body *countingReader
	mark int64
}

func (c *Client) newWatchdog(cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{d: c.ReadTimeout}
	if w.d > 0 {
		w.t = c.afterFunc(w.d, func() { cancel(ErrNoProgress) })
	}
	return w
}

// progress restarts the wait: a token, usage or final event arrived.
func (w *watchdog) progress() {
	if w.t == nil {
		return
	}
	w.t.Reset(w.d)
	if w.body != nil {
		w.mark = w.body.n
	}
}

// idleBytes is how many bytes arrived since the last progress.
func (w *watchdog) idleBytes() int64 {
	if w.body == nil {
		return 0
	}
	return w.body.n - w.mark
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// timing builds one request's record from its events, in the order they
// arrived.
type timing struct {
	out *metrics.Output
	// start is the clock reading when the request was sent; last the
	// reading of the last token event so far.
	start, last float64
	gotToken    bool
	text        strings.Builder
	// needTerminal: the stream must end with a terminal event (Responses);
	// end is that event's clock reading once it arrived (gotTerminal).
	needTerminal, gotTerminal bool
	end                       float64
}

// add takes one decoded event read at clock reading ts.
func (t *timing) add(ts float64, c *Chunk) {
	out := t.out
	serverSeconds(c.ServerQueueMS, &out.ServerQueueTime)
	serverSeconds(c.ServerTTFTMS, &out.ServerTTFT)
	serverSeconds(c.ServerPromptMS, &out.ServerPromptTime)
	serverSeconds(c.ServerDecodeMS, &out.ServerDecodeTime)
	if c.Token {
		if !t.gotToken {
			t.gotToken = true
			out.TTFT = ts - t.start
		} else {
			out.ITL = append(out.ITL, ts-t.last)
		}
		t.last = ts
		t.text.WriteString(c.Text)
	}
	if c.Terminal {
		t.end, t.gotTerminal = ts, true
	}
	if c.Usage || (c.Token && c.CompletionTokens >= 0) {
		if c.CompletionTokens >= 0 {
			out.OutputTokens = c.CompletionTokens
		}
		if c.PromptTokens >= 0 {
			out.PromptLen = c.PromptTokens
		}
		if c.CachedTokens >= 0 {
			v := c.CachedTokens
			out.CachedTokens = &v
		}
	}
}

// serverSeconds sets *dst to ms in seconds when the event carried it (ms
// >= 0; -1 is absent).
func serverSeconds(ms float64, dst **float64) {
	if ms >= 0 {
		v := ms / 1000
		*dst = &v
	}
}

// finish completes the record: the text, the latency (to the last token
// event, or to the terminal event of a stream that has one, as the later
// vLLM's Responses function measures it) and the verdict (a stream without
// a token event failed, and so did one without its terminal event).
func (t *timing) finish() {
	out := t.out
	out.GeneratedText = t.text.String()
	out.Latency = t.last - t.start
	if t.gotTerminal {
		out.Latency = t.end - t.start
	}
	switch {
	case out.Error != "":
	case !t.gotToken:
		out.Error = NoTokenError
	case t.needTerminal && !t.gotTerminal:
		out.Error = NoTerminalEventError
	}
	out.Success = out.Error == ""
}

// describe turns a transport error into the text kept in the record,
// saying which bound ended the request.
func (c *Client) describe(ctx context.Context, err error, wd *watchdog) string {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, ErrNoProgress), errors.Is(cause, ErrDeadline):
		return c.StopText(cause, wd.idleBytes())
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return c.StopText(context.Canceled, 0)
	}
	var re *redirect.Error
	if errors.As(err, &re) {
		return re.Error()
	}
	return err.Error()
}

// statusError describes a non-200 answer: vLLM keeps only the reason phrase;
// gobench keeps the status and the start of the body too, which is where
// servers say what was wrong.
func statusError(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody+1))
	return StatusError(resp.Status, b)
}

// StatusError is the record's error for a non-200 answer whose status
// line reads status ("404 Not Found") and whose body starts with body (at
// most MaxErrorBody+1 bytes of it are kept).
func StatusError(status string, body []byte) string {
	msg := status
	if t := strings.TrimSpace(string(body)); t != "" {
		if len(t) > MaxErrorBody {
			t = t[:MaxErrorBody] + "…"
		}
		msg += ": " + t
	}
	return "HTTP " + msg
}
