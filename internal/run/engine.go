package run

import (
	"context"
	"fmt"
	"net/url"
	"runtime"

	"golang.org/x/net/http/httpproxy"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/evloop"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
)

// The client engines (--client-engine).
const (
	// EngineNetHTTP sends with net/http (backend.Client), the default.
	EngineNetHTTP = "net/http"
	// EngineEpoll sends from one epoll loop (package evloop): less CPU
	// per event at many streams.
	EngineEpoll = "epoll"
)

// requester sends one request and returns its record: *backend.Client or
// *evloop.Engine. The dispatcher, the conversations and the warm-ups send
// through it; the ready check, the probes and the side endpoints always
// use net/http.
type requester interface {
	Do(ctx context.Context, b backend.Backend, req *backend.Request, body []byte) metrics.Output
}

var (
	_ requester = (*backend.Client)(nil)
	_ requester = (*evloop.Engine)(nil)
)

// validateEngine checks --client-engine against the backend: the epoll
// engine reads streams only.
func (o *Options) validateEngine(spec *backend.Spec) error {
	switch o.ClientEngine {
	case "", EngineNetHTTP:
		return nil
	case EngineEpoll:
	default:
		return fmt.Errorf("argument --client-engine: invalid choice: %q (choose from %q, %q)", o.ClientEngine, EngineNetHTTP, EngineEpoll)
	}
	if !spec.Streaming {
		return fmt.Errorf("--client-engine epoll reads streamed answers only; --backend %s answers with one body: use --client-engine net/http", spec.Name)
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("--client-engine epoll: %w", evloop.ErrUnsupported)
	}
	return nil
}

// checkEngine refuses the epoll engine for a URL it cannot reach the way
// net/http would: https (it speaks no TLS) and a URL that a proxy
// variable of the environment applies to (it dials the server itself).
func checkEngine(engine, apiURL string, getenv func(string) string) error {
	if engine != EngineEpoll {
		return nil
	}
	u, err := url.Parse(apiURL)
	if err != nil {
		return exitcode.Usagef("--client-engine epoll: %w", err)
	}
	if u.Scheme != "http" {
		return exitcode.Usagef("--client-engine epoll speaks plain http only, not %s: use --client-engine net/http", u.Scheme)
	}
	if name := proxyFor(u, getenv); name != "" {
		return exitcode.Usagef("--client-engine epoll does not go through proxies, and %s applies to %s: use --client-engine net/http, or exempt the host with NO_PROXY", name, u.Host)
	}
	return nil
}

// proxyFor names the environment variable that sends u through a proxy,
// or "": net/http's own rules (golang.org/x/net/http/httpproxy, which
// net/http's ProxyFromEnvironment is built on: HTTP_PROXY before
// http_proxy, never localhost or a loopback address, the hosts, ports,
// domains and CIDRs NO_PROXY names), and the same for ALL_PROXY, which
// net/http ignores but other clients honour, so that a run meant to go
// through a proxy never silently does not.
func proxyFor(u *url.URL, getenv func(string) string) string {
	noProxy := getenv("NO_PROXY")
	if noProxy == "" {
		noProxy = getenv("no_proxy")
	}
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		cfg := httpproxy.Config{HTTPProxy: v, NoProxy: noProxy}
		if proxy, err := cfg.ProxyFunc()(u); err != nil || proxy != nil {
			return name // a malformed proxy fails net/http's requests too
		}
		return ""
	}
	return ""
}

// startEngine returns the run's requester: p.client, or a new epoll
// engine and the function that closes it.
func (p *Plan) startEngine() (requester, func(), error) {
	if p.Options.ClientEngine != EngineEpoll {
		return p.client, func() {}, nil
	}
	e, err := evloop.New(p.client)
	if err != nil {
		return nil, nil, exitcode.Usagef("--client-engine epoll: %w", err)
	}
	return e, func() { _ = e.Close() }, nil
}
