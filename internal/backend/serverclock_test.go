package backend

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServerClockSpans: per Date value, the latest send and the earliest
// arrival of the responses carrying it, by value whatever the order they
// came in; responses without one Date header count as undated.
func TestServerClockSpans(t *testing.T) {
	t.Parallel()
	type obs struct {
		date          []string // nil: no Date header
		sent, arrived float64
	}
	const (
		d0 = "Tue, 01 Dec 2026 06:00:00 GMT" // 1796104800
		d1 = "Tue, 01 Dec 2026 06:00:01 GMT"
		d2 = "Tue, 01 Dec 2026 06:00:02 GMT"
	)
	tests := []struct {
		name string
		obs  []obs
		want ServerDates
	}{
		{"monotone", []obs{{[]string{d0}, 1, 1.2}, {[]string{d0}, 1.5, 1.1}, {[]string{d1}, 2, 2.3}, {[]string{d1}, 2.1, 2.2}},
			ServerDates{Responses: 4, Spans: []DateSpan{{1796104800, 1.5, 1.1, 2}, {1796104801, 2.1, 2.2, 2}}}},
		{"out of order: an older value after a newer one", []obs{{[]string{d2}, 1, 1.5}, {[]string{d0}, 2, 2.5}, {[]string{d1}, 3, 3.5}, {[]string{d0}, 4, 4.5}},
			ServerDates{Responses: 4, Spans: []DateSpan{{1796104800, 4, 2.5, 2}, {1796104801, 3, 3.5, 1}, {1796104802, 1, 1.5, 1}}}},
		{"undated", []obs{{nil, 1, 2}, {[]string{"yesterday"}, 1, 2}, {[]string{d0, d1}, 1, 2}, {[]string{d0}, 3, 4}},
			ServerDates{Responses: 4, Undated: 3, Spans: []DateSpan{{1796104800, 3, 4, 1}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c ServerClock
			for _, o := range tc.obs {
				resp := &http.Response{Header: http.Header{}}
				if o.date != nil {
					resp.Header["Date"] = o.date
				}
				c.Observe(resp, o.sent, func() float64 { return o.arrived })
			}
			if diff := cmp.Diff(tc.want, c.Dates()); diff != "" {
				t.Errorf("dates (-want +got):\n%s", diff)
			}
		})
	}
	var none *ServerClock
	none.Observe(&http.Response{}, 0, func() float64 { t.Fatal("a nil ServerClock read the clock"); return 0 })
	(&ServerClock{}).Observe(nil, 0, func() float64 { t.Fatal("a failed request read the clock"); return 0 })
}

// TestDoObservesDate: Client.Do hands every answer's Date to its
// ServerClock, with the clock read before sending and after the headers,
// failed answers included; without a ServerClock nothing is read.
func TestDoObservesDate(t *testing.T) {
	t.Parallel()
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := count.Add(1)
		w.Header().Set("Date", fmt.Sprintf("Tue, 01 Dec 2026 06:00:0%d GMT", n))
		if n == 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"+doneEvent)
	}))
	defer srv.Close()
	clk := &tickClock{}
	c := &Client{HTTP: srv.Client(), Now: clk.Now, ServerClock: &ServerClock{}}
	req := &Request{APIURL: srv.URL, Prompt: "x", OutputLen: 1}
	for range 2 {
		c.Do(guard(t), Completions{}, req, []byte("{}"))
	}
	// Request 1: sent at tick 0, headers by tick 1, then its two events
	// (2, 3); request 2: sent at 4, headers by 5.
	want := ServerDates{Responses: 2, Spans: []DateSpan{{1796104801, 0, 1, 1}, {1796104802, 4, 5, 1}}}
	if diff := cmp.Diff(want, c.ServerClock.Dates()); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
}

// BenchmarkServerClockObserve is the cost a shard's run adds per answer
// (measured, not asserted): go test -bench ServerClock ./internal/backend.
func BenchmarkServerClockObserve(b *testing.B) {
	var c ServerClock
	resp := &http.Response{Header: http.Header{"Date": []string{"Tue, 01 Dec 2026 06:00:00 GMT"}}}
	now := func() float64 { return 1 }
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Observe(resp, 0, now)
		}
	})
}
