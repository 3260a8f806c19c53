//go:build linux

package evloop

import (
	"bufio"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/testserver"
)

// TestEngineResendsOnClosedReusedConnection: a server that ends keep-alive
// connections loses no request of the epoll engine. A request written into
// a reused connection the server closed, before any byte of answer, is
// sent once more on a new connection, succeeds and says so (Resent); the
// server's counts agree with the records.
func TestEngineResendsOnClosedReusedConnection(t *testing.T) {
	t.Parallel()
	const n = 24
	tests := []struct {
		name    string
		mode    testserver.CloseMode
		workers int
	}{
		{"next request, one at a time", testserver.OnNextRequest, 1},
		{"next request, four at a time", testserver.OnNextRequest, 4},
		{"after each stream, one at a time", testserver.AfterStream, 1},
		{"after each stream, four at a time", testserver.AfterStream, 4},
		{"request cap, one at a time", testserver.AfterCap, 1},
		{"request cap, four at a time", testserver.AfterCap, 4},
	}
	backends := []struct {
		b    backend.Backend
		path string
	}{{backend.Completions{}, "/v1/completions"}, {backend.Chat{}, "/v1/chat/completions"}}
	for _, be := range backends {
		for _, tt := range tests {
			t.Run(be.path+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := testserver.NewCloser(t, tt.mode)
				_, e := clients(t, nil)
				outs := doMany(t, e, be.b, request(srv.URL+be.path), n, tt.workers)
				resent := 0
				for i, out := range outs {
					if !out.Success || out.OutputTokens != srv.Tokens {
						t.Fatalf("request %d: success %v, %d tokens, error %q", i, out.Success, out.OutputTokens, out.Error)
					}
					if out.Resent {
						resent++
					}
				}
				checkCounts(t, srv, n, resent)
				if tt.mode == testserver.OnNextRequest && tt.workers == 1 {
					// Every request after the first found its connection
					// kept alive, and the server dropped it there.
					for i, out := range outs {
						if out.Resent != (i > 0) {
							t.Errorf("request %d: resent %v", i, out.Resent)
						}
					}
				}
			})
		}
	}
}

// checkCounts checks what srv counted against n successful records, resent
// of them re-sent.
func checkCounts(t *testing.T, srv *testserver.Closer, n, resent int) {
	t.Helper()
	answered, dropped, requests, conns := srv.Answered(), srv.Dropped(), srv.Requests(), srv.Conns()
	if answered != int64(n) {
		t.Errorf("server answered %d requests, the records count %d successes", answered, n)
	}
	if requests != answered+dropped {
		t.Errorf("server read %d requests, answered %d and dropped %d", requests, answered, dropped)
	}
	// Every connection answers its first request (a re-sent one
	// included); a Closer answers at most Cap on one.
	most, least := int64(n), int64(n)
	switch srv.Mode {
	case testserver.OnNextRequest:
		// Only a request on a reused connection is dropped, and it is
		// re-sent: the drops are exactly the re-sends.
		if dropped != int64(resent) || resent == 0 {
			t.Errorf("server dropped %d requests, the records say %d were re-sent", dropped, resent)
		}
	case testserver.AfterStream:
		// The server reads nothing after an answer: a request written
		// into the closed connection never reaches it.
		if dropped != 0 {
			t.Errorf("server dropped %d requests", dropped)
		}
	case testserver.AfterCap:
		least = int64(math.Ceil(float64(n) / float64(srv.Cap)))
		if dropped != 0 {
			t.Errorf("server dropped %d requests", dropped)
		}
	}
	if conns < least || conns > most {
		t.Errorf("server accepted %d connections, want %d to %d", conns, least, most)
	}
}

// doMany sends n requests of b to req through e, workers at a time.
func doMany(t *testing.T, e *Engine, b backend.Backend, req *backend.Request, n, workers int) []metrics.Output {
	t.Helper()
	outs := make([]metrics.Output, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				outs[i] = e.Do(guard(t), b, req, []byte(`{"prompt":"x"}`))
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

// drop, in a script, reads a request and closes the connection without a
// byte of answer.
const drop = ""

// scriptServer answers the requests of its k-th connection with
// scripts[k] (the last script for the later ones) in order, and closes
// the connection after the last; onDrop runs when it drops a request
// (before the close).
type scriptServer struct {
	url                string
	conns, reqs, drops atomic.Int32
}

func newScriptServer(t *testing.T, scripts [][]string, onDrop func()) *scriptServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptServer{url: "http://" + ln.Addr().String() + "/v1/completions"}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			k := int(s.conns.Add(1)) - 1
			wg.Go(func() { s.serve(c, scripts[min(k, len(scripts)-1)], onDrop) })
		}
	})
	return s
}

