//go:build linux

package evloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/stream"
)

// readBuf is the loop's one read buffer, shared by every connection: one
// read(2) per ready socket takes up to this much, whatever the number of
// events in it.
const readBuf = 64 << 10

// yieldEvery is how often the loop yields its P (see run): inside the
// runtime's 10 ms preemption slice (forcePreemptNS), and rare because a
// yield of a goroutine locked to its thread hands the thread over twice
// (1.8 % of the loop's CPU profile at 2 ms, 1.0 % at 5 ms).
const yieldEvery = 5 * time.Millisecond

// Engine sends requests from one event-loop goroutine (see the package
// doc). Its methods are safe for concurrent use; Close ends it.
type Engine struct {
	c    *backend.Client
	dns  *resolver
	epfd int
	// wake is an eventfd the loop polls with the sockets: posting a
	// message writes to it.
	wake int

	mu     sync.Mutex
	inbox  []message
	closed bool
	// exited is closed when the loop has returned.
	exited chan struct{}
}

// message is what the loop is told: send call (cause nil), or stop it
// for cause (a timer, the context, the engine's end).
type message struct {
	call  *call
	cause error
}

// New starts an Engine that times and bounds requests as c does (its Now,
// ReadTimeout, Deadline, AfterFunc seam, headers and API key); c's HTTP
// client is not used.
func New(c *backend.Client) (*Engine, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		_ = unix.Close(epfd)
		_ = unix.Close(wake)
		return nil, fmt.Errorf("epoll_ctl: %w", err)
	}
	e := &Engine{c: c, dns: newResolver(c.Now), epfd: epfd, wake: wake, exited: make(chan struct{})}
	l := &loop{e: e, idle: map[string][]*conn{}, buf: make([]byte, readBuf)}
	go l.run()
	return e, nil
}

// Close ends the loop: requests still in flight fail, every connection is
// closed. It waits for the loop to return.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		<-e.exited
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.signal()
	<-e.exited
	return nil
}

// post hands m to the loop. After Close a new request fails at once and a
// cancellation is dropped (its request has failed already).
func (e *Engine) post(m message) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		if m.cause == nil {
			m.call.out.Error = errClosed.Error()
			close(m.call.done)
		}
		return
	}
	e.inbox = append(e.inbox, m)
	first := len(e.inbox) == 1
	e.mu.Unlock()
	// Only the message that found the inbox empty wakes the loop: the
	// loop reads the eventfd before it takes the inbox, so none is missed.
	if first {
		e.signal()
	}
}

func (e *Engine) signal() {
	one := [8]byte{1}
	_, _ = unix.Write(e.wake, one[:])
}

// Do sends one request and returns its record, as backend.Client.Do does
// (see there for the timing), but through the loop: the calling goroutine
// only waits for the record.
func (e *Engine) Do(ctx context.Context, b backend.Backend, req *backend.Request, body []byte) metrics.Output {
	wire, addr, err := prepare(e.c, e.dns, b, req, body)
	if err != nil {
		return failed(b, req, err)
	}
	return e.do(ctx, b, req, wire, addr)
}

// do is Do of the request's bytes on the wire (its head and body) to addr.
// The loop lets go of wire once the answer has begun (see read), so do's
// caller must not keep it either.
func (e *Engine) do(ctx context.Context, b backend.Backend, req *backend.Request, wire []byte, addr *net.TCPAddr) metrics.Output {
	out := backend.NewOutput(b, req)
	cl := &call{b: b, url: req.APIURL, addr: addr, key: addr.String(), wire: wire, out: &out, done: make(chan struct{})}
	cl.emit = cl.event
	// The bounds start before the request is sent, as Do's do, so the
	// wait for the first token counts.
	stop := func(cause error) func() { return func() { e.post(message{call: cl, cause: cause}) } }
	if d := e.c.ReadTimeout; d > 0 {
		cl.idle, cl.idleFor = e.c.StartTimer(d, stop(backend.ErrNoProgress)), d
	}
	if d := e.c.Deadline; d > 0 {
		t := e.c.StartTimer(d, stop(backend.ErrDeadline))
		defer t.Stop()
	}
	unwatch := context.AfterFunc(ctx, stop(context.Canceled))
	e.post(message{call: cl})
	<-cl.done
	unwatch()
	if cl.idle != nil {
		cl.idle.Stop()
	}
	return out
}

