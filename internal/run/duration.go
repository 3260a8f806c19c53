package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
)

// validateDuration checks --duration and --warmup-duration. A time-based
// run draws its prompts from the rate, so a schedule that is not the
// rate's own (a ramp-up, a trace's timestamps, conversations) is refused.
func (o *Options) validateDuration() error {
	d, w := o.Duration, o.WarmupDuration
	switch {
	case d < 0:
		return fmt.Errorf("argument --duration: must not be negative (got %s)", pyfmt.Float(d.Seconds()))
	case w < 0:
		return fmt.Errorf("argument --warmup-duration: must not be negative (got %s)", pyfmt.Float(w.Seconds()))
	case d > 0 && w >= d:
		return fmt.Errorf("argument --warmup-duration: must be shorter than --duration (got %s s of %s s)", pyfmt.Float(w.Seconds()), pyfmt.Float(d.Seconds()))
	case w > 0 && o.MultiTurn.Enabled:
		return errors.New("argument --warmup-duration: not with --multi-turn (a conversation's turns are reported as a whole)")
	case d == 0:
		return nil
	case o.MultiTurn.Enabled:
		return errors.New("argument --duration: not with --multi-turn (a conversation's turns follow its answers, not a clock)")
	case o.Schedule.RampUp != nil:
		return errors.New("argument --duration: not with --ramp-up-strategy (the ramp is spread over --num-prompts requests, not over time)")
	case dataset.SelfTimed(o.Dataset):
		return errors.New("argument --duration: not with --self-timed (the trace's timestamps are the schedule)")
	}
	if n := o.Schedule.RequestRate * d.Seconds(); !math.IsInf(o.Schedule.RequestRate, 1) && n > dataset.MaxSamples {
		return fmt.Errorf("argument --duration: %s s at --request-rate %s is %s requests, more than %d",
			pyfmt.Float(d.Seconds()), pyfmt.Float(o.Schedule.RequestRate), pyfmt.Float(math.Floor(n)), dataset.MaxSamples)
	}
	return nil
}

// timedNumPrompts is the number of prompts a run draws: at a finite rate
// with --duration, the requests its schedule holds within the duration,
// floor(rate × duration) (at least one), since vLLM's schedule puts the
// last of n requests at n/rate seconds; else --num-prompts, which at an
// unlimited rate the duration cuts short.
func (o *Options) timedNumPrompts() int {
	r := o.Schedule.RequestRate
	if o.Duration <= 0 || math.IsInf(r, 1) {
		return o.NumPrompts
	}
	return max(1, int(math.Floor(r*o.Duration.Seconds()+1e-9)))
}

