package sim

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// These tests run in synctest bubbles: the clock moves only when every
// goroutine of the bubble waits, so a token is due at an exact instant and
// the test can ask for exactly that instant, on any machine under any load.

func TestFixedLatencyTimeline(t *testing.T) {
	t.Parallel()
	const (
		ttft = 30 * time.Millisecond
		itl  = 10 * time.Millisecond
	)
	synctest.Test(t, func(t *testing.T) {
		received := time.Now()
		st, err := FixedLatency{TTFT: ttft, ITL: itl}.Start(context.Background(), Request{Received: received, OutputTokens: 6})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for k := range 6 {
			due := received.Add(ttft + time.Duration(k)*itl)
			if k == 2 {
				// A slow consumer (a blocked client write) must not shift the
				// tokens after it: tokens 2 and 3 are then overdue and come
				// at once, token 4 is back on the original timeline.
				time.Sleep(3 * itl)
			}
			if k == 2 || k == 3 {
				due = received.Add(ttft + 4*itl)
			}
			if err := st.Next(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := time.Now(); !got.Equal(due) {
				t.Errorf("token %d at %v, want %v", k, got.Sub(received), due.Sub(received))
			}
		}
	})
}

func TestFixedLatencyZero(t *testing.T) {
	t.Parallel()
	// With no latency every token is due at once; Next must not block.
	synctest.Test(t, func(t *testing.T) {
		st, _ := FixedLatency{}.Start(context.Background(), Request{Received: time.Now(), OutputTokens: 1000})
		defer st.Close()
		start := time.Now()
		for range 1000 {
			if err := st.Next(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("1000 immediate tokens waited %v", d)
		}
	})
}

func TestFixedLatencyCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ttft time.Duration
	}{
		{"while waiting", time.Hour},
		// An overdue token is not handed to a client that has gone away.
		{"when overdue", 0},
	}
	const cancelAfter = 20 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				st, _ := FixedLatency{TTFT: tt.ttft, ITL: time.Hour}.Start(context.Background(), Request{Received: time.Now()})
				defer st.Close()
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(cancelAfter, cancel)
				start := time.Now()
				if tt.ttft == 0 {
					<-ctx.Done()
				}
				if err := st.Next(ctx); !errors.Is(err, context.Canceled) {
					t.Fatalf("Next = %v, want context.Canceled", err)
				}
				if d := time.Since(start); d != cancelAfter {
					t.Errorf("Next returned %v after the start, want at the cancel, %v", d, cancelAfter)
				}
			})
		})
	}
}
