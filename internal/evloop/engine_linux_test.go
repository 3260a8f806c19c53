//go:build linux

package evloop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/testserver"
)

// guard bounds a test's request far above anything a passing test needs,
// so a hang fails the test instead of the suite.
func guard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// clients returns a net/http client and an epoll engine configured alike.
func clients(t *testing.T, mod func(c *backend.Client)) (*backend.Client, *Engine) {
	t.Helper()
	start := time.Now()
	now := func() float64 { return time.Since(start).Seconds() }
	hc := &backend.Client{HTTP: &http.Client{Transport: &http.Transport{DisableCompression: true}}, Now: now}
	ec := &backend.Client{Now: now}
	if mod != nil {
		mod(hc)
		mod(ec)
	}
	e, err := New(ec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return hc, e
}

// shape keeps what both engines must agree on: everything but the clock
// readings, and the number of gaps.
type shape struct {
	metrics.Output
	Gaps int
}

func shapeOf(o metrics.Output) shape {
	s := shape{Output: o, Gaps: len(o.ITL)}
	s.StartTime, s.TTFT, s.Latency, s.ITL = 0, 0, 0, nil
	return s
}

func request(url string) *backend.Request {
	return &backend.Request{APIURL: url, PromptLen: 3, OutputLen: 4, Model: "m", RequestID: "r-1"}
}

// sse is a completions stream of n tokens, then [DONE].
func sse(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "data: {\"choices\":[{\"text\":\"t%d \"}]}\n\n", i)
	}
	b.WriteString(`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// compare sends one request through each engine and checks the records
// agree.
func compare(t *testing.T, url string, mod func(*backend.Client)) metrics.Output {
	t.Helper()
	hc, e := clients(t, mod)
	body := []byte(`{"prompt":"x"}`)
	want := hc.Do(guard(t), backend.Completions{}, request(url), body)
	got := e.Do(guard(t), backend.Completions{}, request(url), body)
	if diff := cmp.Diff(shapeOf(want), shapeOf(got)); diff != "" {
		t.Errorf("records (-net/http +epoll):\n%s", diff)
	}
	return got
}

// TestEngineFramings: chunked, Content-Length and close-delimited bodies,
// non-200 answers, error events and a stream cut short give the records
// net/http's path gives.
func TestEngineFramings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		success bool
	}{
		// Chunked, one event per flush, as a streaming server writes.
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			for _, ev := range strings.SplitAfter(sse(5), "\n\n") {
				_, _ = io.WriteString(w, ev)
				w.(http.Flusher).Flush()
			}
		}, true},
		// Content-Length.
		{"content-length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(sse(3))))
			_, _ = io.WriteString(w, sse(3))
		}, true},
		// No [DONE]: the stream ends with the body.
		{"no done", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, strings.TrimSuffix(sse(2), "data: [DONE]\n\n"))
		}, true},
		// A non-200 answer keeps its status and body.
		{"status", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":"bad model"}`, http.StatusNotFound)
		}, false},
		// An error event.
		{"error event", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"error\":{\"message\":\"boom\"}}\n\n")
		}, false},
		// A body without any token.
		{"no token", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		}, false},
		// A body cut inside an event.
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			got := compare(t, srv.URL+"/v1/completions", nil)
			if got.Success != tt.success {
				t.Errorf("success %v (%s), want %v", got.Success, got.Error, tt.success)
			}
		})
	}
}

// rawServer answers each request on a connection with answer(i), the
// request's number on the server, and closes the connection after it when
// closeAfter(i). It counts connections.
type rawServer struct {
	ln    net.Listener
	conns atomic.Int32
	reqs  atomic.Int32
}

func newRawServer(t *testing.T, answer func(i int) string, closeAfter func(i int) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go s.serve(c, answer, closeAfter)
		}
	}()
	return s
}

func (s *rawServer) serve(c net.Conn, answer func(int) string, closeAfter func(int) bool) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		i := int(s.reqs.Add(1)) - 1
		if !writePaused(c, answer(i)) || closeAfter(i) {
			return
		}
	}
}

// pause, in a raw server's answer, ends a write: the bytes after it are
// written a moment later, so they most likely reach the client in a read
// of their own (no test depends on it: the records must agree either way).
const pause = "\x00pause\x00"

