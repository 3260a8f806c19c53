package run

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
)

// prober sends the probe requests of --probe-request-rate: copies of the
// test request with the prompt "Hi" and one output token, one at a time,
// pausing 1/rate between the end of one and the start of the next, from
// the start of the main run to its end (vllm/benchmarks/serve.py@009e6d4a
// benchmark, probe_loop). A probe's latency is what a newcomer waits
// while the run loads the server: head-of-line blocking, measured apart
// from the run's own figures.
//
// Two deliberate differences from vLLM, both so that probes cannot change
// what the run measures: probes have their own connection (vLLM's share
// the run's pool, so with --max-concurrency a probe can wait for one of
// the run's connections and time the client's queue instead of the
// server), and the run's duration ends with its last request (vLLM awaits
// the probe loop, pause included, before it reads the clock).
type prober struct {
	cancel context.CancelFunc
	// stop ends the loop after the probe in flight.
	stop chan struct{}
	done chan struct{}
	// outputs are the probes' records; read after done.
	outputs []metrics.Output
}

// startProbes starts the probe loop when --probe-request-rate > 0; nil
// otherwise.
func (x *execution) startProbes(ctx context.Context) *prober {
	o := &x.Options
	if !(o.ProbeRequestRate > 0) {
		return nil
	}
	fmt.Fprintf(x.out, "Probe request rate: %s req/s (one-token \"Hi\" requests, one at a time, on their own connection).\n",
		pyfmt.Float(o.ProbeRequestRate))
	req := x.test
	req.Prompt, req.PromptLen, req.OutputLen = "Hi", 1, 1
	req.Prompts, req.PromptObject, req.MultiModal, req.PromptTokenIDs = nil, nil, nil, nil
	body := x.Backend.Impl.Body(&req)
	client := &backend.Client{
		HTTP: &http.Client{Transport: x.env.Transport(1, o.Insecure)},
		Now:  x.client.Now, APIKey: x.client.APIKey, ReadTimeout: x.client.ReadTimeout, Deadline: x.client.Deadline,
	}
	pause := time.Duration(0)
	if !math.IsInf(o.ProbeRequestRate, 1) {
		pause = metrics.Duration(1 / o.ProbeRequestRate)
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &prober{cancel: cancel, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop(ctx, client, x.Backend.Impl, &req, body, pause)
	return p
}

// loop sends probes until stop, keeping every finished probe's record.
func (p *prober) loop(ctx context.Context, client *backend.Client, be backend.Backend, req *backend.Request, body []byte, pause time.Duration) {
	defer close(p.done)
	defer client.HTTP.CloseIdleConnections()
	timer := time.NewTimer(0)
	<-timer.C
	for {
		out := client.Do(ctx, be, req, body)
		if ctx.Err() != nil {
			return // cut short by an interrupt: not a measurement
		}
		p.outputs = append(p.outputs, out)
		timer.Reset(pause)
		select {
		case <-timer.C:
		case <-p.stop:
			timer.Stop()
			return
		case <-ctx.Done():
			timer.Stop()
			return
		}
		select {
		case <-p.stop:
			return
		default:
		}
	}
}

// finish ends the loop and returns the probes' account: after a run that
// ended normally the probe in flight finishes (as vLLM awaits it), after
// an interrupt it is cancelled. A nil prober has no account.
func (p *prober) finish(interrupted bool) *metrics.Probe {
	if p == nil {
		return nil
	}
	close(p.stop)
	if interrupted {
		p.cancel()
	}
	<-p.done
	p.cancel()
	return metrics.CalculateProbe(p.outputs)
}