func (s *scriptServer) serve(c net.Conn, script []string, onDrop func()) {
	defer c.Close()
	br := bufio.NewReader(c)
	for _, answer := range script {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = req.Body.Close()
		s.reqs.Add(1)
		if answer == drop {
			s.drops.Add(1)
			if onDrop != nil {
				onDrop()
			}
			return
		}
		if !writePaused(c, answer) {
			return
		}
	}
}

// chunkedSSE is a whole chunked answer of sse(n).
func chunkedSSE(n int) string { return streamHead + chunks(sse(n)) + "0\r\n\r\n" }

// sender sends one request through an engine and returns its record.
type sender func(req *backend.Request) metrics.Output

// bothEngines returns a sender for net/http's path and one for the epoll
// engine, configured alike by mod.
func bothEngines(t *testing.T, mod func(*backend.Client)) map[string]sender {
	t.Helper()
	hc, e := clients(t, mod)
	body := []byte(`{"prompt":"x"}`)
	return map[string]sender{
		"net/http": func(req *backend.Request) metrics.Output { return hc.Do(guard(t), backend.Completions{}, req, body) },
		"epoll":    func(req *backend.Request) metrics.Output { return e.Do(guard(t), backend.Completions{}, req, body) },
	}
}

// TestEngineResendKeepsStartTime: a re-sent request's record is timed
// from its first attempt's start. The clock stands still but for one jump
// of 100 s when the server drops the first attempt: the record starts
// before the jump and its first token comes after it.
func TestEngineResendKeepsStartTime(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"net/http", "epoll"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var clock atomic.Int64
			now := func() float64 { return float64(clock.Load()) }
			send := bothEngines(t, func(c *backend.Client) { c.Now = now })[name]
			srv := newScriptServer(t, [][]string{{chunkedSSE(2), drop}, {chunkedSSE(3)}}, func() { clock.Store(100) })
			if out := send(request(srv.url)); !out.Success || out.Resent {
				t.Fatalf("first request: %+v", out)
			}
			out := send(request(srv.url))
			if !out.Success || !out.Resent || out.StartTime != 0 || out.TTFT != 100 || out.Latency != 100 {
				t.Errorf("re-sent request: success %v (%q), resent %v, start %v, TTFT %v, latency %v; want a success re-sent, started at 0, its tokens at 100",
					out.Success, out.Error, out.Resent, out.StartTime, out.TTFT, out.Latency)
			}
			if c, r, d := srv.conns.Load(), srv.reqs.Load(), srv.drops.Load(); c != 2 || r != 3 || d != 1 {
				t.Errorf("server saw %d connections and %d requests, dropped %d; want 2, 3 and 1", c, r, d)
			}
		})
	}
}

// TestEngineDoesNotResend: every failure but a reused connection closed
// before any byte of its answer stays a failure, and a request is re-sent
// at most once: the last request of each script fails with the record
// net/http's path makes of it.
func TestEngineDoesNotResend(t *testing.T) {
	t.Parallel()
	whole := chunkedSSE(2)
	tests := []struct {
		name string
		// scripts are the server's, per connection (see newScriptServer).
		scripts [][]string
		// requests are sent one after the other; the last fails.
		requests int
		resent   bool
		// conns is how many connections the server accepts.
		conns int32
	}{
		{"new connection closed", [][]string{{drop}}, 1, false, 1},
		{"reused connection closed after the first byte", [][]string{{whole, "HTTP/1.1 200 OK\r\n"}}, 2, false, 1},
		{"reused connection closed after the head", [][]string{{whole, streamHead}}, 2, false, 1},
		{"reused connection closed mid-answer", [][]string{{whole, streamHead + chunks(sse(1))[:30]}}, 2, false, 1},
		{"re-sent request dropped again", [][]string{{whole, drop}, {drop}}, 2, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var records [2]metrics.Output
			senders := bothEngines(t, nil)
			for k, name := range []string{"net/http", "epoll"} {
				srv := newScriptServer(t, tt.scripts, nil)
				var out metrics.Output
				for i := range tt.requests {
					out = senders[name](request(srv.url))
					if i < tt.requests-1 && !out.Success {
						t.Fatalf("%s: request %d: %s", name, i, out.Error)
					}
				}
				if out.Success || out.Resent != tt.resent {
					t.Errorf("%s: last request: success %v, resent %v (%q); want a failure, resent %v", name, out.Success, out.Resent, out.Error, tt.resent)
				}
				if got := srv.conns.Load(); got != tt.conns {
					t.Errorf("%s: server accepted %d connections, want %d", name, got, tt.conns)
				}
				out.Error = replaceHost(out.Error, srv.url)
				records[k] = out
			}
			if diff := cmp.Diff(shapeOf(records[0]), shapeOf(records[1])); diff != "" {
				t.Errorf("records (-net/http +epoll):\n%s", diff)
			}
		})
	}
}
