// Package schedule computes the arrival schedule of `vllm bench serve`: when,
// relative to the start of the run, each request is sent, and which request
// rate vLLM reports for it. It is pure: it neither sleeps nor reads clocks.
// The dispatcher in package run sleeps until start+Offset for each request.
//
// The rules are those of get_request and _get_current_request_rate in
// vllm/benchmarks/serve.py (upstream serve.py:222-355), with the ramp-up
// validation of main_async (serve.py:1680-1698) and the bookkeeping of
// rps_change_events in benchmark (serve.py:822-848).
//
// # Rate per request
//
// Without ramp-up every request uses rate_i = RequestRate. With ramp-up
// (RequestRate must then be +Inf), for request i of N,
//
//	progress = i / max(N-1, 1)
//	linear:       rate_i = start + (end-start)*progress
//	exponential:  rate_i = start * (end/start)^progress
//
// # Delays
//
// For each request, in order:
//
//	delay_i = 0                                   if rate_i = +Inf
//	delay_i = 1/rate_i                            if burstiness = +Inf
//	delay_i = np.random.gamma(shape=burstiness,   otherwise
//	                          scale=1/(rate_i*burstiness))
//
// The gamma draws come from NumPy's legacy global generator, seeded by
// np.random.seed(--seed) at start-up; pass the matching
// [numpyrand.Legacy]. vLLM samples the dataset first, and the
// prefix_repetition dataset re-seeds and draws from that same global
// generator, so the caller must pass the generator in the state the dataset
// left it in, not a fresh one. The gamma has mean 1/rate_i and coefficient of
// variation 1/sqrt(burstiness): burstiness 1 is a Poisson process, smaller
// is burstier, larger is more regular.
//
// # Offsets
//
// Offsets are the cumulative sums of the delays, so the first request is
// sent after delay_0, not at 0. Without ramp-up, if the last offset is not
// zero, every offset is multiplied by (N/RequestRate)/offset_{N-1} so that
// the last request goes out exactly at N/RequestRate seconds; vLLM does this
// to remove the 1-2 % run-to-run spread of the sum of the gammas. There is
// no normalisation with ramp-up.
//
// # Ramp-up events
//
// With ramp-up vLLM records rps_change_events: the start RPS when the run
// begins, then, each time int(rate_i) of a dispatched request exceeds the
// last recorded value, one event per integer in between, all stamped with
// the dispatch time. [RPSChangeEvents] computes the values and the request
// that triggers each; the caller adds the timestamps.
//
// # Validation
//
// [Validate] reproduces vLLM's checks and messages in vLLM's order (see its
// documentation); the one deliberate difference from the baseline is the
// later upstream rule that a ramp-up start of 0 is rejected with
// "--ramp-up-start-rps must be > 0" for both strategies.
//
// Self-timed traces (vLLM's --self-timed with timed_trace data) bypass this
// package: their offsets are the trace timestamps and their rate is 0.
package schedule
