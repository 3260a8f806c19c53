package testserver

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// PipeListener is an in-memory net.Listener whose connections are
// net.Pipe pairs that Dial makes, so a server and its client can run in a
// testing/synctest bubble: a real socket blocks outside the bubble and
// would keep its virtual clock from moving.
type PipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// pipeAddr is the address a PipeListener and its connections report.
type pipeAddr struct{}

// Network is "pipe".
func (pipeAddr) Network() string { return "pipe" }

// String is "pipe".
func (pipeAddr) String() string { return "pipe" }

// NewPipeListener returns a listener with no connection yet.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial, or for Close (net.ErrClosed).
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and refuses later dials; connections already made
// stay open until their ends close them.
func (l *PipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the listener's address, "pipe".
func (l *PipeListener) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the listener, whatever network and address it is
// given, once Accept takes the connection; it fails when ctx ends first
// or the listener is closed (a refused connection).
func (l *PipeListener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Addr: pipeAddr{}, Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Transport returns an HTTP transport whose every connection is dialled
// to the listener, at most maxConns at once (0: no limit), shaped like
// gobench's own (keep-alive, no compression, no proxy).
func (l *PipeListener) Transport(maxConns int) *http.Transport {
	return &http.Transport{
		DialContext:         l.Dial,
		MaxConnsPerHost:     maxConns,
		MaxIdleConnsPerHost: max(maxConns, 1024),
		DisableCompression:  true,
	}
}
