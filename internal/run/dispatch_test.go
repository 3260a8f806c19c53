package run

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// quickServer answers every request with one token at once.
func quickServer(t *testing.T) *httptest.Server {
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

// TestDispatchFollowsSchedule: each request starts at its offset from one
// start instant, never early, and lateness does not grow along the run,
// because every wait targets start+offset rather than "previous send +
// gap". The bounds allow for the scheduler of a loaded 2-core CI machine:
// median lateness under 10 ms, no single request over 250 ms, and the last
// five requests not later (median) than the first five plus 10 ms.
func TestDispatchFollowsSchedule(t *testing.T) {
	t.Parallel()
	srv := quickServer(t)
	offsets := make([]float64, 20)
	for i := range offsets {
		offsets[i] = 0.02 * float64(i+1) // 20 ms apart
	}
	clk := newClock()
	d := &dispatcher{client: &backend.Client{HTTP: srv.Client(), Now: clk.Seconds}, be: backend.Completions{}, grace: time.Second}
	res := d.run(context.Background(), clk.Seconds, jobsFor(srv.URL, len(offsets)), offsets)
	late := make([]float64, len(offsets))
	for i, out := range res.outputs {
		if !out.Success {
			t.Fatalf("request %d: %s", i, out.Error)
		}
		late[i] = out.StartTime - res.start - offsets[i]
		if late[i] < -0.001 {
			t.Errorf("request %d started %.1f ms early", i, -late[i]*1000)
		}
		if late[i] > 0.25 {
			t.Errorf("request %d started %.1f ms late", i, late[i]*1000)
		}
	}
	if m := metrics.Median(late); m > 0.010 {
		t.Errorf("median lateness %.1f ms", m*1000)
	}
	if first, last := metrics.Median(late[:5]), metrics.Median(late[15:]); last > first+0.010 {
		t.Errorf("lateness accumulated: first five %.1f ms, last five %.1f ms", first*1000, last*1000)
	}
}

// TestDispatchStopsPromptly: an interrupt during a long wait ends the run at
// once; requests not yet due are never sent.
func TestDispatchStopsPromptly(t *testing.T) {
	t.Parallel()
	srv := quickServer(t)
	stop := make(chan struct{})
	clk := newClock()
	d := &dispatcher{client: &backend.Client{HTTP: srv.Client(), Now: clk.Seconds}, be: backend.Completions{}, stop: stop, grace: time.Second}
	time.AfterFunc(50*time.Millisecond, func() { close(stop) })
	start := time.Now()
	res := d.run(context.Background(), clk.Seconds, jobsFor(srv.URL, 3), []float64{0, 10, 20})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("run took %v after the interrupt", el)
	}
	if !res.interrupted || !res.sent[0] || res.sent[1] || res.sent[2] {
		t.Errorf("interrupted %v sent %v", res.interrupted, res.sent)
	}
	// Cancelling the context instead behaves the same.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	d.stop = nil
	start = time.Now()
	res = d.run(ctx, clk.Seconds, jobsFor(srv.URL, 2), []float64{0, 10})
	if el := time.Since(start); el > 2*time.Second || res.sent[1] {
		t.Errorf("cancel: took %v, sent %v", el, res.sent)
	}
}
