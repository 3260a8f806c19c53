package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// pprofEnv names the environment variable that serves Go's profiles
// (net/http/pprof) on the loopback address it gives, for as long as the
// process runs; an environment variable because vLLM has no such flag.
const pprofEnv = "GOBENCH_PPROF"

// servePprof serves the profiles on addr, if set; a refusal or a failure
// to listen is said on stderr and the command runs on without them.
func servePprof(addr string, stderr io.Writer) {
	if addr == "" {
		return
	}
	ln, err := listenLoopback(addr)
	if err != nil {
		fmt.Fprintf(stderr, "gobench: %s=%s: %v; no profiles are served\n", pprofEnv, addr, err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
}

// listenLoopback listens on addr, which must name a loopback address:
// the profiles show the run's prompts and headers.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("want HOST:PORT: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, errors.New("only a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT)")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}
