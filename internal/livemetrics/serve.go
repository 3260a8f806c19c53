package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server serves an Exporter's metrics on --metrics-listen's address, at
// /metrics (and at /, for a quick look with curl).
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Listen listens on addr (host:port; port 0 picks a free one) and serves
// e's metrics until Close.
func Listen(addr string, e *Exporter) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("argument --metrics-listen: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	mux.Handle("/{$}", e.Handler())
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // ErrServerClosed after Close
	}()
	return s, nil
}

// URL is the address of the metrics page.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// closeWait bounds Close's wait for a scrape in flight.
const closeWait = 2 * time.Second

// Close stops serving, letting a scrape in flight finish (at most
// closeWait).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	if err != nil {
		return fmt.Errorf("close the metrics endpoint: %w", err)
	}
	return nil
}
