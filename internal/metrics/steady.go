package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// SteadyThreshold is the share of the plateau's concurrency at which the
// steady-state window opens and below which it closes: vLLM's Rust client
// uses 0.95 of --max-concurrency by default
// (vllm/rust/src/bench/src/metrics/steady_state.rs@2483070a), and so does
// gobench, with the open-loop target below.
const SteadyThreshold = 0.95

// SteadyTopShare is the share of the active time that the open-loop target
// level must be held at or above: without --max-concurrency (or when the
// run never reached it), the plateau's concurrency is the highest level the
// run held at least 10 % of the time between its first start and its last
// end. Little's law puts an open-loop plateau at rate × latency, a level a
// Poisson load crosses often; ramp-up and drain spend their time below it,
// and the time-weighted median would be dragged down by a long ramp.
const SteadyTopShare = 0.10

// SteadyWindow is where the run's client-side concurrency was on its
// plateau: from the first instant the number of requests in flight reached
// Level to the last instant it fell below Level. Times are clock readings
// of the run (Output.StartTime's clock).
type SteadyWindow struct {
	// Start and End bound the window [Start, End).
	Start, End float64
	// Target is the plateau's concurrency: --max-concurrency (FromLimit)
	// or the level held SteadyTopShare of the time.
	Target int
	// FromLimit tells that Target is --max-concurrency.
	FromLimit bool
	// Level is max(1, ceil(SteadyThreshold × Target)).
	Level int
}

// step is the concurrency after all the events of one instant.
type step struct {
	t            float64
	before, next int
}

// concurrencySteps returns the step function of the requests in flight
// over the half-open intervals [start, end) with end > start, all the
// events of one instant applied together (CalculateConcurrency's rule).
func concurrencySteps(intervals [][2]float64) []step {
	type event struct {
		t     float64
		delta int
	}
	events := make([]event, 0, 2*len(intervals))
	for _, iv := range intervals {
		if iv[1] > iv[0] {
			events = append(events, event{iv[0], +1}, event{iv[1], -1})
		}
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	var steps []step
	level := 0
	for i := 0; i < len(events); {
		s := step{t: events[i].t, before: level}
		for ; i < len(events) && events[i].t == s.t; i++ {
			level += events[i].delta
		}
		s.next = level
		steps = append(steps, s)
	}
	return steps
}

// topLevel is the highest level held at least SteadyTopShare of the time
// between the first and the last step.
func topLevel(steps []step) int {
	span := steps[len(steps)-1].t - steps[0].t
	var held []float64 // held[l]: time spent at level l
	for i := 0; i+1 < len(steps); i++ {
		l := steps[i].next
		for len(held) <= l {
			held = append(held, 0)
		}
		held[l] += steps[i+1].t - steps[i].t
	}
	acc := 0.0
	for l := len(held) - 1; l > 0; l-- {
		acc += held[l]
		if acc >= SteadyTopShare*span {
			return l
		}
	}
	return 1
}

// thresholdLevel is max(1, ceil(SteadyThreshold × target)), the product
// nudged down by 1e-9 so that 0.95 × 20 is 19, not 20 by its last bit.
func thresholdLevel(target int) int {
	return max(1, int(math.Ceil(SteadyThreshold*float64(target)-1e-9)))
}

// FindSteadyWindow finds the steady-state window of a run from its
// requests' [start, end) intervals (clock readings) and --max-concurrency
// (0: unset). The rule, deterministic from the intervals alone:
//
//  1. The concurrency C(t) is the number of intervals holding t, every
//     event of one instant applied together.
//  2. The target is maxConcurrency when it is set and C reached
//     ceil(0.95 × maxConcurrency) (a closed loop, vLLM's Rust client's
//     case); otherwise the highest level C held at least 10 % of the time
//     from the first start to the last end (an open loop, or a limit the
//     load never reached).
//  3. Level = max(1, ceil(0.95 × target)). The window opens at the first
//     instant C rises from below Level to Level or more (the end of the
//     ramp-up) and closes at the last instant C falls from Level or more
//     to below it (the start of the drain). Dips inside are kept: the
//     window is one interval, as in vLLM's Rust client.
//
// ok is false, with the reason, when there is no interval or the window is
// empty.
func FindSteadyWindow(intervals [][2]float64, maxConcurrency int) (w SteadyWindow, reason string, ok bool) {
	steps := concurrencySteps(intervals)
	if len(steps) == 0 {
		return w, "no request succeeded", false
	}
	peak := 0
	for _, s := range steps {
		peak = max(peak, s.next)
	}
	w.Target, w.FromLimit = maxConcurrency, maxConcurrency > 0
	if !w.FromLimit || peak < thresholdLevel(maxConcurrency) {
		w.Target, w.FromLimit = topLevel(steps), false
	}
	w.Level = thresholdLevel(w.Target)
	up, down := -1, -1
	for i, s := range steps {
		if up < 0 && s.before < w.Level && s.next >= w.Level {
			up = i
		}
		if s.before >= w.Level && s.next < w.Level {
			down = i
		}
	}
	if up < 0 || down < up {
		return w, fmt.Sprintf("the concurrency never held %d requests", w.Level), false
	}
	w.Start, w.End = steps[up].t, steps[down].t
	return w, "", true
}
