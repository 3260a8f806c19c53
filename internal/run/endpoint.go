package run

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

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

// warmUpPool bounds the warm-ups in flight when nothing else does (no
// --max-concurrency): vLLM sends them all at once, which for a large
// --num-warmups is a goroutine and a connection per copy before the first
// answer, and a stop that had to wait for all of them.
const warmUpPool = 256

// warmUp sends n copies of the test request from at most limit workers
// (0: warmUpPool), each taking the next copy when its last one is answered,
// and discards the results. Nothing is sized by n, and the workers stop
// taking copies when ctx ends (the first interrupt), so a stop ends the
// warm-ups with the copies in flight.
func warmUp(ctx context.Context, c requester, be backend.Backend, req *backend.Request, body []byte, n, limit int, prog *progress) error {
	if limit <= 0 {
		limit = warmUpPool
	}
	var taken atomic.Int64
	var wg sync.WaitGroup
	for range min(n, limit) {
		wg.Go(func() {
			for ctx.Err() == nil && taken.Add(1) <= int64(n) {
				prog.sent()
				out := c.Do(ctx, be, req, body)
				prog.finished(&out)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