// writePaused writes answer to c, pausing where it says so; it reports
// whether every write succeeded.
func writePaused(c net.Conn, answer string) bool {
	for i, part := range strings.Split(answer, pause) {
		if i > 0 {
			time.Sleep(2 * time.Millisecond)
		}
		if _, err := io.WriteString(c, part); err != nil {
			return false
		}
	}
	return true
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/v1/completions" }

// TestEngineCloseDelimited: a body without length or chunking runs to the
// connection's end.
func TestEngineCloseDelimited(t *testing.T) {
	t.Parallel()
	s := newRawServer(t, func(int) string { return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + sse(4) },
		func(int) bool { return true })
	if got := compare(t, s.url(), nil); !got.Success || got.GeneratedText != "t0 t1 t2 t3 " {
		t.Errorf("record %+v", got)
	}
}

// TestEngineKeepAliveAndRetry: a kept-alive connection carries the next
// request; when the server closed it after an answer, the next request is
// sent again, once, on a fresh connection, and succeeds.
func TestEngineKeepAliveAndRetry(t *testing.T) {
	t.Parallel()
	body := sse(2)
	answer := func(int) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
	tests := []struct {
		name       string
		closeAfter func(int) bool
		wantConns  int32
	}{
		// The server keeps its connections: three requests, one connection.
		{"reuse", func(int) bool { return false }, 1},
		// The server closes after every answer without saying so: every
		// request after the first finds its kept-alive connection closed
		// and is retried on a new one.
		{"retry", func(int) bool { return true }, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newRawServer(t, answer, tt.closeAfter)
			_, e := clients(t, nil)
			for i := range 3 {
				if i > 0 && tt.name == "retry" {
					// Let the close reach the client's idle connection
					// only in some runs: either way the request succeeds.
					time.Sleep(time.Millisecond)
				}
				out := e.Do(guard(t), backend.Completions{}, request(s.url()), []byte("{}"))
				if !out.Success {
					t.Fatalf("request %d: %s", i, out.Error)
				}
			}
			if n := s.conns.Load(); n != tt.wantConns {
				t.Errorf("%d connections, want %d", n, tt.wantConns)
			}
		})
	}
}

// TestEngineStall: a server that stops sending fails the request by the
// read timeout, with net/http's message, and the engine goes on.
func TestEngineStall(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n: keep-alive\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	// Long enough that the first event is read before it fires even on a
	// loaded 2-core machine under the race detector (50 ms was not).
	got := compare(t, srv.URL+"/v1/completions", func(c *backend.Client) { c.ReadTimeout = time.Second })
	if got.Success || !strings.HasPrefix(got.Error, "timed out: no ") {
		t.Errorf("record %+v", got)
	}
}

// TestEngineDeadline: --request-timeout ends a stream that never ends.
func TestEngineDeadline(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	// Long enough that events are read before it ends the request even on
	// a loaded machine under the race detector.
	_, e := clients(t, func(c *backend.Client) { c.Deadline = time.Second })
	got := e.Do(guard(t), backend.Completions{}, request(srv.URL+"/v1/completions"), []byte("{}"))
	if got.Success || got.Error != "timed out: the request did not finish within 1s (--request-timeout)" || len(got.GeneratedText) == 0 {
		t.Errorf("record %+v", got)
	}
}

// TestEngineCancel: cancelling the context (the run's second interrupt)
// ends the request with what it measured and net/http's message.
func TestEngineCancel(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	_, e := clients(t, nil)
	ctx, cancel := context.WithCancel(guard(t))
	go func() { <-started; time.Sleep(10 * time.Millisecond); cancel() }()
	got := e.Do(ctx, backend.Completions{}, request(srv.URL+"/v1/completions"), []byte("{}"))
	if got.Success || got.Error != "cancelled: the run was interrupted before this request finished" || got.GeneratedText != "a" {
		t.Errorf("record %+v", got)
	}
}

// TestEngineRefused: a connection refused is a failed request in
// net/http's words.
func TestEngineRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1/completions"
	_ = ln.Close()
	compare(t, url, nil)
}

