package sim

import (
	"context"
	"errors"
	"testing"
	"time"
)

// These tests sleep on real timers, so they assert one-sided bounds (a token
// is never early) plus generous upper bounds for a loaded 2-core CI box.

func TestFixedLatencyTimeline(t *testing.T) {
	t.Parallel()
	const (
		ttft = 30 * time.Millisecond
		itl  = 10 * time.Millisecond
		late = 25 * time.Millisecond // scheduling slack allowed per token
	)
	received := time.Now()
	st, err := FixedLatency{TTFT: ttft, ITL: itl}.Start(context.Background(), Request{Received: received, OutputTokens: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for k := range 6 {
		if k == 2 {
			// A slow consumer (a blocked client write) must not shift the
			// tokens after it: token 3 is then overdue and comes at once,
			// token 4 is back on the original timeline.
			time.Sleep(3 * itl)
		}
		if err := st.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		due := received.Add(ttft + time.Duration(k)*itl)
		got := time.Now()
		if got.Before(due) {
			t.Errorf("token %d at %v, due at %v: early", k, got.Sub(received), due.Sub(received))
		}
		if k != 2 && k != 3 && got.Sub(due) > late {
			t.Errorf("token %d at %v, due at %v: more than %v late", k, got.Sub(received), due.Sub(received), late)
		}
	}
}

func TestFixedLatencyZero(t *testing.T) {
	t.Parallel()
	// With no latency every token is due at once; Next must not block.
	st, _ := FixedLatency{}.Start(context.Background(), Request{Received: time.Now(), OutputTokens: 1000})
	defer st.Close()
	start := time.Now()
	for range 1000 {
		if err := st.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("1000 immediate tokens took %v", d)
	}
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _ := FixedLatency{TTFT: tt.ttft, ITL: time.Hour}.Start(context.Background(), Request{Received: time.Now()})
			defer st.Close()
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			start := time.Now()
			if tt.ttft == 0 {
				<-ctx.Done()
			}
			if err := st.Next(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Next = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Next returned %v after the cancel", d)
			}
		})
	}
}
