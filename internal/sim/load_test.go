package sim

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadResult is what a batch of concurrent streams measured at the client.
type loadResult struct {
	ttfts   []time.Duration // per stream
	itls    []time.Duration // per stream: mean gap between its token events
	lateEnd []time.Duration // per stream: last token's arrival minus its due time
	events  int
	elapsed time.Duration
	cpu     time.Duration // process CPU, client and server together
	errs    []error
}

// runStreams opens n concurrent completions streams of `tokens` tokens each
// against url and measures them. Connections are opened beforehand and all
// streams are released together, the worst case for the server: every
// timer fires at the same instants.
func runStreams(tb testing.TB, url string, n, tokens int, ttft, itl time.Duration) loadResult {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}}
	defer client.CloseIdleConnections()
	body := `{"prompt":"x","max_tokens":` + strconv.Itoa(tokens) +
		`,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	res := loadResult{
		ttfts:   make([]time.Duration, n),
		itls:    make([]time.Duration, n),
		lateEnd: make([]time.Duration, n),
	}
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		warmed sync.WaitGroup
		start  = make(chan struct{})
	)
	fail := func(err error) {
		mu.Lock()
		res.errs = append(res.errs, err)
		mu.Unlock()
	}
	warmed.Add(n)
	for i := range n {
		wg.Go(func() {
			// Open the connection first, so that what is measured is the
			// streams rather than a burst of n TCP handshakes.
			if resp, err := client.Get(url + "/health"); err == nil {
				resp.Body.Close()
			}
			warmed.Done()
			<-start
			sent := time.Now()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/v1/completions", strings.NewReader(body))
			resp, err := client.Do(req)
			if err != nil {
				fail(err)
				return
			}
			defer resp.Body.Close()
			events, err := readEvents(resp.Body)
			if err != nil {
				fail(err)
				return
			}
			if len(events) != tokens+2 {
				fail(fmt.Errorf("stream %d: %d events, want %d", i, len(events), tokens+2))
				return
			}
			first, last := events[0].at, events[tokens-1].at
			res.ttfts[i] = first.Sub(sent)
			if tokens > 1 {
				res.itls[i] = last.Sub(first) / time.Duration(tokens-1)
			}
			res.lateEnd[i] = last.Sub(sent.Add(ttft + time.Duration(tokens-1)*itl))
		})
	}
	warmed.Wait()
	cpu0 := processCPU()
	t0 := time.Now()
	close(start)
	wg.Wait()
	res.elapsed = time.Since(t0)
	res.cpu = processCPU() - cpu0
	res.events = n * (tokens + 2)
	return res
}

// pct is the p-th percentile (nearest rank) of ds; enough for reporting.
func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p/100*float64(len(s))))]
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}

// TestManyStreams checks that a few hundred simultaneous streams (64 under
// -race) all finish with every event, and that no client sees a token
// before it was due: each client reads its clock before sending, so its
// TTFT and its last token's arrival can only be later than configured,
// however loaded the machine. How much later is the machine's share and
// BenchmarkConcurrentStreams' number, not a pass mark.
func TestManyStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 256 connections")
	}
	const (
		tokens    = 50
		ttft, itl = 50 * time.Millisecond, 10 * time.Millisecond
	)
	n := 256
	if raceEnabled {
		n = 64
	}
	ls := startLive(t, Config{TTFT: ttft, ITL: itl})
	res := runStreams(t, ls.url, n, tokens, ttft, itl)
	for _, err := range res.errs {
		t.Error(err)
	}
	if res.errs != nil {
		t.FailNow()
	}
	for i := range n {
		if res.ttfts[i] < ttft || res.lateEnd[i] < 0 {
			t.Errorf("stream %d: TTFT %v, last token %v from due: earlier than configured", i, res.ttfts[i], res.lateEnd[i])
		}
	}
	t.Logf("%d streams: TTFT p50 %v p99 %v, mean ITL %v, last token late p50 %v p99 %v, CPU %v for %d events",
		n, pct(res.ttfts, 50), pct(res.ttfts, 99), mean(res.itls), pct(res.lateEnd, 50), pct(res.lateEnd, 99), res.cpu, res.events)
}

// BenchmarkConcurrentStreams runs N simultaneous streams of 100 tokens
// (TTFT 50 ms, ITL 10 ms) per iteration and reports what the client saw:
// how close a client over loopback comes to the configured TTFT and ITL,
// alone (N = 1) and under load. Client and server share the process, so
// cpu-µs/event covers both ends.
//
//	go test -run '^$' -bench ConcurrentStreams -benchtime 1x ./internal/sim
func BenchmarkConcurrentStreams(b *testing.B) {
	const (
		tokens    = 100
		ttft, itl = 50 * time.Millisecond, 10 * time.Millisecond
	)
	for _, n := range []int{1, 256, 1024, 2048} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ls := startLive(b, Config{TTFT: ttft, ITL: itl})
			var all loadResult
			for b.Loop() {
				res := runStreams(b, ls.url, n, tokens, ttft, itl)
				if len(res.errs) > 0 {
					b.Fatalf("%d streams failed, first: %v", len(res.errs), res.errs[0])
				}
				all.ttfts = append(all.ttfts, res.ttfts...)
				all.itls = append(all.itls, res.itls...)
				all.lateEnd = append(all.lateEnd, res.lateEnd...)
				all.events += res.events
				all.elapsed += res.elapsed
				all.cpu += res.cpu
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(pct(all.ttfts, 50)), "ttft-p50-ms")
			b.ReportMetric(ms(pct(all.ttfts, 99)), "ttft-p99-ms")
			b.ReportMetric(ms(mean(all.itls)), "itl-mean-ms")
			b.ReportMetric(ms(pct(all.lateEnd, 99)), "end-late-p99-ms")
			b.ReportMetric(float64(all.events)/all.elapsed.Seconds(), "events/s")
			if all.cpu > 0 {
				b.ReportMetric(float64(all.cpu.Microseconds())/float64(all.events), "cpu-µs/event")
			}
		})
	}
}
