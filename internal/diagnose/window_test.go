package diagnose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	sm "github.com/gobench/gobench/internal/servermetrics"
	"github.com/google/go-cmp/cmp"
)

// windowPages are a window's two ends: 10 requests before it, 30 more in
// it (20 at 1.2 s TTFT with 1 s queued, plus the earlier 10 at 50 ms).
func windowPages() (start, end *page) {
	start = scenario(0.05, 0.001, 0.03, smoothITL())
	start.hists[sm.TTFT], start.hists[sm.Queue] = obs(0.05, 10), obs(0.001, 10)
	start.counter(sm.Preemptions, 2).counter(sm.RequestSuccess, 10).counter(sm.GenerationTokens, 1000).counter(sm.PromptTokens, 9000)
	end = scenario(0.05, 0.001, 0.03, smoothITL())
	end.hists[sm.TTFT] = append(obs(0.05, 10), obs(1.2, 30)...)
	end.hists[sm.Queue] = append(obs(0.001, 10), obs(1.0, 30)...)
	end.counter(sm.Preemptions, 14).counter(sm.RequestSuccess, 40).counter(sm.GenerationTokens, 4000).counter(sm.PromptTokens, 36000)
	end.gauge(sm.KVUsage, 0.95).gauge(sm.Waiting, 12)
	return start, end
}

// TestWindowArithmetic checks the window's figures: increases over 60 s,
// quantiles of the 30 requests of the window only.
func TestWindowArithmetic(t *testing.T) {
	t.Parallel()
	a, b := windowPages()
	r, err := FromScrapes(Input{Sources: []string{"s"}, Start: [][]byte{a.bytes()}, End: [][]byte{b.bytes()}, Seconds: 60}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	rt := r.Ratios
	// 14-2 = 12 preemptions in 60 s; 40-10 = 30 finished; 27000 and 3000 tokens.
	want := []float64{12, 0.2, 30, 0.5, 27000, 3000, 9, 0.4}
	got := []float64{rt.Preemptions, rt.PreemptionsPerS, rt.Finished, rt.RequestsPerS, rt.PromptTokens, rt.GenerationTokens,
		rt.PromptToGeneration, rt.PreemptionsPerFinished}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ratios (-want +got):\n%s", diff)
	}
	// The window's 30 queue times are all 1 s, in (0.8, 1]: p50 = 0.8 + 0.2 x 15/30.
	if q := r.row(sm.Queue); q.Count != 30 || math.Abs(q.P[p50].Value-0.9) > 1e-12 || math.Abs(q.Mean-1.0) > 1e-12 {
		t.Errorf("queue row %+v", q)
	}
	if r.Verdict != QueueMemoryThrashing || r.Seconds != 60 || r.SinceStart {
		t.Errorf("verdict %s window %v since start %v", r.Verdict, r.Seconds, r.SinceStart)
	}
	if r.Gauges.Peak.Waiting != 12 || r.Gauges.Samples != 2 {
		t.Errorf("peak %+v over %d samples", r.Gauges.Peak, r.Gauges.Samples)
	}
}

