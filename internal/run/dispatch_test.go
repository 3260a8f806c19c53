package run

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/google/go-cmp/cmp"
)

// quickServer answers every request with one token at once.
func quickServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func jobsFor(url string, n int) []job {
	jobs := make([]job, n)
	for i := range jobs {
		req := &backend.Request{APIURL: url + "/v1/completions", OutputLen: 1}
		jobs[i] = job{req: req, body: backend.Completions{}.Body(req)}
	}
	return jobs
}

// memTransport answers every request in memory with one token event,
// after holding it for hold: with no socket, a synctest bubble's clock
// moves only when every goroutine waits, so the dispatcher's instants are
// exact.
type memTransport struct{ hold time.Duration }

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	if m.hold > 0 {
		select {
		case <-time.After(m.hold):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader("data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: [DONE]\n\n")),
		Request: r}, nil
}

// memClient is a client of memTransport on the bubble's clock.
func memClient(clk *clock, hold time.Duration) *backend.Client {
	return &backend.Client{HTTP: &http.Client{Transport: memTransport{hold: hold}}, Now: clk.Seconds}
}

// TestDispatchFollowsSchedule: each request starts at its offset from one
// start instant, never early, and lateness does not grow along the run,
// because every wait targets start+offset rather than "previous send +
// gap". In a synctest bubble the instants are exact; the dispatcher's clock
// reading sleeps 3 ms first, as a busy core would delay it at every
// request, and the requests still start exactly on time. The lateness of a
// real run on a real machine is BenchmarkDispatchLateness's number.
func TestDispatchFollowsSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		offsets := make([]float64, 20)
		for i := range offsets {
			offsets[i] = 0.02 * float64(i+1) // 20 ms apart
		}
		clk := newClock()
		busy := func() float64 {
			time.Sleep(3 * time.Millisecond)
			return clk.Seconds()
		}
		d := &dispatcher{client: memClient(clk, 0), be: backend.Completions{}, grace: time.Second}
		res := d.run(context.Background(), busy, jobsFor("http://sim", len(offsets)), offsets)
		for i, out := range res.outputs {
			if !out.Success {
				t.Fatalf("request %d: %s", i, out.Error)
			}
			// The start reading (res.start) slept its 3 ms too.
			if late := out.StartTime - res.start - offsets[i]; math.Abs(late) > 1e-6 {
				t.Errorf("request %d started %.3f ms late", i, late*1000)
			}
		}
	})
}

// BenchmarkDispatchLateness runs 20 requests 20 ms apart against a loopback
// server per iteration and reports how late they started on this machine:
// the median, the worst, and how much later the last five started than the
// first five (which stays near 0 when lateness does not accumulate).
//
//	go test -run '^$' -bench DispatchLateness -benchtime 5x ./internal/run
func BenchmarkDispatchLateness(b *testing.B) {
	srv := quickServer(b)
	offsets := make([]float64, 20)
	for i := range offsets {
		offsets[i] = 0.02 * float64(i+1)
	}
	var late, drift []float64
	for b.Loop() {
		clk := newClock()
		d := &dispatcher{client: &backend.Client{HTTP: srv.Client(), Now: clk.Seconds}, be: backend.Completions{}, grace: time.Second}
		res := d.run(context.Background(), clk.Seconds, jobsFor(srv.URL, len(offsets)), offsets)
		run := make([]float64, len(offsets))
		for i, out := range res.outputs {
			if !out.Success {
				b.Fatalf("request %d: %s", i, out.Error)
			}
			run[i] = out.StartTime - res.start - offsets[i]
		}
		late = append(late, run...)
		drift = append(drift, metrics.Median(run[15:])-metrics.Median(run[:5]))
	}
	b.ReportMetric(metrics.Median(late)*1000, "late-p50-ms")
	b.ReportMetric(slices.Max(late)*1000, "late-max-ms")
	b.ReportMetric(metrics.Median(drift)*1000, "drift-ms")
}

