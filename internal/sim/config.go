package sim

import (
	"fmt"
	"io"
	"time"

	"github.com/gobench/gobench/internal/tokenizer"
)

// Defaults applied by NewServer to zero-valued Config fields.
const (
	// DefaultModel is the served model name when Config.Model is empty.
	DefaultModel = "gobench/sim"
	// DefaultMaxTokens is the output length of a request that sets neither
	// max_tokens nor max_completion_tokens. 16 is the OpenAI and vLLM
	// default for legacy completions.
	DefaultMaxTokens = 16
	// DefaultMaxModelLen is the context length reported by /v1/models.
	DefaultMaxModelLen = 32768
	// DefaultShutdownTimeout bounds how long Serve waits for in-flight
	// requests once its context ends.
	DefaultShutdownTimeout = 10 * time.Second
)

// Config describes the simulated server. The zero value is usable: every
// field has a default.
type Config struct {
	// Model is the served model name: the id in /v1/models, the model a
	// request must name (or omit), and the model in every response.
	// Default DefaultModel.
	Model string
	// Root is the "root" of the model card in /v1/models, which vllm bench
	// serve uses as the model id (and so the tokenizer name) when --model is
	// not given. Default: Model.
	Root string
	// MaxModelLen is the max_model_len reported by /v1/models. It is not
	// enforced on requests yet. Default DefaultMaxModelLen.
	MaxModelLen int

	// TTFT is the time from receiving a request to its first token event.
	TTFT time.Duration
	// ITL is the time between consecutive token events of one request.
	ITL time.Duration
	// Engine, when set, decides token timing instead of the fixed-latency
	// engine built from TTFT and ITL (which are then ignored).
	Engine Engine

	// Tokenizer counts prompt tokens for usage.prompt_tokens. When nil the
	// prompt's whitespace-separated words are counted instead.
	Tokenizer tokenizer.Tokenizer
	// DefaultMaxTokens is the output length when a request has no
	// max_tokens / max_completion_tokens. Default DefaultMaxTokens.
	DefaultMaxTokens int
	// Seed seeds the random end-of-sequence of requests that do not set
	// ignore_eos; together with the request id it fixes the output length.
	Seed int64

	// ShutdownTimeout bounds how long Serve lets in-flight requests finish
	// after its context ends before it closes their connections.
	// Default DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// EnablePerRequestMetrics adds vLLM's per-request "metrics" object
	// (queue_time_ms, time_to_first_token_ms, generation_time_ms,
	// mean_itl_ms, tokens_per_second) to the final usage event, as
	// `vllm serve --enable-per-request-metrics` does. The simulator's values
	// are measured at the instants it wrote the events, so a client can
	// compare its own TTFT with the server's, request by request.
	EnablePerRequestMetrics bool

	// Logger, when set, receives one line per request and per profiler
	// call. Writes are serialised, so any io.Writer will do.
	Logger io.Writer
}

// withDefaults validates c and returns a copy with every default filled in.
// Errors name the offending field so a CLI flag error is easy to map back.
func (c Config) withDefaults() (Config, error) {
	durations := []struct {
		name string
		d    time.Duration
	}{
		{"TTFT", c.TTFT},
		{"ITL", c.ITL},
		{"ShutdownTimeout", c.ShutdownTimeout},
	}
	for _, f := range durations {
		if f.d < 0 {
			return c, fmt.Errorf("sim: Config.%s must not be negative, got %v", f.name, f.d)
		}
	}
	ints := []struct {
		name string
		v    int
	}{
		{"DefaultMaxTokens", c.DefaultMaxTokens},
		{"MaxModelLen", c.MaxModelLen},
	}
	for _, f := range ints {
		if f.v < 0 {
			return c, fmt.Errorf("sim: Config.%s must not be negative, got %d", f.name, f.v)
		}
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Root == "" {
		c.Root = c.Model
	}
	if c.MaxModelLen == 0 {
		c.MaxModelLen = DefaultMaxModelLen
	}
	if c.DefaultMaxTokens == 0 {
		c.DefaultMaxTokens = DefaultMaxTokens
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.Engine == nil {
		c.Engine = FixedLatency{TTFT: c.TTFT, ITL: c.ITL}
	}
	return c, nil
}
