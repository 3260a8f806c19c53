package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gobench/gobench/internal/backend"
)

// warnUnlistedModel warns when the model requests name (--model, or
// --served-model-name) is not among those GET /v1/models lists: vLLM
// answers every request for another model with HTTP 404, its /tokenize
// too, which alone would read as a missing endpoint. A server that lists
// no models, fails the call or answers to any name (llama.cpp) loses
// nothing: the run goes on either way.
func (p *Plan) warnUnlistedModel(ctx context.Context) {
	name := p.servedModel()
	ids, err := p.api.ModelIDs(ctx)
	if err != nil || len(ids) == 0 || slices.Contains(ids, name) {
		return
	}
	listed := ids
	if len(ids) > maxListedModels {
		listed = append(ids[:maxListedModels:maxListedModels], fmt.Sprintf("and %d more", len(ids)-maxListedModels))
	}
	fmt.Fprintf(p.out, "WARNING: /v1/models lists %s, not %q: a vLLM server answers 404 to requests for it "+
		"(--model names the model, --served-model-name the name sent when it differs).\n", strings.Join(listed, ", "), name)
}

// maxListedModels is how many of the server's models the warning names.
const maxListedModels = 5

// testRequest is the ready check's and the warm-ups' request, and its
// body: request 0 without its request id and with the base model, as
// vLLM's test_input is built before the LoRA draw (serve.py@11dfa3169
// benchmark), so an adapter's load never counts as the server's start-up.
func (p *Plan) testRequest() (backend.Request, []byte) {
	req := *p.jobs[0].req
	req.RequestID = ""
	req.Model, req.ModelName = p.ModelID, p.ModelName
	return req, p.Backend.Impl.Body(&req)
}

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
