package evloop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// ErrUnsupported reports a platform without the epoll engine.
var ErrUnsupported = errors.New("the epoll client engine needs Linux")

// errClosed fails a request sent to, or still in, a closed Engine.
var errClosed = errors.New("the epoll client engine was closed")

// prepare checks and builds what Do sends: the request's bytes (head and
// body) and its server's address. A failure is the record's error, in
// net/http's words where net/http has them.
func prepare(c *backend.Client, b backend.Backend, req *backend.Request, body []byte) (wire []byte, addr *net.TCPAddr, err error) {
	if _, ok := b.(backend.Pooler); ok {
		return nil, nil, errors.New("the epoll client engine streams only; a pooling backend needs --client-engine net/http")
	}
	u, err := url.Parse(req.APIURL)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	head, err := requestHead(u, c.RequestHeaders(b, req, body), len(body))
	if err != nil {
		return nil, nil, &url.Error{Op: "Post", URL: req.APIURL, Err: err}
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	if addr, err = net.ResolveTCPAddr("tcp", host); err != nil {
		return nil, nil, &url.Error{Op: "Post", URL: req.APIURL, Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	wire = make([]byte, 0, len(head)+len(body))
	return append(append(wire, head...), body...), addr, nil
}

// failed is the record of a request that could not be sent.
func failed(b backend.Backend, req *backend.Request, err error) metrics.Output {
	out := backend.NewOutput(b, req)
	out.Error = err.Error()
	return out
}

// Requester is what the run calls to send one request: *backend.Client
// (net/http) or *Engine (epoll).
type Requester interface {
	// Do sends req with body and returns its record; failures are data.
	Do(ctx context.Context, b backend.Backend, req *backend.Request, body []byte) metrics.Output
}
