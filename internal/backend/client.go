package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/stream"
)

// NoTokenError is vLLM's message for a stream without a token event, kept
// byte for byte (including the missing space after the first period) so
// error summaries match.
const NoTokenError = "Never received a valid chunk to calculate TTFT.This response will be marked as failed!"

// maxErrorBody bounds how much of a non-200 body is kept in the error.
const maxErrorBody = 2048

// Client sends requests and times them.
type Client struct {
	// HTTP sends the requests. It must not have a Timeout: that would bound
	// reading the stream too.
	HTTP *http.Client
	// Now reads the run's monotonic clock in seconds.
	Now func() float64
	// APIKey, when set, is sent as "Authorization: Bearer <key>"
	// (vLLM reads OPENAI_API_KEY). It is never logged.
	APIKey string
	// ReadTimeout, when > 0, fails a request that receives no bytes for that
	// long (vLLM's VLLM_BENCH_SOCK_READ), so a stalled stream cannot hang
	// the run.
	ReadTimeout time.Duration
}

var readerPool = sync.Pool{New: func() any { return stream.NewReader(nil, 0) }}

// Headers returns the headers of a request, in vLLM's precedence:
// Content-Type and Authorization, then --header values (which override
// them), then x-request-id.
func (c *Client) Headers(extra []Header, requestID string) http.Header {
	h := make(http.Header, 4+len(extra))
	h.Set("Content-Type", "application/json")
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
func (c *Client) Do(ctx context.Context, b Backend, req *Request, body []byte) metrics.Output {
	out := metrics.Output{PromptLen: req.PromptLen}
	if req.OutputLen > 1 {
		// One gap per token after the first, allocated once: growing the
		// slice while streaming would copy it log(n) times per request.
		out.ITL = make([]float64, 0, min(req.OutputLen-1, 1<<16))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	var timer *time.Timer
	if c.ReadTimeout > 0 {
		timer = time.AfterFunc(c.ReadTimeout, func() { timedOut.Store(true); cancel() })
		defer timer.Stop()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, req.APIURL, bytes.NewReader(body))
	if err != nil {
		out.Error = fmt.Sprintf("build request: %v", err)
		return out
	}
	hreq.Header = c.Headers(req.ExtraHeaders, req.RequestID)

	st := c.Now()
	out.StartTime = st
	resp, err := c.HTTP.Do(hreq)
	if err != nil {
		out.Error = c.describe(ctx, err, &timedOut)
		return out
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		out.Error = statusError(resp)
		return out
	}
	var r io.Reader = resp.Body
	if timer != nil {
		timer.Reset(c.ReadTimeout)
		r = &deadlineReader{r: resp.Body, t: timer, d: c.ReadTimeout}
	}
	rd := readerPool.Get().(*stream.Reader)
	rd.Reset(r)
	defer func() { rd.Reset(nil); readerPool.Put(rd) }()

	tm := timing{out: &out, start: st, last: st}
	var chunk Chunk
	for {
		ev, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				out.Error = c.describe(ctx, err, &timedOut)
			}
			break
		}
		ts := c.Now()
		if string(ev.Data) == "[DONE]" {
			continue
		}
		if err := b.Decode(ev.Type, ev.Data, &chunk); err != nil {
			out.Error = err.Error()
			break
		}
		if chunk.Error != "" {
			out.Error = "server error event: " + chunk.Error
			break
		}
		tm.add(ts, &chunk)
	}
	tm.finish()
	return out
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
}

// add takes one decoded event read at clock reading ts.
func (t *timing) add(ts float64, c *Chunk) {
	out := t.out
	if c.ServerQueueMS >= 0 {
		v := c.ServerQueueMS / 1000
		out.ServerQueueTime = &v
	}
	if c.ServerTTFTMS >= 0 {
		v := c.ServerTTFTMS / 1000
		out.ServerTTFT = &v
	}
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

// finish completes the record: the text, the latency (to the last token
// event) and the verdict (a stream without a token event failed).
func (t *timing) finish() {
	out := t.out
	out.GeneratedText = t.text.String()
	out.Latency = t.last - t.start
	if out.Error == "" && !t.gotToken {
		out.Error = NoTokenError
	}
	out.Success = out.Error == ""
}

// describe turns a transport error into the text kept in the record.
func (c *Client) describe(ctx context.Context, err error, timedOut *atomic.Bool) string {
	switch {
	case timedOut.Load():
		return fmt.Sprintf("timed out: no data from the server for %s (--read-timeout / VLLM_BENCH_SOCK_READ)", c.ReadTimeout)
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return "cancelled: the run was interrupted before this request finished"
	}
	return err.Error()
}

// statusError describes a non-200 answer: vLLM keeps only the reason phrase;
// gobench keeps the status and the start of the body too, which is where
// servers say what was wrong.
func statusError(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	msg := resp.Status
	if t := strings.TrimSpace(string(b)); t != "" {
		if len(t) > maxErrorBody {
			t = t[:maxErrorBody] + "…"
		}
		msg += ": " + t
	}
	return "HTTP " + msg
}

// deadlineReader re-arms the read-timeout timer before every read.
type deadlineReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	d.t.Reset(d.d)
	return d.r.Read(p)
}