// TestWindowUnknownAndRestart: without the window's length there are
// counts but no rates; a source that restarted counts its totals since
// the restart, and the report says so.
func TestWindowUnknownAndRestart(t *testing.T) {
	t.Parallel()
	a, b := windowPages()
	a.counter(sm.Preemptions, 50) // more than at the end: a restart
	r, err := FromScrapes(Input{Sources: []string{"s"}, Start: [][]byte{a.bytes()}, End: [][]byte{b.bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Ratios.Preemptions != 14 || !math.IsNaN(r.Ratios.PreemptionsPerS) {
		t.Errorf("preemptions %v per second %v: want the end's 14 and no rate", r.Ratios.Preemptions, r.Ratios.PreemptionsPerS)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"not known: counts are given instead of rates", "restarted inside the window (s: vllm:num_preemptions_total went down from 50 to 14)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestModelChoice: several models need --model; an unknown one names the
// served ones.
func TestModelChoice(t *testing.T) {
	t.Parallel()
	a, b := scenario(0.05, 0.001, 0.03, smoothITL()), scenario(1.2, 1.0, 0.1, smoothITL())
	b.model = "other"
	both := append(a.bytes(), b.untyped()...)
	var me *ModelError
	if _, err := FromScrapes(Input{End: [][]byte{both}}, DefaultOptions()); !errors.As(err, &me) ||
		err.Error() != "the server serves several models (m, other): choose one with --model" {
		t.Errorf("no model: %v", err)
	}
	o := DefaultOptions()
	o.Model = "x"
	if _, err := FromScrapes(Input{End: [][]byte{both}}, o); !errors.As(err, &me) || !strings.Contains(err.Error(), `model "x" is not served`) {
		t.Errorf("unknown model: %v", err)
	}
	o.Model = "m"
	r, err := FromScrapes(Input{End: [][]byte{both}}, o)
	if err != nil || r.Model != "m" || r.row(sm.TTFT).Count != 100 {
		t.Errorf("model m: %v", err)
	}
	var pe *ParseError
	if _, err := FromScrapes(Input{Sources: []string{"f.prom"}, End: [][]byte{[]byte("a{ 1\n")}}, o); !errors.As(err, &pe) ||
		!strings.HasPrefix(err.Error(), "f.prom: text format parsing error in line 1") {
		t.Errorf("parse error: %v", err)
	}
}

// fakeClock is a clock that sleeping advances.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// sequence is a source that serves pages in turn (the last one again).
func sequence(name string, pages ...[]byte) Source {
	var mu sync.Mutex
	n := 0
	return Source{Name: name, Scrape: func(context.Context) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		p := pages[min(n, len(pages)-1)]
		n++
		return p, nil
	}}
}

// TestCollector runs a 20 s window sampled every 5 s on a fake clock:
// the start scrape, samples at 5, 10 and 15 s, the end scrape at 20 s.
func TestCollector(t *testing.T) {
	t.Parallel()
	a, b := windowPages()
	mid := scenario(0.05, 0.001, 0.03, smoothITL()).gauge(sm.Waiting, 30).gauge(sm.KVUsage, 0.99).bytes()
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var progress strings.Builder
	c := &Collector{Sources: []Source{sequence("s", a.bytes(), mid, mid, mid, b.bytes())}, Window: 20 * time.Second,
		Interval: 5 * time.Second, Now: clock.Now, Sleep: clock.Sleep, Progress: &progress}
	col, err := c.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if col.Seconds != 20 || len(col.States) != 3 || col.States[0].At != 5 || col.States[2].Waiting != 30 {
		t.Errorf("collection: %v s, states %+v", col.Seconds, col.States)
	}
	if n := strings.Count(progress.String(), "waiting 30"); n != 3 {
		t.Errorf("progress:\n%s", progress.String())
	}
	r, err := FromScrapes(col.Input, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Gauges.Peak.Waiting != 30 || r.Gauges.Peak.KVMax != 0.99 || r.Gauges.Samples != 5 {
		t.Errorf("peak %+v over %d", r.Gauges.Peak, r.Gauges.Samples)
	}
}

// TestCollectorStopAndErrors: Stop ends the window at once with a note;
// a failed first scrape is a *ScrapeError; a failed sample is skipped.
func TestCollectorStopAndErrors(t *testing.T) {
	t.Parallel()
	a, b := windowPages()
	stop := make(chan struct{})
	close(stop)
	clock := &fakeClock{now: time.Unix(0, 0)}
	c := &Collector{Sources: []Source{sequence("s", a.bytes(), b.bytes())}, Window: time.Minute, Now: clock.Now,
		Sleep: func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }, Stop: stop}
	col, err := c.Collect(context.Background())
	if err != nil || len(col.Notes) != 1 || !strings.HasPrefix(col.Notes[0], "the window was ended early") {
		t.Errorf("stopped: %v %+v", err, col)
	}
	down := Source{Name: "http://x/metrics", Scrape: func(context.Context) ([]byte, error) { return nil, errors.New("refused") }}
	var se *ScrapeError
	if _, err := (&Collector{Sources: []Source{down}, Now: clock.Now, Sleep: clock.Sleep}).Collect(context.Background()); !errors.As(err, &se) ||
		err.Error() != "scrape http://x/metrics: refused" {
		t.Errorf("down: %v", err)
	}
	n := 0
	flaky := Source{Name: "f", Scrape: func(context.Context) ([]byte, error) {
		n++
		if n == 2 {
			return nil, fmt.Errorf("timeout")
		}
		return b.bytes(), nil
	}}
	var progress strings.Builder
	col, err = (&Collector{Sources: []Source{flaky}, Window: 10 * time.Second, Interval: 5 * time.Second, Now: clock.Now,
		Sleep: clock.Sleep, Progress: &progress}).Collect(context.Background())
	if err != nil || len(col.States) != 0 || !strings.Contains(progress.String(), "sample skipped: scrape f: timeout") {
		t.Errorf("flaky: %v %+v\n%s", err, col.States, progress.String())
	}
}

// TestSaved round-trips a page through --save-scrapes' form.
func TestSaved(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e8, time.UTC)
	page, got, ok := ReadSaved(Saved([]byte("a 1\n# EOF\n"), "http://h/metrics", at))
	if !ok || !got.Equal(at) || string(page) != "a 1\n# EOF\n" {
		t.Errorf("ReadSaved: %q %v %v", page, got, ok)
	}
	if p, _, ok := ReadSaved([]byte("a 1\n")); ok || string(p) != "a 1\n" {
		t.Errorf("plain page: %q %v", p, ok)
	}
	if w := WindowBetween(at, at.Add(90*time.Second)); w != 90 {
		t.Errorf("window %v", w)
	}
	if w := WindowBetween(time.Time{}, at); w != 0 {
		t.Errorf("unknown window %v", w)
	}
}

// TestScrapeTimeoutSaysTimedOut: a scrape that runs out of
// --scrape-timeout says "timed out after", as serve says of its calls,
// not the HTTP client's "context deadline exceeded"; a timeout the
// server API already named keeps its text.
func TestScrapeTimeoutSaysTimedOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		scrape func(ctx context.Context) ([]byte, error)
		want   string
	}{
		{"http client", func(ctx context.Context) ([]byte, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("Get %q: %w", "http://x/metrics", ctx.Err())
		}, "scrape http://x/metrics: timed out after 20ms (--scrape-timeout)"},
		{"already named", func(context.Context) ([]byte, error) {
			return nil, fmt.Errorf("GET http://x/metrics: timed out after 20ms: %w", context.DeadlineExceeded)
		}, "scrape http://x/metrics: GET http://x/metrics: timed out after 20ms: context deadline exceeded"},
	} {
		src := Source{Name: "http://x/metrics", Scrape: tc.scrape}
		_, err := (&Collector{Sources: []Source{src}, Timeout: 20 * time.Millisecond}).Collect(context.Background())
		if err == nil || err.Error() != tc.want || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}
