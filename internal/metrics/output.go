package metrics

import (
	"math"
	"time"
)

// Output is the record of one request, as vLLM's RequestFuncOutput keeps it
// (vllm/benchmarks/lib/endpoint_request_func.py). Request functions in
// package backend fill it; Calculate turns a slice of them into a Result.
//
// All times are float64 seconds read from one monotonic clock whose epoch is
// arbitrary but shared by every request of a run (vLLM uses
// time.perf_counter()). Keeping seconds as float64, rather than
// time.Duration, lets the statistics reproduce NumPy bit for bit: vLLM takes
// np.percentile over seconds and multiplies by 1000 afterwards.
type Output struct {
	// GeneratedText is the concatenated text of every token event.
	GeneratedText string
	// Success is true when the request received at least one token event and
	// no error.
	Success bool
	// Latency is the end-to-end latency: the clock reading of the last token
	// event minus StartTime (the usage event does not extend it).
	Latency float64
	// OutputTokens is usage.completion_tokens as the server reported it, or 0
	// when it did not; 0 makes Calculate fall back to the tokenizer.
	OutputTokens int
	// TTFT is the time to first token: the clock reading of the first token
	// event minus StartTime.
	TTFT float64
	// ITL holds the gaps between consecutive token events, so that
	// Latency - TTFT equals the sum of ITL up to rounding.
	ITL []float64
	// PromptLen is the dataset's prompt length, replaced by
	// usage.prompt_tokens when the server reports it.
	PromptLen int
	// Error is the reason of a failed request (empty on success).
	Error string
	// StartTime is the clock reading taken just before the request was sent,
	// after the concurrency slot was acquired.
	StartTime float64
	// ClientQueueTime is StartTime minus the instant the request was due
	// (its arrival): the time it waited for a --max-concurrency slot.
	ClientQueueTime float64
	// CachedTokens is usage.prompt_tokens_details.cached_tokens when the
	// server reported it.
	CachedTokens *int
	// InputAudioDuration is the duration in seconds of the audio sent with
	// the request (openai-audio backend), 0 otherwise. vLLM's
	// RequestFuncOutput has it because calculate_metrics reports
	// rtfx = sum(input_audio_duration) / duration ("RTFx (Inverse Real-Time
	// Factor)"), printed only when positive.
	InputAudioDuration float64
	// ServerQueueTime and ServerTTFT are the per-request server metrics of
	// vLLM's --enable-per-request-metrics (seconds), when present.
	ServerQueueTime, ServerTTFT *float64
	// ServerPromptTime and ServerDecodeTime are the server's own times for
	// this request's prompt and its generation (seconds), when the answer
	// carries them: llama.cpp's timings.prompt_ms and predicted_ms.
	ServerPromptTime, ServerDecodeTime *float64
	// Resent: the first attempt failed on a reused connection before any
	// byte of its answer arrived (the server had closed it), and the
	// request was sent once more on a new connection. The record is the
	// second attempt's, timed from the first attempt's StartTime.
	Resent bool
}

// Duration converts seconds as gobench keeps them (float64, like vLLM's
// perf_counter readings and its flags) to a time.Duration, rounding toward
// zero at the nanosecond.
func Duration(seconds float64) time.Duration { return time.Duration(seconds * float64(time.Second)) }

// FitsDuration reports whether seconds is a time.Duration: finite and
// within ±2**63 ns (292 years). Duration of a float outside gives an
// arbitrary duration, negative ones included, so flags of seconds are
// checked with it first.
func FitsDuration(seconds float64) bool {
	return math.Abs(seconds*float64(time.Second)) < float64(math.MaxInt64)
}
