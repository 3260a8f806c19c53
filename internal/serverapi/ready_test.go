package serverapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// The TestWaitReady tests pin the later ready-check semantics
// (test_ready_checker.py@3923fc0d).

// notReady is the last failure a *NotReadyError carries.
func notReady(t *testing.T, err error) string {
	t.Helper()
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("err = %v, want a *NotReadyError", err)
	}
	return nr.Last
}

// TestWaitReadyAfterFailures: success after k failures takes k+1 probes.
func TestWaitReadyAfterFailures(t *testing.T) {
	t.Parallel()
	calls := 0
	var warn bytes.Buffer
	err := WaitReady(context.Background(), func(context.Context) error {
		calls++
		if calls == 3 {
			return nil
		}
		return errors.New("Traceback:\nnot yet\n")
	}, 5*time.Second, 5*time.Millisecond, &warn)
	if err != nil || calls != 3 {
		t.Errorf("err %v after %d calls", err, calls)
	}
	// Each failure warns with the last line of its error.
	if w := "WARNING: Endpoint is not ready. Error='not yet'\n"; warn.String() != w+w {
		t.Errorf("warnings %q", warn.String())
	}
}

// TestWaitReadyTimeout: the deadline passes without a completed probe.
func TestWaitReadyTimeout(t *testing.T) {
	t.Parallel()
	err := WaitReady(context.Background(), func(ctx context.Context) error {
		<-ctx.Done() // a probe that hangs is cancelled at the deadline
		return errors.New("cancelled")
	}, time.Second, time.Second, io.Discard)
	if last := notReady(t, err); last != "Endpoint readiness timed out after 1s." {
		t.Errorf("last = %q", last)
	}
	want := "Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: Endpoint readiness timed out after 1s."
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

// TestWaitReadyLastFailure: the last failure comes back unchanged and
// nothing sleeps past the deadline. This and the next run in synctest
// bubbles, whose clock moves only when every goroutine waits: the deadline
// and the cancel are exact instants, whatever the machine's load.
func TestWaitReadyLastFailure(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := WaitReady(context.Background(), func(context.Context) error {
			return errors.New("HTTP 503 Service Unavailable")
		}, 200*time.Millisecond, 5*time.Second, io.Discard)
		if last := notReady(t, err); last != "HTTP 503 Service Unavailable" {
			t.Errorf("last = %q", last)
		}
		if el := time.Since(start); el != 200*time.Millisecond {
			t.Errorf("took %v, want the 200ms deadline: slept past it", el)
		}
	})
}

// TestWaitReadyCancel: cancellation propagates.
func TestWaitReadyCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		err := WaitReady(ctx, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, 10*time.Second, time.Second, io.Discard)
		var nr *NotReadyError
		if !errors.Is(err, context.Canceled) || errors.As(err, &nr) {
			t.Errorf("err = %v", err)
		}
		if el := time.Since(start); el != 50*time.Millisecond {
			t.Errorf("returned %v after the start, want at the cancel, 50ms", el)
		}
	})
}
