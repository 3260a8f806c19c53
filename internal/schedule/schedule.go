package schedule

import (
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyfmt"
)

// Ramp-up strategies accepted by vLLM's --ramp-up-strategy.
const (
	Linear      = "linear"
	Exponential = "exponential"
)

// RampUp describes vLLM's request-rate ramp-up. vLLM parses both bounds as
// integers; they are float64 here so that the arithmetic matches Python's
// int-to-float promotion exactly. A NaN bound stands for a flag that was not
// given (Python's None), so that Validate can report it in vLLM's order.
type RampUp struct {
	Strategy string  // Linear or Exponential.
	StartRPS float64 // --ramp-up-start-rps; NaN if not given.
	EndRPS   float64 // --ramp-up-end-rps; NaN if not given.
}

// Params are the inputs of the arrival schedule.
type Params struct {
	// NumRequests is the number of requests to schedule (N).
	NumRequests int
	// RequestRate is --request-rate in requests per second; math.Inf(1)
	// sends everything at once. It must be +Inf when RampUp is set.
	RequestRate float64
	// Burstiness is --burstiness, the gamma shape; math.Inf(1) gives evenly
	// spaced requests.
	Burstiness float64
	// RampUp is the optional ramp-up; nil means a constant RequestRate.
	RampUp *RampUp
}

// Arrival is the schedule entry for one request.
type Arrival struct {
	// Offset is when to send the request, in seconds from the start of the
	// run (cumulative and, without ramp-up, normalised).
	Offset float64
	// Rate is the request rate vLLM yields alongside the request (rate_i),
	// including +Inf for an unlimited rate; it feeds rps_change_events.
	Rate float64
}

// ValidationError is an invalid-parameter error whose text is exactly vLLM's
// message (including vLLM's capitalisation and final period), so that the
// CLI can print it verbatim. Offsets wraps it with context; use errors.As to
// recover the bare message.
type ValidationError struct {
	// Msg is vLLM's message.
	Msg string
	// Flag is the command-line flag the problem is about
	// ("--request-rate", "--burstiness", "--ramp-up-start-rps", ...), for
	// callers whose messages name one.
	Flag string
}

// Error returns vLLM's message unchanged.
func (e *ValidationError) Error() string { return e.Msg }

