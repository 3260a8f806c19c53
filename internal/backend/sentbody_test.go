package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/testserver"
)

// TestSentBody: every reader of a sentBody gives the whole body (net/http
// makes a second one to resend it); release lets go of the bytes only when
// the last reader has read them all, after which a resend is refused and a
// read finds the end.
func TestSentBody(t *testing.T) {
	body := []byte(`{"prompt":"hello","max_tokens":3}`)
	readAll := func(r io.Reader) string {
		t.Helper()
		var got bytes.Buffer
		buf := make([]byte, 5) // several reads, as a transport makes them
		if _, err := io.CopyBuffer(&got, r, buf); err != nil {
			t.Fatal(err)
		}
		return got.String()
	}

	hreq := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/v1/completions", nil)
	s := setBody(hreq, body)
	if hreq.ContentLength != int64(len(body)) {
		t.Fatalf("ContentLength %d, want %d", hreq.ContentLength, len(body))
	}
	if got := readAll(hreq.Body); got != string(body) {
		t.Fatalf("Body read %q, want %q", got, body)
	}
	again, err := hreq.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	// The second reader is the transport's now, and it has not read yet:
	// release keeps the bytes.
	s.release()
	if got := readAll(again); got != string(body) {
		t.Fatalf("GetBody read %q after an early release, want %q", got, body)
	}
	s.release()
	if _, err := hreq.GetBody(); err != errBodyReleased {
		t.Fatalf("GetBody after release: %v, want errBodyReleased", err)
	}
	if n, err := again.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after release: %d, %v; want 0, EOF", n, err)
	}

	// An empty body is http.NoBody, as http.NewRequest makes it.
	empty := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/v1/completions", nil)
	setBody(empty, nil).release() // a nil sentBody releases nothing
	if empty.Body != http.NoBody || empty.ContentLength != 0 {
		t.Fatalf("empty body: %v, length %d", empty.Body, empty.ContentLength)
	}
}

// TestStreamDoesNotKeepItsBody: once the server has answered 200, the
// request's body is garbage while the stream goes on: a server that holds
// the stream open until the body's memory is reclaimed (a cleanup on it,
// collections forced) ends the stream with a token, so the request
// succeeds; before sentBody, net/http kept the body reachable until the
// stream ended and the request failed at the deadline.
func TestStreamDoesNotKeepItsBody(t *testing.T) {
	freed := make(chan struct{})
	got := make(chan []byte, 1)
	srv := httptest.NewServer(testserver.HoldUntilFreed(freed, got, tokenEvents(false, 1)[0]+doneEvent))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
	req := &Request{APIURL: srv.URL + "/v1/completions", Prompt: "hello", OutputLen: 1}
	want := string(Completions{}.Body(req))
	out := doWithWatchedBody(ctx, c, req, freed)
	if !out.Success {
		t.Fatalf("request failed (%q): the body stayed reachable while the stream was open", out.Error)
	}
	if b := <-got; string(b) != want {
		t.Fatalf("server read %q, want %q", b, want)
	}
}

// doWithWatchedBody sends req with a body that only Do holds, closing
// freed when the body's memory is reclaimed.
func doWithWatchedBody(ctx context.Context, c *Client, req *Request, freed chan struct{}) (out metrics.Output) {
	body := Completions{}.Body(req)
	runtime.AddCleanup(&body[0], func(ch chan struct{}) { close(ch) }, freed)
	return c.Do(ctx, Completions{}, req, body)
}
