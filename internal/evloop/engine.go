package evloop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"

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
func prepare(c *backend.Client, dns *resolver, b backend.Backend, req *backend.Request, body []byte) (wire []byte, addr *net.TCPAddr, err error) {
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
	if addr, err = dns.resolve(host); err != nil {
		return nil, nil, &url.Error{Op: "Post", URL: req.APIURL, Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	wire = make([]byte, 0, len(head)+len(body))
	return append(append(wire, head...), body...), addr, nil
}

// dnsTTL is how long, in seconds, a server's resolved address is reused:
// vLLM's aiohttp connector caches DNS answers for 300 s (ttl_dns_cache),
// and without a cache every request of a run against a server named by
// host name would wait for a lookup of its own (net/http resolves only
// when it dials, which keep-alive makes rare).
const dnsTTL = 300

// resolver resolves servers' host:port, each at most once per dnsTTL. A
// failed lookup is not kept: the next request tries again, as aiohttp's
// does. It is safe for concurrent use: requests are prepared on their own
// goroutines, so a slow lookup never holds up the loop.
type resolver struct {
	now    func() float64
	lookup func(network, address string) (*net.TCPAddr, error)

	mu    sync.Mutex
	addrs map[string]resolved
}

// resolved is one cached answer and when it was looked up.
type resolved struct {
	addr *net.TCPAddr
	at   float64
}

// newResolver returns a resolver with net.ResolveTCPAddr and the clock
// now (seconds).
func newResolver(now func() float64) *resolver {
	return &resolver{now: now, lookup: net.ResolveTCPAddr, addrs: map[string]resolved{}}
}

// resolve returns host's address, looked up within the last dnsTTL.
func (r *resolver) resolve(host string) (*net.TCPAddr, error) {
	now := r.now()
	r.mu.Lock()
	c, ok := r.addrs[host]
	r.mu.Unlock()
	if ok && now-c.at < dnsTTL {
		return c.addr, nil
	}
	addr, err := r.lookup("tcp", host)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.addrs[host] = resolved{addr: addr, at: now}
	r.mu.Unlock()
	return addr, nil
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
