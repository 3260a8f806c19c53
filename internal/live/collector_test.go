package live

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/metrics"
)

// ok is a successful request of the given TTFT and E2EL with 4 ITLs of
// itl seconds and 5 output tokens.
func ok(ttft, e2el, itl float64) *metrics.Output {
	return &metrics.Output{Success: true, TTFT: ttft, Latency: e2el, OutputTokens: 5, ITL: []float64{itl, itl, itl, itl}}
}

// TestWindowRecentAndSinceStart feeds 20 s of a run in virtual time: slow
// requests for the first 10 s, fast ones after; at 20 s the recent figures
// are the fast ones', those since the start mix both.
func TestWindowRecentAndSinceStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offsets := make([]float64, 40)
		for i := range offsets {
			offsets[i] = float64(i) / 2 // 2 req/s
		}
		c := NewCollector(Info{Total: 40, Offsets: offsets})
		w := NewWindow(c)
		for s := range 20 {
			e2el := 2.0
			if s >= 10 {
				e2el = 0.5
			}
			for range 2 {
				c.Released(0.001)
				c.Sent()
				c.Finished(ok(e2el/4, e2el, 0.01), "")
			}
			time.Sleep(time.Second)
			w.Read()
		}
		c.Released(0)
		c.Sent()
		c.Finished(&metrics.Output{Error: "HTTP 503"}, "HTTP 503")
		f := w.Read()
		for _, tc := range []struct {
			name      string
			got, want float64
		}{
			{"recent E2EL p99", f.E2EL[0].P99, 0.5},
			{"since start E2EL p99", f.E2EL[1].P99, 2},
			{"recent done rate", f.Recent.Done, 2.1},
			{"since start sent rate", f.All.Sent, 41.0 / 20},
			{"recent token rate", f.Recent.Tokens, 10},
			{"since start target", f.All.Target, 2},
			{"ITL p50", f.ITL[1].P50, 0.01},
		} {
			if math.Abs(tc.got-tc.want) > 0.032*tc.want {
				t.Errorf("%s = %g, want %g", tc.name, tc.got, tc.want)
			}
		}
		if f.Done != 41 || f.Failed != 1 || f.InFlight != 0 || f.Queued != 0 || f.Tokens != 200 {
			t.Errorf("counters = done %d failed %d in flight %d queued %d tokens %d", f.Done, f.Failed, f.InFlight, f.Queued, f.Tokens)
		}
		if len(f.Failures) != 1 || f.Failures[0] != (Failure{Kind: "HTTP 503", Count: 1}) {
			t.Errorf("failures = %+v", f.Failures)
		}
	})
}

// TestInFlightAndQueued counts requests released and waiting for a slot,
// and those sent and not back.
func TestInFlightAndQueued(t *testing.T) {
	c := NewCollector(Info{})
	for range 5 {
		c.Released(0)
	}
	for range 3 {
		c.Sent()
	}
	c.Finished(ok(0.1, 1, 0.01), "")
	c.Server(4, 2, 0.5)
	f := NewWindow(c).Read()
	if f.Queued != 2 || f.InFlight != 2 || !math.IsNaN(f.All.Target) {
		t.Errorf("queued %d, in flight %d, target %g; want 2, 2, NaN", f.Queued, f.InFlight, f.All.Target)
	}
	if !f.Server.Known || f.Server.Running != 4 || f.Server.Waiting != 2 || f.Server.KVUsage != 0.5 {
		t.Errorf("server = %+v", f.Server)
	}
}

// TestFeedingAllocatesNothing: a success, a failure of a kind seen before
// and the other events allocate nothing.
func TestFeedingAllocatesNothing(t *testing.T) {
	c := NewCollector(Info{})
	good := ok(0.1, 1, 0.01)
	bad := &metrics.Output{Error: "HTTP 503"}
	c.Finished(bad, "HTTP 503")
	allocs := testing.AllocsPerRun(100, func() {
		c.Released(0.001)
		c.Sent()
		c.Finished(good, "")
		c.Finished(bad, "HTTP 503")
		c.Server(1, 2, 0.3)
	})
	if allocs != 0 {
		t.Errorf("feeding allocates %g times per request, want 0", allocs)
	}
}
