package sim

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/testserver"
	"github.com/google/go-cmp/cmp"
)

// These tests run the server through Serve on a real loopback listener and
// read it with an HTTP client, like gobench does. What a client measures on
// a loaded machine is no exact truth, so a client-side time is only ever
// compared with a lower bound that causality guarantees: an interval that
// starts before the request was sent and ends after a byte the server wrote
// once its own timer had fired cannot be shorter than that timer. How close
// the client's numbers come to the configured ones is measured by
// BenchmarkConcurrentStreams; the server's exact timeline is tested in a
// synctest bubble (TestFixedTimeline).

// eventually bounds the wait for something that must happen soon (a handler
// returning, a listener refusing, a log line appearing). It takes
// milliseconds; the bound is reached only when the test fails, so it is a
// hang guard as generous as the test timeout allows, not a timing
// expectation.
const eventually = 30 * time.Second

// liveServer is a server running Serve in the background.
type liveServer struct {
	s      *Server
	url    string
	cancel context.CancelFunc
	done   chan error // receives Serve's result
}

func startLive(t testing.TB, cfg Config) *liveServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startLiveOn(t, cfg, ln)
}

// startLiveOn is startLive on the listener ln.
func startLiveOn(t testing.TB, cfg Config, ln net.Listener) *liveServer {
	t.Helper()
	s := newTestServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ls := &liveServer{s: s, url: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { ls.done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ls.done:
		case <-time.After(eventually):
			t.Error("Serve did not return after cancel")
		}
	})
	return ls
}

// newClient returns a client with its own connections, so one test's
// keep-alive connections never count against another's goroutines.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DisableKeepAlives:   true,
		MaxIdleConnsPerHost: 4096,
	}}
}