// timeUp is a channel closed when stop closes or, with a duration, when
// the clock passes start + d: the moment a time-based run stops sending.
// It closes endSlack after that instant, so that the request due at d
// itself (the last of rate × d) is sent however the two timers' ties
// are broken. It ends with ctx.
func timeUp(ctx context.Context, stop <-chan struct{}, start time.Time, d time.Duration) <-chan struct{} {
	if d <= 0 {
		return stop
	}
	up := make(chan struct{})
	go func() {
		defer close(up)
		t := time.NewTimer(time.Until(start.Add(d + endSlack)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-stop:
		case <-ctx.Done():
		}
	}()
	return up
}

// endSlack is how long after --duration sending stops.
const endSlack = time.Millisecond

// leaveOutWarmup takes the requests released before start + w out of res,
// as if they had not been sent, and starts the measured run at the end of
// that window: they were sent, so the server saw them, but no figure
// counts them. It returns how many it left out.
func leaveOutWarmup(res *dispatchResult, offsets []float64, w time.Duration) int {
	if w <= 0 {
		return 0
	}
	cut := w.Seconds()
	n := 0
	for i, sent := range res.sent {
		if sent && res.lags[i]+offsets[i] < cut {
			res.sent[i] = false
			n++
		}
	}
	res.start += cut
	res.startWall = res.startWall.Add(w)
	return n
}

// applyTimeBounds applies --duration and --warmup-duration to what the
// dispatcher measured: the requests cancelled at the end of the grace say
// so (not "interrupted"), and the warm-up's are left out.
func (x *execution) applyTimeBounds(res *dispatchResult) {
	if x.Options.Duration > 0 && !res.interrupted {
		cut := x.client.StopText(context.Canceled, 0)
		why := fmt.Sprintf("cancelled: still running --interrupt-grace (%s s) after --duration (%s s) ended",
			plainNumber(x.Options.InterruptGrace.Seconds()), plainNumber(x.Options.Duration.Seconds()))
		for i := range res.outputs {
			if res.sent[i] && res.outputs[i].Error == cut {
				res.outputs[i].Error = why
			}
		}
	}
	x.leaveOutWarmup(res)
}

// leaveOutWarmup applies --warmup-duration to what the dispatcher
// measured (leaveOutWarmup) and moves the schedule's offsets to the
// measured run's start, so that each request's offset and start time
// still agree in the result.
func (x *execution) leaveOutWarmup(res *dispatchResult) {
	w := x.Options.WarmupDuration
	if w <= 0 {
		return
	}
	x.warmupRequests = leaveOutWarmup(res, x.Offsets, w)
	for i := range x.Offsets {
		x.Offsets[i] -= w.Seconds()
	}
	fmt.Fprintf(x.out, "Warm-up: the %d requests released in the first %s s were sent and are left out of the figures.\n",
		x.warmupRequests, plainNumber(w.Seconds()))
}

// durationLine says when a time-based run stops sending and what its
// warm-up leaves out; "" for a run of --num-prompts alone.
func (x *execution) durationLine() string {
	o := &x.Options
	var parts []string
	if o.Duration > 0 {
		d, grace := plainNumber(o.Duration.Seconds()), plainNumber(o.InterruptGrace.Seconds())
		send := "sending stops " + d + " s after the start (--duration)"
		switch {
		case x.cycles():
			send = fmt.Sprintf("the %d prompts are sent in turn, again from the first, as --max-concurrency frees a slot, until %s s after the start (--duration)", len(x.jobs), d)
		case math.IsInf(o.Schedule.RequestRate, 1):
			send += fmt.Sprintf(" or once the %d prompts are sent", len(x.jobs))
		}
		parts = append(parts, send+", and requests still running "+grace+" s later are cancelled (--interrupt-grace)")
	}
	if o.WarmupDuration > 0 {
		parts = append(parts, fmt.Sprintf("the requests released in the first %s s are a warm-up, left out of the figures (--warmup-duration)",
			plainNumber(o.WarmupDuration.Seconds())))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Time-based: " + strings.Join(parts, "; ") + "."
}

// cycles reports whether a run cycles its prompts: at rate inf with
// --duration and --max-concurrency (without a bound on concurrency a loop
// would flood the server), not sharded (a shard sends its share of one
// plan).
func (x *execution) cycles() bool {
	o := &x.Options
	return o.Duration > 0 && math.IsInf(o.Schedule.RequestRate, 1) && x.inFlight > 0 && !o.Shard.Sharded() && x.talks == nil
}

// cycle is the dispatcher of a run that cycles its prompts: each request
// in turn is sent as soon as a concurrency slot is free, from the first
// again after the last (request id suffixed -2, -3, ... on later rounds),
// until the time is up. The requests are kept whole for the next round.
func (d *dispatcher) cycle(ctx context.Context, now func() float64, jobs []job) dispatchResult {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	interrupt := d.stop
	go d.graceThenCancel(ctx, interrupt, cancelAll)
	waitStart(ctx, interrupt, d.wallClock, d.startAt)
	var res dispatchResult
	startWall := time.Now()
	res.start, res.startWall = now(), d.wallClock()
	stop := timeUp(ctx, interrupt, startWall, d.duration)
	go d.graceThenCancel(ctx, stop, cancelAll)
	var outs []*metrics.Output
	var wg sync.WaitGroup
	for i := 0; d.nextSlot(ctx, stop); i++ {
		req := *jobs[i%len(jobs)].req
		if round := i / len(jobs); round > 0 && req.RequestID != "" {
			req.RequestID += "-" + strconv.Itoa(round+1)
		}
		out := new(metrics.Output)
		outs = append(outs, out)
		arrival := now()
		d.progress.sent()
		d.live.sent()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.sem.release()
			*out = d.client.Do(ctx, d.be, &req, d.be.Body(&req))
			out.ClientQueueTime = out.StartTime - arrival
			d.progress.finished(out)
			d.live.finished(out)
		}()
	}
	wg.Wait()
	res.end = now()
	res.outputs, res.sent, res.lags = make([]metrics.Output, len(outs)), make([]bool, len(outs)), make([]float64, len(outs))
	for i, o := range outs {
		res.outputs[i], res.sent[i] = *o, true
	}
	res.interrupted = isClosed(interrupt)
	return res
}

// nextSlot waits for a concurrency slot; false when the run stops
// sending first (the slot, if it came, given back).
func (d *dispatcher) nextSlot(ctx context.Context, stop <-chan struct{}) bool {
	ch := d.sem.join()
	select {
	case <-ch:
	case <-stop:
		d.sem.leave(ch)
		return false
	case <-ctx.Done():
		d.sem.leave(ch)
		return false
	}
	select {
	case <-stop:
		d.sem.release()
		return false
	default:
		return true
	}
}

// dispatchOn runs d over the plan: cycling the prompts (cycles), with the
// schedule's offsets, all 0 at rate inf, grown to the requests sent; else
// on the schedule.
func (x *execution) dispatchOn(ctx context.Context, d *dispatcher) dispatchResult {
	if !x.cycles() {
		return d.run(ctx, x.clock.Seconds, x.jobs, x.Offsets)
	}
	res := d.cycle(ctx, x.clock.Seconds, x.jobs)
	x.Offsets = make([]float64, len(res.outputs))
	return res
}