// TestEngineClosed: Close fails what is in flight, and later requests.
func TestEngineClosed(t *testing.T) {
	t.Parallel()
	_, e := clients(t, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	out := e.Do(guard(t), backend.Completions{}, request("http://127.0.0.1:1/v1/completions"), nil)
	if out.Error != errClosed.Error() {
		t.Errorf("error %q", out.Error)
	}
}

// TestEngineLargeBodyAndSplitHead: a body larger than the socket buffer
// waits for the socket to drain (EPOLLOUT), and an answer written a few
// bytes at a time (the head split across reads, a chunk size line split)
// is the answer written at once.
func TestEngineLargeBodyAndSplitHead(t *testing.T) {
	t.Parallel()
	events := sse(3)
	answer := fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(events), events)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, req.Body)
		got <- n
		for i := 0; i < len(answer); i += 7 {
			if _, err := io.WriteString(c, answer[i:min(i+7, len(answer))]); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, e := clients(t, nil)
	body := []byte(`{"prompt":"` + strings.Repeat("x", 8<<20) + `"}`)
	out := e.Do(guard(t), backend.Completions{}, request("http://"+ln.Addr().String()+"/v1/completions"), body)
	if n := <-got; n != int64(len(body)) {
		t.Errorf("the server read %d bytes of a %d-byte body", n, len(body))
	}
	if !out.Success || out.GeneratedText != "t0 t1 t2 " || out.OutputTokens != 4 || len(out.ITL) != 2 {
		t.Errorf("record %+v", out)
	}
}

// TestEngineSendsWhatNetHTTPSends: the server sees the same method, path,
// headers (the API key, --header values, the request id, Host,
// User-Agent, Content-Length) and body from both engines.
func TestEngineSendsWhatNetHTTPSends(t *testing.T) {
	t.Parallel()
	type seen struct {
		Method, URI, Host, Body string
		Length                  int64
		Header                  http.Header
	}
	got := make(chan seen, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Host, string(b), r.ContentLength, r.Header}
		_, _ = io.WriteString(w, sse(1))
	}))
	t.Cleanup(srv.Close)
	hc, e := clients(t, func(c *backend.Client) { c.APIKey = "sk-test" })
	req := request(srv.URL + "/v1/completions?x=1")
	req.ExtraHeaders = []backend.Header{{Key: "X-Extra", Value: "1"}, {Key: "User-Agent", Value: "bench/1"}}
	body := []byte(`{"prompt":"héllo"}`)
	var records [2]seen
	for i, do := range []func() metrics.Output{
		func() metrics.Output { return hc.Do(guard(t), backend.Completions{}, req, body) },
		func() metrics.Output { return e.Do(guard(t), backend.Completions{}, req, body) },
	} {
		if out := do(); !out.Success {
			t.Fatalf("engine %d: %s", i, out.Error)
		}
		records[i] = <-got
	}
	if diff := cmp.Diff(records[0], records[1]); diff != "" {
		t.Errorf("what the server saw (-net/http +epoll):\n%s", diff)
	}
}

// TestEngineDoesNotKeepTheRequestBytes: once the answer has begun, the
// loop lets go of the request's bytes (its head and body, the prompt
// among them) while the stream goes on: a server that holds the stream
// open until their memory is reclaimed (a cleanup on it, collections
// forced) ends it, so the request succeeds; kept, it would fail at the
// deadline.
func TestEngineDoesNotKeepTheRequestBytes(t *testing.T) {
	freed := make(chan struct{})
	srv := httptest.NewServer(testserver.HoldUntilFreed(freed, nil, sse(4)))
	defer srv.Close()
	_, e := clients(t, func(c *backend.Client) { c.Deadline = 10 * time.Second })
	out := doWithWatchedWire(t, e, request(srv.URL+"/v1/completions"), freed)
	if !out.Success {
		t.Fatalf("request failed (%q): the request's bytes stayed reachable while the stream was open", out.Error)
	}
}

// doWithWatchedWire sends req through e with wire bytes that only the
// engine holds, closing freed when their memory is reclaimed.
func doWithWatchedWire(t *testing.T, e *Engine, req *backend.Request, freed chan struct{}) metrics.Output {
	wire, addr, err := prepare(e.c, e.dns, backend.Completions{}, req, []byte(`{"prompt":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	runtime.AddCleanup(&wire[0], func(ch chan struct{}) { close(ch) }, freed)
	return e.do(guard(t), backend.Completions{}, req, wire, addr)
}