// call is one request in the loop. Everything but done's closing belongs
// to the loop goroutine once posted.
//
// The fields an event touches come first, in its first 152 bytes (three
// cache lines, where they were spread over all six): at 512 streams every
// call is cold in the cache when its next event comes, and each line they
// are spread over is one more miss.
type call struct {
	// Read for every event.
	conn    *conn
	wire    []byte
	written int
	st      *backend.Stream
	rd      *stream.Reader
	emit    func(stream.Event) bool
	// ts is the clock reading of the read being parsed.
	ts float64
	// bodyBytes counts the body's bytes, mark its count at the last
	// progress (the read timeout's message says how many came since).
	bodyBytes, mark int64
	// left is what is left of a Content-Length body.
	left int64
	dec  chunked
	idle backend.Timer
	// gotByte: a byte of the answer arrived (no retry after that).
	gotByte bool
	inBody  bool
	// isChunked is h.chunked, kept where an event reads it.
	isChunked bool
	// finished: done is closed (a late timer's message is ignored).
	finished bool
	// ended, endedWell: an event ended the stream (well: [DONE] or a
	// terminal event); draining: the rest of the body is being read so
	// the connection can be reused, drained bytes so far.
	ended, endedWell, draining bool

	// Read once per request, or on its way out.
	b       backend.Backend
	url     string
	addr    *net.TCPAddr
	key     string
	out     *metrics.Output
	done    chan struct{}
	idleFor time.Duration
	// drain bounds the read after [DONE] (backend.DoneGrace).
	drain   backend.Timer
	drained int
	headBuf []byte
	// headSeen counts the bytes of the answer's heads taken so far (its
	// interim ones): all of them are bound by maxHead.
	headSeen int
	h        head
	errBody  []byte
	e        *Engine
}

// event takes one SSE event into the record (stream.Reader's emit).
func (cl *call) event(ev stream.Event) bool {
	progress, end, done := cl.st.Event(ev, cl.ts)
	if progress {
		cl.mark = cl.bodyBytes
		if cl.idle != nil {
			cl.idle.Reset(cl.idleFor)
		}
	}
	if end {
		cl.ended, cl.endedWell = true, done
		return false
	}
	return true
}

// loop is the state the loop goroutine owns.
type loop struct {
	e     *Engine
	conns fdTable
	// idle holds the kept-alive connections by server address.
	idle map[string][]*conn
	buf  []byte
	// readers are SSE readers to reuse.
	readers []*stream.Reader
}

func (l *loop) run() {
	// One thread: the loop never blocks anywhere but in epoll_wait, and
	// keeping it on its thread spares the scheduler a handoff per wait.
	runtime.LockOSThread()
	defer close(l.e.exited)
	defer l.shutdown()
	events := make([]unix.EpollEvent, 256)
	yielded := time.Now()
	for {
		// The loop gives up its P now and then, although nothing else
		// waits for it. A goroutine that only makes system calls is never
		// rescheduled, so its P's schedtick stands still; after 10 ms of
		// that the runtime's sysmon takes it for a goroutine that hogs its
		// P and preempts it (a signal, then the locked thread's hand-off),
		// and each of those keeps sysmon itself waking every 20 µs instead
		// of backing off to 10 ms. Yielding every yieldEvery advances the
		// schedtick first. Measured at 512 streams: sysmon's share of this
		// loop's CPU profile fell from 6.7 % to 0.5 %, and the bare loop of
		// tools/simbench, which yields the same way, spends about a fifth
		// less per event.
		if time.Since(yielded) >= yieldEvery {
			runtime.Gosched()
			yielded = time.Now()
		}
		n, err := unix.EpollWait(l.e.epfd, events, -1)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd == l.e.wake {
				if !l.inbox() {
					return
				}
				continue
			}
			if cn := l.conns.get(fd); cn != nil {
				l.ready(cn, ev.Events)
			}
		}
	}
}

// inbox takes the messages posted; it reports false when the engine is
// closed.
func (l *loop) inbox() bool {
	var b [8]byte
	_, _ = unix.Read(l.e.wake, b[:])
	l.e.mu.Lock()
	msgs, closed := l.e.inbox, l.e.closed
	l.e.inbox = nil
	l.e.mu.Unlock()
	for _, m := range msgs {
		switch {
		case m.call.finished:
		case m.cause == nil:
			l.start(m.call)
		default:
			l.stop(m.call, m.cause)
		}
	}
	return !closed
}

// shutdown fails what is in flight and closes every connection.
func (l *loop) shutdown() {
	l.e.mu.Lock()
	msgs := l.e.inbox
	l.e.inbox = nil
	l.e.mu.Unlock()
	for _, m := range msgs {
		if m.cause == nil && !m.call.finished {
			m.call.out.Error = errClosed.Error()
			l.complete(m.call)
		}
	}
	for _, cn := range l.conns {
		if cn == nil {
			continue
		}
		if cl := cn.call; cl != nil && !cl.finished {
			cl.out.Error = errClosed.Error()
			l.complete(cl)
		}
		_ = unix.Close(cn.fd)
	}
	_ = unix.Close(l.e.epfd)
	_ = unix.Close(l.e.wake)
}