// post sends body and returns the response; the caller closes its body.
func post(ctx context.Context, t testing.TB, c *http.Client, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return resp
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

// TestMeasuredTTFTAndITL streams over loopback as a client sees it: every
// token event arrives, and none sooner than the server may send it. The
// client reads its clock before sending and after each event, so its TTFT
// is at least the configured TTFT and its last token at least TTFT + 29 ITL
// after the send, however loaded the machine: a late read only lengthens
// both. Upper bounds would measure the machine, not the server; they are
// BenchmarkConcurrentStreams' numbers (1 stream), and the exact timeline is
// TestFixedTimeline's.
func TestMeasuredTTFTAndITL(t *testing.T) {
	t.Parallel()
	const (
		ttft, itl = 50 * time.Millisecond, 10 * time.Millisecond
		tokens    = 30
	)
	ls := startLive(t, Config{TTFT: ttft, ITL: itl})
	tests := []struct {
		name, path, body string
		skip             int // token events before the content (chat's role event)
	}{
		{"completions", "/v1/completions",
			`{"prompt":"hi","max_tokens":30,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`, 0},
		{"chat", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":30,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			resp := post(context.Background(), t, newClient(), ls.url+tt.path, tt.body)
			defer resp.Body.Close()
			events, err := readEvents(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			// token events, then usage, then [DONE]
			if want := tt.skip + tokens + 2; len(events) != want {
				t.Fatalf("%d events, want %d", len(events), want)
			}
			if first := events[0].at.Sub(start); first < ttft {
				t.Errorf("TTFT %v, before the configured %v", first, ttft)
			}
			if last, due := events[tt.skip+tokens-1].at.Sub(start), ttft+(tokens-1)*itl; last < due {
				t.Errorf("last token %v after the send, before it was due at %v", last, due)
			}
		})
	}
}

// TestFixedTimeline is the fixed engine's timeline as the server sends it,
// in a synctest bubble, whose clock moves only when every goroutine waits:
// the first token event leaves exactly TTFT after receipt, each later one
// exactly ITL after the one before, and chat's role event leaves with the
// first token (as vLLM sends it). The record is the server's own account of
// when each event left.
func TestFixedTimeline(t *testing.T) {
	t.Parallel()
	const (
		ttft, itl = 50 * time.Millisecond, 10 * time.Millisecond
		tokens    = 30
	)
	tests := []struct {
		name, path, body string
		role             bool
	}{
		{"completions", "/v1/completions", `{"prompt":"hi","max_tokens":30,"ignore_eos":true,"stream":true}`, false},
		{"chat", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":30,"ignore_eos":true,"stream":true}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var rec testserver.LockedBuffer
				s := newTestServer(t, Config{TTFT: ttft, ITL: itl, Record: &rec})
				resp := do(t, s.Handler(), http.MethodPost, tt.path, tt.body, map[string]string{"X-Request-Id": "r"})
				if resp.Code != http.StatusOK {
					t.Fatalf("status %d: %s", resp.Code, resp.Body)
				}
				var want []time.Duration
				if tt.role {
					want = append(want, ttft)
				}
				for k := range tokens {
					want = append(want, ttft+time.Duration(k)*itl)
				}
				_, reqs := parseRecord(t, rec.Bytes())
				r := reqs["r"]
				var got []time.Duration
				for _, ns := range r.EventsNS {
					got = append(got, time.Duration(ns-r.ArrivalNS))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("token events after receipt (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestClientDisconnectStopsHandler is not parallel: it counts the
// process's goroutines, and other tests' come and go while they run, so a
// baseline taken beside them says nothing about this server's.
func TestClientDisconnectStopsHandler(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			ls := startLive(t, Config{TTFT: 10 * time.Millisecond, ITL: 20 * time.Millisecond})
			// Warm up once so lazily started runtime goroutines are counted
			// in the baseline.
			warm := post(context.Background(), t, newClient(), ls.url+"/v1/completions", `{"prompt":"x","max_tokens":1,"stream":true}`)
			_, _ = io.Copy(io.Discard, warm.Body)
			warm.Body.Close()
			waitFor(eventually, func() bool { return ls.s.active.Load() == 0 })
			baseline := runtime.NumGoroutine()

			ctx, cancel := context.WithCancel(context.Background())
			body := `{"prompt":"x","max_tokens":30000,"ignore_eos":true,"stream":` + strconv.FormatBool(stream) + `}`
			var resp *http.Response
			if stream {
				resp = post(ctx, t, newClient(), ls.url+"/v1/completions", body)
				buf := make([]byte, 64)
				if _, err := resp.Body.Read(buf); err != nil {
					t.Fatal(err)
				}
			} else {
				go func() {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ls.url+"/v1/completions", strings.NewReader(body))
					if resp, err := newClient().Do(req); err == nil {
						resp.Body.Close()
					}
				}()
			}
			if !waitFor(eventually, func() bool { return ls.s.active.Load() == 1 }) {
				t.Fatal("request never became active")
			}
			cancel()
			if resp != nil {
				resp.Body.Close()
			}
			if !waitFor(eventually, func() bool { return ls.s.active.Load() == 0 }) {
				t.Fatalf("handler still active after the client left")
			}
			if !waitFor(eventually, func() bool { return runtime.NumGoroutine() <= baseline }) {
				t.Errorf("goroutines: %d after disconnect, %d before the request", runtime.NumGoroutine(), baseline)
			}
		})
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	ls := startLive(t, Config{TTFT: 10 * time.Millisecond, ITL: 10 * time.Millisecond})
	resp := post(context.Background(), t, newClient(), ls.url+"/v1/chat/completions",
		`{"messages":[{"role":"user","content":"hi"}],"max_tokens":20,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	buf := make([]byte, 1)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	ls.cancel() // the stream is in flight

	// New connections are refused once shutdown has begun...
	addr := strings.TrimPrefix(ls.url, "http://")
	if !waitFor(eventually, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	}) {
		t.Error("listener still accepting after shutdown began")
	}
	// ...but the stream in flight runs to its end.
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("stream cut by shutdown: %v", err)
	}
	sum := summarize(t, sseEvents(t, append(buf, rest...)))
	if sum.outputTokens != 20 || sum.tokenEvents != 21 {
		t.Errorf("after shutdown began: %d tokens in %d token events, want 20 in 21", sum.outputTokens, sum.tokenEvents)
	}
	select {
	case err := <-ls.done:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		ls.done <- err // for the cleanup
	case <-time.After(eventually):
		t.Fatal("Serve did not return")
	}
}

func TestShutdownTimeoutCutsStreams(t *testing.T) {
	t.Parallel()
	ls := startLive(t, Config{ITL: 10 * time.Millisecond, ShutdownTimeout: 100 * time.Millisecond})
	resp := post(context.Background(), t, newClient(), ls.url+"/v1/completions",
		`{"prompt":"x","max_tokens":30000,"ignore_eos":true,"stream":true}`)
	defer resp.Body.Close()
	buf := make([]byte, 64)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	ls.cancel()
	// The stream would run for 300 s (30000 tokens, 10 ms apart) and the
	// shutdown timeout is 100 ms: a bound of a tenth of the stream is 300
	// times the timeout, so only a shutdown that waited for the stream
	// reaches it.
	select {
	case err := <-ls.done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Serve = %v, want an error wrapping context.DeadlineExceeded", err)
		}
		ls.done <- nil
	case <-time.After(eventually):
		t.Fatalf("Serve did not return within %v with a 100ms shutdown timeout", eventually)
	}
	rest, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(rest), "[DONE]") {
		t.Error("stream finished although the shutdown timeout cut it")
	}
	if !waitFor(eventually, func() bool { return ls.s.active.Load() == 0 }) {
		t.Error("handler still active after its connection was closed")
	}
}
