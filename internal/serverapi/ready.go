package serverapi

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// ReadyInterval is vLLM's pause between readiness probes.
const ReadyInterval = 5 * time.Second

// NotReadyError is a ready check that ended without a successful probe.
// Its text is vLLM's benchmark() error for a failed initial test run.
type NotReadyError struct {
	// Last is the last failed probe's error text, unchanged, or
	// "Endpoint readiness timed out after {timeout}s." when no probe
	// completed before the deadline.
	Last string
}

// Error is vLLM's "Initial test run failed" message.
func (e *NotReadyError) Error() string {
	return "Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: " + e.Last
}

// WaitReady sends probe until it succeeds (returns nil) or timeout passes,
// pausing interval between probes, with the later upstream semantics
// (vLLM's ready_checker, rc.py@032a8d24): every probe is bounded by the
// time left and cancelled when it runs out; the pause never runs past the
// deadline; a success after k failures returns after exactly k+1 probes;
// each failure prints vLLM's "Endpoint is not ready" warning (the last line
// of its error) to warn. It returns nil when a probe succeeded, a
// *NotReadyError when the deadline passed, and an error wrapping ctx.Err()
// when ctx ends first.
//
// The probe is the benchmark's test request, which the caller builds: this
// package sends no benchmark request of its own.
func WaitReady(ctx context.Context, probe func(context.Context) error, timeout, interval time.Duration, warn io.Writer) error {
	deadline := time.Now().Add(timeout)
	var last *NotReadyError
	for time.Until(deadline) > 0 {
		pctx, cancel := context.WithDeadline(ctx, deadline)
		err := probe(pctx)
		expired := pctx.Err() != nil
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("ready check: %w", ctx.Err())
		}
		if err == nil {
			return nil
		}
		if !expired {
			last = &NotReadyError{Last: err.Error()}
			lines := strings.Split(strings.TrimSpace(last.Last), "\n")
			fmt.Fprintf(warn, "WARNING: Endpoint is not ready. Error='%s'\n", lines[len(lines)-1])
		}
		wait := min(interval, time.Until(deadline))
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("ready check: %w", ctx.Err())
		}
	}
	if last != nil {
		return last
	}
	return &NotReadyError{Last: fmt.Sprintf("Endpoint readiness timed out after %ds.", int(timeout/time.Second))}
}
