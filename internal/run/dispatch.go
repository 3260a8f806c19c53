package run

import (
	"context"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// job is one request of the main run, ready to send.
type job struct {
	req *backend.Request
	// body is the request's body when the plan built it (a conversation's
	// turns); nil means it is built from req when the request is sent.
	body []byte
}

// bodyFor is job j's request body: the one the plan built, else built now
// from the request by backend be (plan.requests leaves it to the send, so
// that only the bodies in flight are held).
func (j job) bodyFor(be backend.Backend) []byte {
	if j.body != nil {
		return j.body
	}
	return be.Body(j.req)
}

// dispatchResult is what the dispatcher measured.
type dispatchResult struct {
	// outputs holds one record per request that was sent, in request order.
	outputs []metrics.Output
	// sent[i] tells whether request i was sent (an interrupt stops the rest).
	sent []bool
	// start is the clock reading when dispatching began (vLLM's
	// benchmark_start_time); end the reading when the last request finished.
	start, end float64
	// interrupted is true when Stop fired before every request was sent or
	// finished.
	interrupted bool
	// released holds the wall time each request was released (only when
	// the dispatcher's released slice is set, for ramp-up events).
	released []time.Time
	// startWall is the wall time when dispatching began, read with start
	// (gobench_shard's anchor).
	startWall time.Time
	// lags holds each sent request's schedule lag in seconds: the clock
	// reading at its release minus start + its offset (gobench's
	// schedule_lags; metrics.ClientLoad).
	lags []float64
}

// dispatcher sends jobs at their scheduled offsets.
type dispatcher struct {
	client requester
	be     backend.Backend
	// sem bounds the requests in flight (--max-concurrency), granting
	// slots in arrival order; nil = unbounded.
	sem *fifo
	// stop, when closed, ends dispatching (first SIGINT): requests not yet
	// sent are never sent, requests in flight get grace to finish.
	stop <-chan struct{}
	// grace bounds the wait for in-flight requests after stop; quick, when
	// set and true then, bounds it by QuickGrace too.
	grace time.Duration
	quick func() bool
	// progress counts the requests sent and finished (nil: none).
	progress *progress
	// live tells Env.Live of the requests (nil: nothing to tell).
	live *liveFeed
	// released, when non-nil, records the wall time each request is
	// released (ramp-up rps_change_events carry it).
	released []time.Time
	// startAt, when set, is --start-at: dispatching waits until wall
	// (Env.Now; nil: time.Now) reads it, and wall's reading at the start
	// is the result's start_wall.
	startAt time.Time
	wall    func() time.Time
	// hold, when set (tests only), runs before request i is released: a
	// dispatcher made late on purpose.
	hold func(i int)
	// duration, when positive, is --duration: nothing is sent after
	// start + duration, and requests in flight then get grace to finish.
	duration time.Duration
}

// graceThenCancel waits for stop, then gives requests in flight the grace
// (at most QuickGrace after a quick interrupt) before cancelling them.
func (d *dispatcher) graceThenCancel(ctx context.Context, stop <-chan struct{}, cancelAll context.CancelFunc) {
	select {
	case <-stop:
	case <-ctx.Done():
		return
	}
	grace := d.grace
	if d.quick != nil && d.quick() {
		grace = min(grace, QuickGrace)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
		cancelAll()
	case <-ctx.Done():
	}
}

// send sends request i, which holds its concurrency slot when the run has
// a --max-concurrency (d.sem, which send then releases), unless the run was
// stopped meanwhile, and records it in res. Each goroutine owns index i of
// res's slices and the job in slot, which it takes: the run holds a prompt
// only until its request is sent, and then only in the body (sent).
func (d *dispatcher) send(ctx context.Context, stop <-chan struct{}, i int, slot *job, arrival float64, res *dispatchResult) {
	if d.sem != nil {
		defer d.sem.release()
	}
	j := *slot
	*slot = job{}
	// A request released while the run was stopping stays unsent, and so
	// does one whose slot came after the run was cancelled.
	select {
	case <-stop:
		return
	case <-ctx.Done():
		return
	default:
	}
	res.sent[i] = true
	d.progress.sent()
	d.live.sent()
	body := j.bodyFor(d.be)
	sent(j.req)
	out := d.client.Do(ctx, d.be, j.req, body)
	out.ClientQueueTime = out.StartTime - arrival
	res.outputs[i] = out
	d.progress.finished(&out)
	d.live.finished(&out)
}

// wallClock reads the run's wall clock.
func (d *dispatcher) wallClock() time.Time {
	if d.wall == nil {
		return time.Now()
	}
	return d.wall()
}

// sent clears what the body of req now carries (the prompt in every form,
// its media): backend.Client.Do reads the request's length, URL, headers
// and id, never its prompt, and with 1,400 requests in flight each prompt
// held beside its body was 7 MB of the client's peak. req belongs to the
// one job that sends it (plan.requests makes one per job; the ready check's
// and the warm-ups' test request is a copy).
func sent(req *backend.Request) {
	req.Prompt, req.Prompts, req.PromptObject, req.PromptTokenIDs = "", nil, nil, nil
	req.MultiModal, req.PromptParts, req.AudioWAV, req.History = nil, nil, nil, nil
}

// run sends jobs[i] at startInstant + offsets[i] and waits for them.
//
// Subtleness ahead: every wait targets an absolute instant computed from one
// start, never "now + gap", so lateness (a slow timer, a busy core) is never
// carried over to the next request, as vLLM's get_request sleeps
// start_ts + delay - now. The arrival time of a request is read when it is
// released by the schedule, before it waits for a concurrency slot, so its
// client queue time (vLLM's client_queue_time) is StartTime - arrival.
func (d *dispatcher) run(ctx context.Context, now func() float64, jobs []job, offsets []float64) dispatchResult {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	res := dispatchResult{outputs: make([]metrics.Output, len(jobs)), sent: make([]bool, len(jobs)), lags: make([]float64, len(jobs))}
	var wg sync.WaitGroup
	interrupt := d.stop // read once: the goroutines below outlive a change of d
	stop := interrupt
	// Every decision to send reads stop itself, so a request due at the
	// instant of the interrupt is never sent after it.
	go d.graceThenCancel(ctx, stop, cancelAll)

	waitStart(ctx, stop, d.wallClock, d.startAt)
	startWall := time.Now()
	res.start, res.startWall = now(), d.wallClock()
	if d.duration > 0 {
		// From here on "stop sending" is the interrupt or the end of the
		// duration; only the interrupt marks the run interrupted.
		stop = timeUp(ctx, stop, startWall, d.duration)
		go d.graceThenCancel(ctx, stop, cancelAll)
	}
	timer := time.NewTimer(0)
	<-timer.C
dispatch:
	for i := range jobs {
		if wait := time.Until(startWall.Add(metrics.Duration(offsets[i]))); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-stop:
				timer.Stop()
				break dispatch
			case <-ctx.Done():
				timer.Stop()
				break dispatch
			}
		}
		select {
		case <-stop:
			break dispatch
		case <-ctx.Done():
			break dispatch
		default:
		}
		if d.hold != nil {
			d.hold(i)
		}
		arrival := now()
		res.lags[i] = arrival - res.start - offsets[i]
		d.live.released(res.lags[i])
		if d.released != nil {
			d.released[i] = time.Now()
		}
		wg.Add(1)
		send := func() {
			defer wg.Done()
			d.send(ctx, stop, i, &jobs[i], arrival, &res)
		}
		if d.sem != nil {
			d.sem.enqueue(send) // in the loop, so slots go in arrival order
		} else {
			go send()
		}
	}
	wg.Wait()
	res.end = now()
	res.released = d.released
	select {
	case <-interrupt:
		res.interrupted = true
	default:
	}
	return res
}
