package backend

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/testserver"
)

// plainClient is a client on a pooling transport of its own, as a run
// builds one (keep-alive, a pool per host).
func plainClient(t *testing.T) *Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &Client{HTTP: &http.Client{Transport: tr}, Now: (&tickClock{}).Now}
}

// TestDoResendsOnClosedReusedConnection: a server that ends keep-alive
// connections loses no request. A request written into a reused connection
// the server closed, with no byte of answer, is sent once more on a new
// connection and succeeds; the server's counts agree with the records.
func TestDoResendsOnClosedReusedConnection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mode    testserver.CloseMode
		workers int
		// exact: the server drops exactly the requests that were re-sent
		// (OnNextRequest drops every request on a reused connection).
		exact bool
	}{
		{"next request, one at a time", testserver.OnNextRequest, 1, true},
		{"next request, four at a time", testserver.OnNextRequest, 4, true},
		{"after each stream", testserver.AfterStream, 4, false},
		{"request cap", testserver.AfterCap, 4, false},
	}
	for _, name := range []string{"openai", "openai-chat"} {
		b := spec(t, name).Impl
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := testserver.NewCloser(t, tt.mode)
				c := plainClient(t)
				path := "/v1/completions"
				if _, chat := b.(Chat); chat {
					path = "/v1/chat/completions"
				}
				req := &Request{APIURL: srv.URL + path}
				outs := doMany(t, c, b, req, 24, tt.workers)
				resent := 0
				for i, out := range outs {
					if !out.Success || out.OutputTokens != srv.Tokens {
						t.Fatalf("request %d: success %v, %d tokens, error %q", i, out.Success, out.OutputTokens, out.Error)
					}
					if out.Resent {
						resent++
					}
				}
				if got := srv.Answered(); got != int64(len(outs)) {
					t.Errorf("server answered %d requests, client counted %d successes", got, len(outs))
				}
				if tt.exact && (srv.Dropped() != int64(resent) || resent == 0) {
					t.Errorf("server dropped %d requests, client re-sent %d", srv.Dropped(), resent)
				}
				if srv.Dropped() > int64(resent) {
					t.Errorf("server dropped %d requests, more than the %d re-sent", srv.Dropped(), resent)
				}
			})
		}
	}
}

// doMany sends n copies of req through c, workers at a time.
func doMany(t *testing.T, c *Client, b Backend, req *Request, n, workers int) []metrics.Output {
	t.Helper()
	outs := make([]metrics.Output, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				outs[i] = c.Do(guard(t), b, req, b.Body(req))
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return outs
}

// TestDoDoesNotResend: failures other than a reused connection closed
// before any answer stay failures, sent once: a new connection that the
// server closes, and a reused one closed after the answer began.
func TestDoDoesNotResend(t *testing.T) {
	t.Parallel()
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	event := tokenEvents(false, 1)[0]
	whole := head + chunk(event) + chunk(doneEvent) + "0\r\n\r\n"
	tests := []struct {
		name string
		// answers are written to the requests of the one connection, in
		// order; after the last, the server closes it.
		answers []string
	}{
		{"new connection closed", nil},
		{"reused connection closed mid-answer", []string{whole, head + chunk(event)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scriptedServer(t, tt.answers)
			c := plainClient(t)
			req := &Request{APIURL: srv.url + "/v1/completions"}
			var out metrics.Output
			for i := range max(1, len(tt.answers)) {
				out = c.Do(guard(t), Completions{}, req, Completions{}.Body(req))
				if i < len(tt.answers)-1 && !out.Success {
					t.Fatalf("request %d: %s", i, out.Error)
				}
			}
			if out.Success || out.Resent {
				t.Errorf("last request: success %v resent %v, want a failure sent once", out.Success, out.Resent)
			}
			if got := srv.accepted.Load(); got != 1 {
				t.Errorf("server accepted %d connections, want 1 (nothing re-sent)", got)
			}
		})
	}
}

// chunk frames s as one chunk of a chunked body.
func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

// scripted is a raw server that writes its answers, in order, to the
// requests it reads on each connection, and closes the connection after
// the last.
type scripted struct {
	url      string
	accepted atomic.Int32
}

func scriptedServer(t *testing.T, answers []string) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{url: "http://" + ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			cn, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			wg.Go(func() {
				defer cn.Close()
				br := bufio.NewReader(cn)
				// No answers: read one request and close without a byte.
				for _, a := range answers {
					if !readOne(br) {
						return
					}
					if _, err := io.WriteString(cn, a); err != nil {
						return
					}
				}
				if len(answers) == 0 {
					readOne(br)
				}
			})
		}
	})
	return s
}

// readOne reads one request and its body, reporting whether it could.
func readOne(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, req.Body)
	return true
}
