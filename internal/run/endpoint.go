package run

import (
	"context"
	"errors"

	"github.com/gobench/gobench/internal/backend"
)

// testProbe is the ready check's probe (serverapi.WaitReady): one test
// request, whose failure text is the error.
func testProbe(c *backend.Client, be backend.Backend, req *backend.Request, body []byte) func(context.Context) error {
	return func(ctx context.Context) error {
		if out := c.Do(ctx, be, req, body); !out.Success {
			return errors.New(out.Error)
		}
		return nil
	}
}

// warmUp sends n concurrent copies of the test request, bounded by their own
// semaphore of size maxConcurrency (0 = unbounded), and discards the results.
func warmUp(ctx context.Context, c requester, be backend.Backend, req *backend.Request, body []byte, n, maxConcurrency int, prog *progress) error {
	var sem chan struct{}
	if maxConcurrency > 0 {
		sem = make(chan struct{}, maxConcurrency)
	}
	errs := make(chan error, n)
	for range n {
		go func() {
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-ctx.Done():
					errs <- ctx.Err()
					return
				}
			}
			prog.sent()
			out := c.Do(ctx, be, req, body)
			prog.finished(&out)
			errs <- nil
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil && !errors.Is(first, context.Canceled) {
		return first
	}
	return ctx.Err()
}
