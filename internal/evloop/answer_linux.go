//go:build linux

package evloop

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/stream"
)

// This file is the loop's reading of an answer: its head, its body as the
// head frames it, the SSE events in it, and its end.

// take parses p, bytes of cl's answer.
func (l *loop) take(cn *conn, p []byte) {
	cl := cn.call
	for !cl.inBody {
		hb, from := p, 0
		if len(cl.headBuf) > 0 {
			from = resumeAt(len(cl.headBuf))
			cl.headBuf = append(cl.headBuf, p...)
			hb = cl.headBuf
		}
		// The interim heads count toward the bound, as net/http's.
		h, n, err := parseHead(hb, from, maxHead-cl.headSeen)
		if err != nil {
			l.close(cn)
			l.fail(cl, &url.Error{Op: "Post", URL: cl.url, Err: err})
			return
		}
		if n == 0 {
			if len(cl.headBuf) == 0 {
				cl.headBuf = append(make([]byte, 0, 2*len(p)), p...)
			}
			return
		}
		cl.headBuf = nil
		cl.headSeen += n
		p = hb[n:]
		if h.code >= 100 && h.code < 200 {
			// An interim answer (100 Continue): the real one follows.
			continue
		}
		l.head(cl, h)
	}
	l.body(cn, p)
}

// head takes the answer's head.
func (l *loop) head(cl *call, h head) {
	cl.inBody, cl.h, cl.left, cl.dec, cl.isChunked = true, h, h.length, chunked{}, h.chunked
	if len(h.dates) > 0 {
		l.e.c.ServerClock.Observe(&http.Response{Header: http.Header{"Date": h.dates}}, cl.out.StartTime, l.e.c.Now)
	} else {
		l.e.c.ServerClock.Observe(&http.Response{Header: http.Header{}}, cl.out.StartTime, l.e.c.Now)
	}
	if h.code != http.StatusOK {
		return
	}
	cl.st = backend.NewStream(cl.b, cl.out, cl.out.StartTime)
	if k := len(l.readers); k > 0 {
		cl.rd, l.readers = l.readers[k-1], l.readers[:k-1]
	} else {
		cl.rd = stream.NewReader(nil, 0)
	}
	cl.rd.ResetPush()
}

// body takes bytes of the body, framed as the head said.
func (l *loop) body(cn *conn, p []byte) {
	cl := cn.call
	var data []byte
	done, extra := false, false
	switch {
	case cl.isChunked:
		n, used, end, err := cl.dec.decode(p)
		if err != nil {
			// The data before a framing error is the body's, as
			// net/http's chunked reader returns it with its error: a
			// [DONE] in it ends the stream well, and the error is then
			// only the connection's end (a server that ends its last
			// chunk badly, or not at all).
			if n > 0 && !l.data(cn, p[:n]) {
				return
			}
			l.bodyEnd(cn, err, false)
			return
		}
		data, done, extra = p[:n], end, used < len(p)
	case cl.left >= 0:
		k := int(min(cl.left, int64(len(p))))
		data, extra = p[:k], k < len(p)
		cl.left -= int64(k)
		done = cl.left == 0
	default:
		data = p
	}
	if len(data) > 0 && !l.data(cn, data) {
		return
	}
	if done {
		l.bodyEnd(cn, nil, !cl.h.close && !extra)
	}
}

// data takes decoded body bytes; it reports false when the request ended.
func (l *loop) data(cn *conn, data []byte) bool {
	cl := cn.call
	switch {
	case cl.st == nil:
		// A non-200 answer: keep the start of its body for the error.
		k := backend.MaxErrorBody + 1 - len(cl.errBody)
		cl.errBody = append(cl.errBody, data[:min(k, len(data))]...)
		if len(cl.errBody) > backend.MaxErrorBody {
			// As much as the error keeps: the rest is not read.
			l.bodyEnd(cn, nil, false)
			return false
		}
		return true
	case cl.draining:
		if cl.drained += len(data); cl.drained > backend.MaxDrain {
			l.close(cn)
			l.complete(cl)
			return false
		}
		return true
	}
	cl.bodyBytes += int64(len(data))
	err := cl.rd.Feed(data, cl.emit)
	switch {
	case cl.ended && cl.endedWell:
		l.startDrain(cl)
	case cl.ended:
		cl.st.Finish()
		l.close(cn)
		l.complete(cl)
		return false
	case err != nil:
		cl.out.Error = err.Error()
		cl.st.Finish()
		l.close(cn)
		l.complete(cl)
		return false
	}
	return true
}

// startDrain finishes the record at [DONE] (or a terminal event) and
// reads on to the body's end, for at most DoneGrace and MaxDrain bytes, as
// Do does, so the connection can be reused.
func (l *loop) startDrain(cl *call) {
	cl.st.Finish()
	cl.draining = true
	e := l.e
	cl.drain = e.c.StartTimer(backend.DoneGrace, func() { e.post(message{call: cl, cause: errDrained}) })
}

// errDrained ends a drain that took too long.
var errDrained = errors.New("done draining after [DONE]")

// bodyEnd handles the end of the body: its last byte (readErr nil), a
// transport error or a malformed framing. reusable: the connection can
// carry another request.
func (l *loop) bodyEnd(cn *conn, readErr error, reusable bool) {
	cl := cn.call
	switch {
	case cl.st == nil:
		cl.out.Error = redirectError(cl.url, cl.h.code, cl.h.status, cl.h.location)
		if cl.out.Error == "" {
			cl.out.Error = backend.StatusError(cl.h.status, cl.errBody)
		}
	case cl.draining:
	default:
		err := cl.rd.End(readErr, cl.emit)
		switch {
		case cl.ended && cl.endedWell:
		case cl.ended:
			reusable = false
		case err != nil:
			cl.out.Error = err.Error()
		}
		cl.st.Finish()
	}
	if reusable {
		l.release(cn)
	} else {
		l.close(cn)
	}
	l.complete(cl)
}