func invalid(flag, format string, args ...any) error {
	return &ValidationError{Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks p the way vLLM does and returns vLLM's message for the
// first problem, in vLLM's order: the ramp-up checks of main_async (with the
// later upstream rule that a start of 0 is rejected for both strategies),
// then the assertions of get_request (burstiness, number of requests, rate).
// Numbers in messages are formatted like Python's str(float). The error, if
// any, is a *ValidationError.
func Validate(p Params) error {
	if ru := p.RampUp; ru != nil {
		switch {
		case ru.Strategy != Linear && ru.Strategy != Exponential:
			// argparse's choices reject this before anything else runs.
			return invalid("--ramp-up-strategy", "Unknown ramp-up strategy: %s", ru.Strategy)
		case !math.IsInf(p.RequestRate, 1):
			return invalid("--request-rate", "When using ramp-up, do not specify --request-rate. "+
				"The request rate will be controlled by ramp-up parameters. "+
				"Please remove the --request-rate argument.")
		case math.IsNaN(ru.StartRPS) || math.IsNaN(ru.EndRPS):
			return invalid("--ramp-up-strategy", "When using --ramp-up-strategy, both --ramp-up-start-rps and "+
				"--ramp-up-end-rps must be specified")
		case ru.StartRPS < 0 || ru.EndRPS < 0:
			return invalid("--ramp-up-start-rps", "Ramp-up start and end RPS must be non-negative")
		case ru.StartRPS > ru.EndRPS:
			return invalid("--ramp-up-start-rps", "Ramp-up start RPS must be less than end RPS")
		case ru.StartRPS == 0:
			// Upstream replaced the exponential-only "For exponential
			// ramp-up, the start RPS cannot be 0." with this message for
			// both strategies (tests/benchmarks/test_ramp_up_validation.py);
			// before that, linear start 0 crashed in get_request.
			return invalid("--ramp-up-start-rps", "--ramp-up-start-rps must be > 0")
		}
	}
	if !(p.Burstiness > 0) {
		return invalid("--burstiness", "A positive burstiness factor is expected, but given %s.", pyfmt.Float(p.Burstiness))
	}
	if p.NumRequests <= 0 {
		return invalid("--num-prompts", "No requests provided.")
	}
	if p.RampUp == nil && !(p.RequestRate > 0) {
		return nonPositiveRate(p.RequestRate)
	}
	return nil
}

func nonPositiveRate(r float64) error {
	return invalid("--request-rate", "Obtained non-positive request rate %s.", pyfmt.Float(r))
}

// RateAt returns rate_i, the request rate vLLM uses for request i of
// p.NumRequests (_get_current_request_rate). p must be valid.
func RateAt(p Params, i int) float64 {
	ru := p.RampUp
	if ru == nil {
		return p.RequestRate
	}
	progress := float64(i) / float64(max(p.NumRequests-1, 1))
	if ru.Strategy == Linear {
		// Python rounds the product before the sum; the conversion forbids
		// fusing them into an FMA.
		return ru.StartRPS + float64((ru.EndRPS-ru.StartRPS)*progress)
	}
	return ru.StartRPS * math.Pow(ru.EndRPS/ru.StartRPS, progress)
}

// Offsets computes the whole schedule before the first request is sent, as
// vLLM does. rng supplies the gamma draws and must be the generator seeded
// with np.random.seed semantics; it may be nil when no gamma is drawn
// (infinite rate or infinite burstiness). Invalid parameters yield
// Validate's error wrapped with context.
func Offsets(p Params, rng *numpyrand.Legacy) ([]Arrival, error) {
	if err := Validate(p); err != nil {
		return nil, fmt.Errorf("invalid arrival schedule: %w", err)
	}
	n := p.NumRequests
	out := make([]Arrival, n)
	for i := range out {
		rate := RateAt(p, i)
		if !(rate > 0) {
			// Reachable only through extreme ramp-up bounds (e.g. +Inf
			// end, giving NaN), where vLLM's assertion fires too.
			return nil, fmt.Errorf("arrival schedule, request %d: %w", i, nonPositiveRate(rate))
		}
		var delay float64
		switch {
		case math.IsInf(rate, 1):
			delay = 0
		case math.IsInf(p.Burstiness, 1):
			delay = 1.0 / rate
		default:
			if rng == nil {
				return nil, fmt.Errorf("arrival schedule, request %d: a gamma draw is needed but no generator was given", i)
			}
			theta := 1.0 / (rate * p.Burstiness)
			delay = rng.Gamma(p.Burstiness, theta)
		}
		out[i] = Arrival{Offset: delay, Rate: rate}
	}
	for i := 1; i < n; i++ {
		out[i].Offset += out[i-1].Offset
	}
	if last := out[n-1].Offset; p.RampUp == nil && last != 0 {
		factor := (float64(n) / p.RequestRate) / last
		for i := range out {
			out[i].Offset *= factor
		}
	}
	return out, nil
}

// RPSEvent is one entry of vLLM's rps_change_events without its timestamp.
// The caller stamps it with the wall-clock time (datetime.now().isoformat())
// at which the event is recorded: at the start of the benchmark for the
// first event, otherwise when request Request is dispatched. Events that
// share a Request share a timestamp, as in vLLM.
type RPSEvent struct {
	// RPS is the integer request rate reached.
	RPS int
	// Request is the index of the request whose dispatch records the
	// event, or -1 for the initial event recorded before the first request.
	Request int
}

// RPSChangeEvents reproduces vLLM's rps_change_events for a ramp-up run: an
// initial event at the start RPS, then, whenever int(rate_i) exceeds the last
// recorded integer rate, one event for every integer in between. Only call
// it with ramp-up; vLLM records nothing otherwise. startRPS is vLLM's integer
// --ramp-up-start-rps (a fractional value is truncated toward zero, like
// Python's int()); non-finite rates, which a valid ramp-up never produces,
// are skipped rather than converted.
func RPSChangeEvents(arrivals []Arrival, startRPS float64) []RPSEvent {
	last := int(startRPS)
	events := []RPSEvent{{RPS: last, Request: -1}}
	for i, a := range arrivals {
		if math.IsInf(a.Rate, 0) || math.IsNaN(a.Rate) {
			continue
		}
		cur := int(a.Rate) // Go's conversion truncates toward zero like int()
		if cur > last {
			for v := last + 1; v <= cur; v++ {
				events = append(events, RPSEvent{RPS: v, Request: i})
			}
			last = cur
		}
	}
	return events
}
