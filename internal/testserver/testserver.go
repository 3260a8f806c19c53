// Package testserver holds HTTP helpers that gobench's end-to-end tests of
// several packages share. It is imported by tests only.
package testserver

import (
	"io"
	"net/http"
	"runtime"
	"time"
)

// Proxy returns a handler that forwards each request to base (another
// server, e.g. gobench's simulator behind a test's own gate) and copies the
// answer back, flushing as it streams, so a test can put a misbehaving or
// checking layer in front of a healthy server.
func Proxy(base string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		flusher, _ := w.(http.Flusher)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				_, _ = w.Write(buf[:n])
				if flusher != nil {
					flusher.Flush()
				}
			}
			if err != nil {
				return
			}
		}
	})
}

// HoldUntilFreed returns a handler for tests that a client lets go of
// something while a stream is open: it reads the request's body (sending
// it on got, when got is not nil), answers 200 with an event-stream
// header, and then holds the stream open, forcing a garbage collection
// every 5 ms, until freed is closed (by a cleanup on the watched memory)
// or the request ends; then it writes tail and ends the stream. A client
// that kept the memory fails at its own deadline instead of succeeding.
func HoldUntilFreed(freed <-chan struct{}, got chan<- []byte, tail string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if got != nil {
			got <- b
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.GC()
			select {
			case <-freed:
				_, _ = io.WriteString(w, tail)
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
}
