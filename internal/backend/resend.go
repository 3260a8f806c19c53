package backend

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"github.com/gobench/gobench/internal/redirect"
)

// A server may end a keep-alive connection at any moment: after an idle
// timeout, after a number of requests, or, as llama.cpp's llama-server does,
// right after every streamed answer although that answer said
// "Keep-Alive". net/http takes a connection back into its pool when the
// answer's last byte is read, so a request sent in the microseconds before
// the server's FIN arrives is written into a closed connection and fails
// with EOF, without the server having answered it. net/http re-sends only
// idempotent requests, and every request here is a POST.
//
// So the client re-sends such a request itself, once, on a new connection,
// as browsers do: only when its connection was reused and no byte of an
// answer arrived. A request that fails any other way stays a failure. The
// record stays one request: the first attempt left no token, and the
// second attempt's answer is timed from the first attempt's start.

// attempt records what net/http saw of one attempt: whether the
// connection was an idle one reused, and whether any byte of an answer
// arrived. Its fields are written by the transport's goroutines.
type attempt struct {
	reused, answered atomic.Bool
}

// trace returns ctx with hooks that fill a.
func (a *attempt) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { a.reused.Store(info.Reused) },
		GotFirstResponseByte: func() { a.answered.Store(true) },
	})
}

// resendable reports whether a failed attempt may be sent again: its
// connection was reused, nothing of an answer arrived, and the request's
// own context (the run's stop, a deadline, the read timeout) did not end
// it.
func (a *attempt) resendable(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && a.reused.Load() && !a.answered.Load()
}

// freshClient is httpClient on a transport that never reuses a
// connection: a re-sent request goes out on a new one, whatever the pool
// holds. A transport other than *http.Transport cannot be cloned, and the
// re-send then goes through httpClient (a reused connection is possible).
func (c *Client) freshClient() *http.Client {
	c.freshOnce.Do(func() {
		hc := c.HTTP
		if hc == nil {
			hc = http.DefaultClient
		}
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		t, ok := base.(*http.Transport)
		if !ok {
			c.fresh = c.httpClient()
			return
		}
		t = t.Clone()
		t.DisableKeepAlives = true
		one := *hc
		one.Transport = t
		c.fresh = redirect.Client(&one)
	})
	return c.fresh
}