// TestDispatchQueueTime is vLLM's test_serve_queue_time.py@0e913f02 at the
// dispatcher, in a synctest bubble: three requests at once share one slot
// and the server holds each for 50 ms, so each waits exactly for the ones
// before it.
func TestDispatchQueueTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clk := newClock()
		d := &dispatcher{client: memClient(clk, 50*time.Millisecond), be: backend.Completions{}, sem: newFIFO(1), grace: time.Second}
		res := d.run(context.Background(), clk.Seconds, jobsFor("http://sim", 3), []float64{0, 0, 0})
		for i, out := range res.outputs {
			if want := 0.05 * float64(i); !out.Success || math.Abs(out.ClientQueueTime-want) > 1e-6 {
				t.Errorf("request %d: queue time %v, want %v (%s)", i, out.ClientQueueTime, want, out.Error)
			}
		}
	})
}

// TestDispatchStopsPromptly: an interrupt during a long wait ends the run at
// once; requests not yet due are never sent. In a synctest bubble "at once"
// is exact: the run ends at the instant of the interrupt.
func TestDispatchStopsPromptly(t *testing.T) {
	t.Parallel()
	const after = 50 * time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		clk := newClock()
		d := &dispatcher{client: memClient(clk, 0), be: backend.Completions{}, stop: stop, grace: time.Second}
		time.AfterFunc(after, func() { close(stop) })
		start := time.Now()
		res := d.run(context.Background(), clk.Seconds, jobsFor("http://sim", 3), []float64{0, 10, 20})
		if el := time.Since(start); el != after {
			t.Errorf("run took %v, want it to end at the interrupt, %v", el, after)
		}
		if !res.interrupted || !res.sent[0] || res.sent[1] || res.sent[2] {
			t.Errorf("interrupted %v sent %v", res.interrupted, res.sent)
		}
		// Cancelling the context instead behaves the same.
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(after, cancel)
		d.stop = nil
		start = time.Now()
		res = d.run(ctx, clk.Seconds, jobsFor("http://sim", 2), []float64{0, 10})
		if el := time.Since(start); el != after || res.sent[1] {
			t.Errorf("cancel: took %v, sent %v", el, res.sent)
		}
	})
}

// bodyRecorder answers like memTransport and keeps every body it got, by
// request id.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies map[string]string
}

func (b *bodyRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.bodies[r.Header.Get("x-request-id")] = string(body)
	b.mu.Unlock()
	return memTransport{}.RoundTrip(r)
}

// TestDispatchSendsBodiesThenLetsGo: the dispatcher builds each body when
// it sends the request and then lets the request's prompt go (sent), so
// the bodies must be exactly those of the untouched requests, and no job
// may still hold its request after the run.
func TestDispatchSendsBodiesThenLetsGo(t *testing.T) {
	t.Parallel()
	be := backend.Completions{}
	const n = 40
	jobs := make([]job, n)
	want := map[string]string{}
	for i := range jobs {
		req := &backend.Request{APIURL: "http://gobench.invalid/v1/completions", OutputLen: 3, PromptLen: 5,
			Prompt: strings.Repeat("word ", i+1), RequestID: fmt.Sprintf("r-%d", i), Model: "m"}
		if i%3 == 0 {
			req.Prompt, req.PromptTokenIDs = "", []int{i, i + 1, i + 2}
		}
		want[req.RequestID] = string(be.Body(req))
		jobs[i] = job{req: req}
	}
	rec := &bodyRecorder{bodies: map[string]string{}}
	clk := newClock()
	d := &dispatcher{client: &backend.Client{HTTP: &http.Client{Transport: rec}, Now: clk.Seconds}, be: be, sem: newFIFO(7)}
	res := d.run(context.Background(), clk.Seconds, jobs, make([]float64, n))
	if diff := cmp.Diff(want, rec.bodies); diff != "" {
		t.Errorf("bodies sent (-want +got):\n%s", diff)
	}
	for i, o := range res.outputs {
		if !res.sent[i] || o.Error != "" || o.PromptLen != 5 {
			t.Errorf("request %d: sent %v, error %q, prompt_len %d", i, res.sent[i], o.Error, o.PromptLen)
		}
	}
	for i, j := range jobs {
		if j.req != nil {
			t.Errorf("job %d still holds its request after the run", i)
		}
	}
}
