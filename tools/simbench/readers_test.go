package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEventCounter checks that the count does not depend on how the
// stream is split.
func TestEventCounter(t *testing.T) {
	stream := bytes.Repeat([]byte("ca\r\ndata: {\"x\":1}\n\n\r\n"), 50)
	want := bytes.Count(stream, dataLine)
	for step := 1; step <= 30; step++ {
		var c eventCounter
		for i := 0; i < len(stream); i += step {
			c.add(stream[i:min(i+step, len(stream))])
		}
		if c.n != want {
			t.Errorf("split every %d bytes: %d events, want %d", step, c.n, want)
		}
	}
}

// TestLoopReaders runs the bare epoll loop and the io_uring loop against a
// local server streaming chunked SSE, as the simulator does, and checks
// that both read every event of every request (warm-ups included).
func TestLoopReaders(t *testing.T) {
	const events = 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	j := readerJob{url: srv.URL, c: 8, n: 24, tokens: events, offsetsSeed: 1, idPrefix: "t-", body: readerBody(events)}
	want := (j.c + j.n) * (events + 1)
	for name, read := range map[string]func(readerJob) (int, error){"bare": readBare, "uring": readUring} {
		got, err := read(j)
		if err != nil {
			if name == "uring" && errors.Is(err, errNoUring) {
				t.Logf("uring: %v (this kernel or sandbox refuses io_uring; simbench prints the row as failed)", err)
				continue
			}
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s read %d events, want %d", name, got, want)
		}
	}
}
