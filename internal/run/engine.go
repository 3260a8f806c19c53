package run

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"

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
// or "": the rules of http.ProxyFromEnvironment for an http URL (HTTP_PROXY
// or http_proxy, except for localhost, a loopback address and the hosts
// NO_PROXY names), and ALL_PROXY too, which net/http ignores but other
// clients honour, so that a run meant to go through a proxy never
// silently does not.
func proxyFor(u *url.URL, getenv func(string) string) string {
	host := u.Hostname()
	if host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		if getenv(name) == "" {
			continue
		}
		if noProxy(host, u.Port(), getenv) {
			return ""
		}
		return name
	}
	return ""
}

// noProxy reports whether NO_PROXY (or no_proxy) exempts host: "*", the
// host itself (with the port, when one is given), or a domain it is in.
func noProxy(host, port string, getenv func(string) string) bool {
	list := getenv("NO_PROXY")
	if list == "" {
		list = getenv("no_proxy")
	}
	host = strings.ToLower(host)
	for _, entry := range strings.Split(list, ",") {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if entry == "" {
			continue
		}
		if entry == "*" {
			return true
		}
		if h, p, err := net.SplitHostPort(entry); err == nil {
			if p != port {
				continue
			}
			entry = h
		}
		entry = strings.TrimPrefix(entry, "*")
		if host == strings.TrimPrefix(entry, ".") || (strings.HasPrefix(entry, ".") && strings.HasSuffix(host, entry)) ||
			strings.HasSuffix(host, "."+entry) {
			return true
		}
		if _, n, err := net.ParseCIDR(entry); err == nil {
			if ip := net.ParseIP(host); ip != nil && n.Contains(ip) {
				return true
			}
		}
	}
	return false
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