// ready handles a readiness of cn.
func (l *loop) ready(cn *conn, events uint32) {
	cl := cn.call
	if cl == nil {
		// An idle kept-alive connection is readable only when the
		// server closed it (or sent what it should not): drop it.
		l.dropIdle(cn)
		return
	}
	if cn.connecting {
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if soErr, err := unix.GetsockoptInt(cn.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || soErr != 0 {
			if err == nil {
				err = unix.Errno(soErr)
			}
			l.close(cn)
			l.fail(cl, l.dialError(cl, "connect", err))
			return
		}
		cn.connecting = false
		l.write(cn)
		return
	}
	if cl.written < len(cl.wire) && events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
		l.write(cn)
		if cn.call != cl || cl.finished {
			return
		}
	}
	if events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
		l.read(cn)
	}
}

// read makes the one read(2) of a readiness and takes what it returned.
func (l *loop) read(cn *conn) {
	n, err := unix.Read(cn.fd, l.buf)
	if err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			return
		}
		l.broken(cn, os.NewSyscallError("read", err))
		return
	}
	if n == 0 {
		l.broken(cn, io.EOF)
		return
	}
	cl := cn.call
	// Subtleness ahead: the clock is read once per read(2), before any of
	// its events is parsed, so parsing never delays a timestamp; events
	// that arrived together share it (they arrived together).
	cl.ts = l.e.c.Now()
	if !cl.gotByte && cl.written == len(cl.wire) {
		// The answer has begun and nothing sends the request again (a
		// retry is only before its first byte, see broken): its bytes,
		// the prompt among them, are let go of instead of being kept for
		// as long as the stream lasts.
		cl.wire = nil
	}
	cl.gotByte = true
	l.take(cn, l.buf[:n])
}

// broken handles the end of cn's stream of bytes (io.EOF) or a socket
// error while cn carries a request.
func (l *loop) broken(cn *conn, err error) {
	cl := cn.call
	if cn.reused && !cl.gotByte && !cl.out.Resent {
		// The server closed the kept-alive connection as the request
		// went out: send it again, once, on a fresh connection (which
		// is never reused, so a second failure stays one). StartTime
		// stays the first attempt's: the record times the request from
		// when it was first sent, as net/http's path does.
		cl.out.Resent = true
		l.close(cn)
		l.dial(cl)
		return
	}
	switch {
	case !cl.inBody:
		if cl.gotByte {
			// The head was cut short (an interim head may have been
			// whole): net/http's words for it.
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			err = connBroken(err)
		}
		l.close(cn)
		l.fail(cl, &url.Error{Op: "Post", URL: cl.url, Err: err})
	case errors.Is(err, io.EOF) && !cl.h.chunked && cl.h.length < 0:
		// A body delimited by the connection's end: this is its end.
		l.bodyEnd(cn, nil, false)
	default:
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		l.bodyEnd(cn, err, false)
	}
}

// stop ends cl for cause: a bound ran out or the run was interrupted.
func (l *loop) stop(cl *call, cause error) {
	if cl.draining {
		// The record was finished at [DONE]; only the drain ends.
		if cl.conn != nil {
			l.close(cl.conn)
		}
		l.complete(cl)
		return
	}
	cl.out.Error = l.e.c.StopText(cause, cl.bodyBytes-cl.mark)
	if cl.st != nil {
		cl.st.Finish()
	}
	if cl.conn != nil {
		l.close(cl.conn)
	}
	l.complete(cl)
}

// fail ends cl before its answer with err.
func (l *loop) fail(cl *call, err error) {
	cl.out.Error = err.Error()
	l.complete(cl)
}

// complete hands cl's record to its caller.
func (l *loop) complete(cl *call) {
	if cl.finished {
		return
	}
	cl.finished = true
	if cl.drain != nil {
		cl.drain.Stop()
	}
	if cl.conn != nil && cl.conn.call == cl {
		cl.conn.call = nil
	}
	cl.conn = nil
	if cl.rd != nil {
		cl.rd.ResetPush()
		l.readers = append(l.readers, cl.rd)
		cl.rd = nil
	}
	cl.st, cl.wire, cl.errBody, cl.headBuf = nil, nil, nil, nil
	close(cl.done)
}
