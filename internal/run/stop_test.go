package run

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/tokenizer"
)

// fakeServer answers a run's calls in memory, with no socket, so that a
// synctest bubble's clock moves only when every goroutine waits: each
// completion streams two tokens, /metrics is a page with one counter, the
// profiler's calls succeed. The call that hang picks (by path and how many
// calls of that path came before it) waits until it is cancelled instead,
// and the first such call closes reached.
type fakeServer struct {
	hang    func(path string, n int) bool
	reached chan struct{}
	once    sync.Once
	mu      sync.Mutex
	calls   map[string]int
}

func newFakeServer(hang func(path string, n int) bool) *fakeServer {
	return &fakeServer{hang: hang, reached: make(chan struct{}), calls: map[string]int{}}
}

func (f *fakeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	f.mu.Lock()
	n := f.calls[r.URL.Path]
	f.calls[r.URL.Path]++
	f.mu.Unlock()
	if f.hang != nil && f.hang(r.URL.Path, n) {
		f.once.Do(func() { close(f.reached) })
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	body := "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n"
	header := http.Header{"Content-Type": {"text/event-stream"}}
	if r.URL.Path == "/metrics" {
		body, header = "vllm:num_requests_running{model_name=\"m\"} 0\n", http.Header{"Content-Type": {"text/plain"}}
	}
	return &http.Response{StatusCode: http.StatusOK, Header: header, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// TestStopEndsEveryPhase: a SIGTERM (the first interrupt, quick) ends the
// run within seconds whichever phase it comes in, even where the server
// stops answering there, and the result is saved: before the first
// request (nothing sent), during the measured run (what was measured), or
// after it (all of it). Virtual time: the bound is exact, not a guess at a
// loaded machine's speed. Without the bounds each case waits for minutes
// (the profiler's 5 minutes, the ready check's 10, a hundred million
// warm-ups, the 300 s grace) or for ever.
func TestStopEndsEveryPhase(t *testing.T) {
	t.Parallel()
	const completions = "/v1/completions"
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		hang func(path string, n int) bool
		// interrupted tells that the stop cut the measured run; the
		// result then holds what was sent (some of the 8, or none before
		// the run), else all 8.
		interrupted bool
		sent        int
	}{
		{name: "ready check", set: func(o *Options) { o.ReadyCheckTimeout = 10 * time.Minute },
			hang: func(p string, n int) bool { return p == completions }, interrupted: true},
		{name: "warm-ups", set: func(o *Options) { o.NumWarmups = dataset.MaxSamples },
			hang: func(p string, n int) bool { return p == completions && n >= 1000 }, interrupted: true},
		{name: "first scrape", hang: func(p string, n int) bool { return p == "/metrics" && n == 0 }, interrupted: true},
		{name: "measured run", hang: func(p string, n int) bool { return p == completions && n >= 2 }, interrupted: true, sent: -1},
		{name: "final scrape", hang: func(p string, n int) bool { return p == "/metrics" && n == 1 }, sent: 8},
		{name: "profiler stop", set: func(o *Options) { o.Profile = true },
			hang: func(p string, n int) bool { return p == "/stop_profile" }, sent: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				srv := newFakeServer(tc.hang)
				dir := t.TempDir()
				o := baseOptions("http://fake.invalid")
				o.Model, o.Tokenizer = "m", tokenizer.BuiltinName
				o.NumPrompts, o.Dataset.NumPrompts, o.MaxConcurrency, o.InterruptGrace = 8, 8, 4, 300*time.Second
				o.SaveResult, o.SaveDetailed, o.ResultDir, o.ResultFilename = true, true, dir, "r.json"
				if tc.set != nil {
					tc.set(&o)
				}
				stop := make(chan struct{})
				var stoppedAt atomic.Int64
				go func() {
					<-srv.reached
					stoppedAt.Store(time.Now().UnixNano())
					close(stop)
				}()
				var b buffers
				env := b.env()
				env.Stop, env.Quick = stop, func() bool { return true }
				env.Transport = func(int, bool) http.RoundTripper { return srv }
				res, err := Serve(context.Background(), o, env)
				if stoppedAt.Load() == 0 {
					t.Fatalf("the phase was never reached: %v\n%s", err, b.err.String())
				}
				took := time.Since(time.Unix(0, stoppedAt.Load()))
				if limit := QuickGrace + 2*afterInterrupt; took > limit {
					t.Errorf("ended %v after the stop, want at most %v", took, limit)
				}
				if tc.interrupted != errors.Is(err, ErrInterrupted) || (!tc.interrupted && err != nil) {
					t.Fatalf("err = %v (interrupted %v)\n%s", err, tc.interrupted, b.err.String())
				}
				saved := readResult(t, filepath.Join(dir, "r.json"))
				got := len(saved["ttfts"].([]any))
				if tc.sent < 0 && (got < 2 || got >= 8) || tc.sent >= 0 && got != tc.sent || res.File == "" {
					t.Errorf("%d requests saved, want %d (-1: some but not all)", got, tc.sent)
				}
			})
		})
	}
}

// countingRequester is a requester that answers after hold and counts the
// calls and the most in flight at once.
type countingRequester struct {
	hold            time.Duration
	calls, in, most atomic.Int64
	mu              sync.Mutex
}

func (c *countingRequester) Do(ctx context.Context, _ backend.Backend, _ *backend.Request, _ []byte) metrics.Output {
	c.calls.Add(1)
	n := c.in.Add(1)
	defer c.in.Add(-1)
	c.mu.Lock()
	c.most.Store(max(c.most.Load(), n))
	c.mu.Unlock()
	select {
	case <-time.After(c.hold):
		return metrics.Output{Success: true, OutputTokens: 1}
	case <-ctx.Done():
		return metrics.Output{Error: ctx.Err().Error()}
	}
}

// TestWarmUpBounded: the warm-ups never hold more than their bound in
// flight (--max-concurrency, else warmUpPool; a few are all sent at once,
// as vLLM sends them), nothing grows with their count, and the stop ends
// them with the copies in flight: a hundred million of them once filled
// 3.2 GB with goroutines and a channel the size of the count, and ignored
// SIGTERM.
func TestWarmUpBounded(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n, limit     int
		wantMost     int
		wantFinished bool
	}{
		{name: "a few at once", n: 5, wantMost: 5, wantFinished: true},
		{name: "max-concurrency", n: dataset.MaxSamples, limit: 8, wantMost: 8},
		{name: "pool", n: dataset.MaxSamples, wantMost: warmUpPool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				c := &countingRequester{hold: 100 * time.Millisecond}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				defer time.AfterFunc(time.Second, cancel).Stop()
				err := warmUp(ctx, c, backend.Completions{}, &backend.Request{}, nil, tc.n, tc.limit, nil)
				runtime.ReadMemStats(&after)
				if tc.wantFinished != (err == nil) {
					t.Errorf("err = %v", err)
				}
				if got := c.most.Load(); got != int64(tc.wantMost) {
					t.Errorf("at most %d in flight, want %d", got, tc.wantMost)
				}
				// Ten rounds of the bound in the second before the stop.
				if got, bound := c.calls.Load(), int64(11*tc.wantMost); got > bound || got < int64(min(tc.n, tc.wantMost)) {
					t.Errorf("%d sent, want at most %d", got, bound)
				}
				if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
					t.Errorf("allocated %d MB for %d warm-ups", grew>>20, tc.n)
				}
			})
		})
	}
}

// lockedBuffers is one output buffer for several goroutines.
type lockedBuffers struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffers) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
