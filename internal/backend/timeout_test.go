package backend

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// virtualTimers runs a Client's timers (Client.AfterFunc) on a clock that
// moves only when the test calls Advance, so whether a read timeout fires
// is decided by the test's script and not by how loaded the machine is
// (a wall-clock version failed in CI when the machine stalled for seconds).
type virtualTimers struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*virtualTimer
	// resets gets a value on every Reset: the watchdog's restart at a
	// token, which the test server waits for before it moves the clock.
	resets chan struct{}
}

type virtualTimer struct {
	v     *virtualTimers
	when  time.Duration
	f     func()
	armed bool
}

func newVirtualTimers() *virtualTimers {
	return &virtualTimers{resets: make(chan struct{}, 1024)}
}

func (v *virtualTimers) AfterFunc(d time.Duration, f func()) Timer {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := &virtualTimer{v: v, when: v.now + d, f: f, armed: true}
	v.timers = append(v.timers, t)
	return t
}

// Advance moves the clock on by d and runs the functions of the timers
// that came due, outside the lock (they cancel the request).
func (v *virtualTimers) Advance(d time.Duration) {
	v.mu.Lock()
	v.now += d
	var due []func()
	for _, t := range v.timers {
		if t.armed && t.when <= v.now {
			t.armed = false
			due = append(due, t.f)
		}
	}
	v.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// awaitReset waits for the next Reset, for at most guardTimeout, and
// reports whether it came; the test has then failed and the script stops.
func (v *virtualTimers) awaitReset(t *testing.T) bool {
	select {
	case <-v.resets:
		return true
	case <-time.After(guardTimeout):
		t.Error("the client did not restart its read timeout")
		return false
	}
}

func (t *virtualTimer) Reset(d time.Duration) bool {
	t.v.mu.Lock()
	was := t.armed
	t.when, t.armed = t.v.now+d, true
	t.v.mu.Unlock()
	select {
	case t.v.resets <- struct{}{}:
	default:
	}
	return was
}

func (t *virtualTimer) Stop() bool {
	t.v.mu.Lock()
	defer t.v.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

// countingTransport counts the response body bytes the client has read, so
// that the test server can wait until its keep-alives were taken in.
type countingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, n: c.n}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// awaitBytes waits until the client has read at least want body bytes, for
// at most guardTimeout.
func awaitBytes(t *testing.T, n *atomic.Int64, want int64) {
	for deadline := time.Now().Add(guardTimeout); n.Load() < want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the client read %d of %d bytes", n.Load(), want)
			return
		}
	}
}

// TestDoReadTimeoutCountsProgress: --read-timeout is "no token (or final
// event) for that long": bytes that are not progress (SSE
// comments, chunks with empty choices and no usage) do not hold a stalled
// request open, and the wait for the first token counts too. The error says
// what arrived instead. The server moves the timers' clock past the timeout
// only after the client has taken in everything it sent.
func TestDoReadTimeoutCountsProgress(t *testing.T) {
	t.Parallel()
	const d = 200 * time.Millisecond
	tests := []struct {
		name      string
		firstWait bool // nothing before the keep-alive
		keepAlive string
		want      string
	}{
		{"comments", false, ": ping\n\n", "timed out: no token from the server for 200ms, only 8 bytes without one"},
		{"empty choices", false, "data: {\"choices\":[]}\n\n", "timed out: no token from the server for 200ms, only 22 bytes without one"},
		{"empty usage", false, "data: {\"choices\":[],\"usage\":null}\n\n", "timed out: no token from the server for 200ms, only 35 bytes without one"},
		{"first wait", true, ": ping\n\n", "timed out: no token from the server for 200ms, only 8 bytes without one"},
		{"silence", false, "", "timed out: no data from the server for 200ms (--read-timeout / VLLM_BENCH_SOCK_READ)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vt := newVirtualTimers()
			var read atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sent := 0
				if !tt.firstWait {
					evs := tokenEvents(false, 2)
					for _, e := range evs {
						sent += len(e)
						io.WriteString(w, e)
					}
					w.(http.Flusher).Flush()
					for range 2 { // one restart per token
						if !vt.awaitReset(t) {
							return
						}
					}
				}
				if tt.keepAlive != "" {
					sent += len(tt.keepAlive)
					io.WriteString(w, tt.keepAlive)
					w.(http.Flusher).Flush()
					awaitBytes(t, &read, int64(sent))
				}
				vt.Advance(d)
				holdOpen(w, r)
			}))
			defer srv.Close()
			hc := srv.Client()
			hc.Transport = countingTransport{rt: hc.Transport, n: &read}
			c := &Client{HTTP: hc, Now: (&tickClock{}).Now, ReadTimeout: d, AfterFunc: vt.AfterFunc}
			req := &Request{APIURL: srv.URL + "/v1/completions"}
			out := c.Do(guard(t), Completions{}, req, Completions{}.Body(req))
			if out.Success || !strings.HasPrefix(out.Error, tt.want) || !strings.HasSuffix(out.Error, "(--read-timeout / VLLM_BENCH_SOCK_READ)") {
				t.Fatalf("success %v error %q, want it to start with %q", out.Success, out.Error, tt.want)
			}
			if !tt.firstWait && out.GeneratedText != "t0 t1 " {
				t.Errorf("partial text %q", out.GeneratedText)
			}
		})
	}
}

// TestDoReadTimeoutProgressResets: each token restarts the read timeout,
// so a stream slower than the timeout in total but never silent for it
// succeeds: ten tokens 250 ms apart on the timers' clock, 2.5 s in all,
// against a 2 s timeout. Without the restart the timeout fires at the
// eighth gap and the request fails.
func TestDoReadTimeoutProgressResets(t *testing.T) {
	t.Parallel()
	vt := newVirtualTimers()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, e := range tokenEvents(false, 10) {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
			if !vt.awaitReset(t) {
				return
			}
			vt.Advance(250 * time.Millisecond)
		}
		io.WriteString(w, doneEvent)
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now, ReadTimeout: 2 * time.Second, AfterFunc: vt.AfterFunc}
	req := &Request{APIURL: srv.URL + "/v1/completions"}
	if out := c.Do(guard(t), Completions{}, req, Completions{}.Body(req)); !out.Success {
		t.Fatalf("failed: %s", out.Error)
	}
}
