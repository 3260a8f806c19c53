package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/dataset"
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
		end := ""
		if math.IsInf(o.Schedule.RequestRate, 1) {
			end = fmt.Sprintf(" or once the %d prompts are sent", len(x.jobs))
		}
		parts = append(parts, fmt.Sprintf("sending stops %s s after the start (--duration)%s, and requests still running %s s later are cancelled (--interrupt-grace)",
			plainNumber(o.Duration.Seconds()), end, plainNumber(o.InterruptGrace.Seconds())))
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
