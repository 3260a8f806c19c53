package testserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestPipeListenerServesInBubble: an HTTP server on a PipeListener
// answers a client of its Transport inside a synctest bubble, a timer
// there takes no real time, and a closed listener refuses dials.
func TestPipeListenerServesInBubble(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ln := NewPipeListener()
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(time.Hour) // virtual: the bubble's clock jumps
			_, _ = io.WriteString(w, "pong")
		})}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		tr := ln.Transport(1)
		start := time.Now()
		resp, err := (&http.Client{Transport: tr}).Get("http://anywhere/ping")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "pong" || time.Since(start) != time.Hour {
			t.Errorf("answer %q after %v, want pong after 1h of virtual time", body, time.Since(start))
		}
		tr.CloseIdleConnections()
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		if _, err := ln.Dial(context.Background(), "tcp", "x:1"); !errors.Is(err, net.ErrClosed) {
			t.Errorf("dial after Close: %v, want net.ErrClosed", err)
		}
	})
}
