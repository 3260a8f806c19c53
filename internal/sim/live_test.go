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
	"time"
)

// These tests run the server through Serve on a real loopback listener and
// measure at the HTTP client, like gobench does. Timing asserts have wide
// tolerances for a loaded 2-core CI machine (TTFT 50 ms ± 15 ms, mean ITL
// 10 ms ± 3 ms): never tight, because the test shares the CPU with the
// race detector and other packages' tests.

// liveServer is a server running Serve in the background.
type liveServer struct {
	s      *Server
	url    string
	cancel context.CancelFunc
	done   chan error // receives Serve's result
}

func startLive(t testing.TB, cfg Config) *liveServer {
	t.Helper()
	s := newTestServer(t, cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ls := &liveServer{s: s, url: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { ls.done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ls.done:
		case <-time.After(15 * time.Second):
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

// TestMeasuredTTFTAndITL is deliberately not parallel: Go runs sequential
// tests before releasing the parallel ones, so this package's other tests
// do not steal the CPU while it measures.
func TestMeasuredTTFTAndITL(t *testing.T) {
	const (
		ttft, itl = 50 * time.Millisecond, 10 * time.Millisecond
		ttftTol   = 15 * time.Millisecond
		itlTol    = 3 * time.Millisecond
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
			first := events[0].at.Sub(start)
			if first < ttft-ttftTol || first > ttft+ttftTol {
				t.Errorf("TTFT %v, want %v ± %v", first, ttft, ttftTol)
			}
			content := events[tt.skip : tt.skip+tokens]
			if tt.skip > 0 {
				// The role event goes out right before the first content
				// event, as in vLLM.
				if gap := content[0].at.Sub(events[0].at); gap > ttftTol {
					t.Errorf("role event %v before the first token", gap)
				}
			}
			mean := content[tokens-1].at.Sub(content[0].at) / (tokens - 1)
			if mean < itl-itlTol || mean > itl+itlTol {
				t.Errorf("mean ITL %v, want %v ± %v", mean, itl, itlTol)
			}
		})
	}
}

func TestClientDisconnectStopsHandler(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{true, false} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			t.Parallel()
			ls := startLive(t, Config{TTFT: 10 * time.Millisecond, ITL: 20 * time.Millisecond})
			// Warm up once so lazily started runtime goroutines are counted
			// in the baseline.
			warm := post(context.Background(), t, newClient(), ls.url+"/v1/completions", `{"prompt":"x","max_tokens":1,"stream":true}`)
			_, _ = io.Copy(io.Discard, warm.Body)
			warm.Body.Close()
			waitFor(time.Second, func() bool { return ls.s.active.Load() == 0 })
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
			if !waitFor(time.Second, func() bool { return ls.s.active.Load() == 1 }) {
				t.Fatal("request never became active")
			}
			cancel()
			if resp != nil {
				resp.Body.Close()
			}
			if !waitFor(2*time.Second, func() bool { return ls.s.active.Load() == 0 }) {
				t.Fatalf("handler still active after the client left")
			}
			if !waitFor(2*time.Second, func() bool { return runtime.NumGoroutine() <= baseline }) {
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
	if !waitFor(time.Second, func() bool {
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
	case <-time.After(5 * time.Second):
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
	start := time.Now()
	ls.cancel()
	select {
	case err := <-ls.done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Serve = %v, want an error wrapping context.DeadlineExceeded", err)
		}
		ls.done <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Serve took %v with a 100ms shutdown timeout", d)
	}
	rest, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(rest), "[DONE]") {
		t.Error("stream finished although the shutdown timeout cut it")
	}
	if !waitFor(2*time.Second, func() bool { return ls.s.active.Load() == 0 }) {
		t.Error("handler still active after its connection was closed")
	}
}
