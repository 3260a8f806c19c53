package sim

import (
	"context"
	"fmt"
	"io"
	"net"
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
	// DefaultLogStatsInterval is vLLM's VLLM_LOG_STATS_INTERVAL.
	DefaultLogStatsInterval = 10 * time.Second
	// DefaultEmbeddingDim is the length of embedding vectors, that of a
	// small sentence-embedding model.
	DefaultEmbeddingDim = 384
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
	// MaxModelLen is vLLM's --max-model-len: reported by /v1/models, and a
	// request whose prompt plus max_tokens exceeds it is refused with
	// vLLM's 400. Default DefaultMaxModelLen.
	MaxModelLen int

	// TTFT is the time from receiving a request to its first token event.
	TTFT time.Duration
	// ITL is the time between consecutive token events of one request.
	ITL time.Duration
	// Engine, when set, decides token timing instead of the fixed-latency
	// engine built from TTFT and ITL or the Scheduler (which are then
	// ignored).
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

	// Logger, when set, receives Serve's periodic stats line, a line per
	// profiler call and the shutdown, and with LogRequests a line per
	// request. Writes are serialised, so any io.Writer will do.
	Logger io.Writer
	// LogRequests adds a line per request to Logger (how it ended, its
	// tokens, its duration), as `vllm serve --enable-log-requests` does;
	// off by default, as in vLLM, so that a busy server's log stays
	// readable.
	LogRequests bool

	// Scheduler, when set and Engine is not, runs the engine model
	// (NewScheduler) instead of the fixed-latency engine: batching under a
	// token budget, chunked prefill, a KV cache with preemption and prefix
	// caching, and a step cost that grows with the batch. Its MaxModelLen
	// is taken from Config.MaxModelLen.
	Scheduler *SchedulerConfig
	// FrontendLatency is the time between receiving a request and handing
	// it to the engine (vLLM's chat template and tokenisation): part of
	// TTFT and e2e latency, not of the engine's queue time.
	FrontendLatency time.Duration
	// StreamInterval is vLLM's --stream-interval: after the first event, a
	// streaming event goes out once this many tokens have accumulated (or
	// at the end). Default 1, one event per engine output.
	StreamInterval int
	// Faults injects failures on demand (see FaultKind).
	Faults Faults
	// Record, when set, receives the ground truth of every request, one
	// JSON line each (see the record format in record.go).
	Record io.Writer
	// LogStatsInterval is how often Serve writes vLLM's periodic stats line
	// ("Avg prompt throughput: ...") to Logger while the server is busy.
	// Default 10 s (vLLM's VLLM_LOG_STATS_INTERVAL); negative turns it off
	// (--disable-log-stats).
	LogStatsInterval time.Duration
	// EmbeddingDim is the length of the vectors /v1/embeddings returns.
	// Default DefaultEmbeddingDim.
	EmbeddingDim int

	// Addr is the host:port Start listens on. Default "127.0.0.1:0", a free
	// loopback port. NewServer and Serve, which take a listener, ignore it.
	Addr string
	// Listen, when set, is how Start listens on Addr ("tcp"): tests give
	// an in-memory listener, to run in a testing/synctest bubble. nil is
	// net.ListenConfig's Listen.
	Listen func(ctx context.Context, network, addr string) (net.Listener, error)
	// RecordPath, when set and Record is not, is the file Start creates
	// and writes the record to, and Running.Close closes. NewServer ignores
	// it.
	RecordPath string
}

// Validate reports what NewServer would refuse in c, without building a
// server.
func (c Config) Validate() error {
	_, err := c.withDefaults(flagName)
	return err
}

// flagName names a knob by its `gobench sim` flag, in errors about a
// Config that no command line gave.
func flagName(name string) string { return "--" + name }

// withDefaults validates c and returns a copy with every default filled in.
// Errors name the offending field, and flag names the flag of a scheduler
// knob, so a command line error is easy to map back.
func (c Config) withDefaults(flag func(name string) string) (Config, error) {
	durations := []struct {
		name string
		d    time.Duration
	}{
		{"TTFT", c.TTFT},
		{"ITL", c.ITL},
		{"ShutdownTimeout", c.ShutdownTimeout},
		{"FrontendLatency", c.FrontendLatency},
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
		{"StreamInterval", c.StreamInterval},
		{"EmbeddingDim", c.EmbeddingDim},
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
	if c.StreamInterval == 0 {
		c.StreamInterval = 1
	}
	if c.EmbeddingDim == 0 {
		c.EmbeddingDim = DefaultEmbeddingDim
	}
	if c.LogStatsInterval == 0 {
		c.LogStatsInterval = DefaultLogStatsInterval
	}
	var err error
	if c.Faults, err = c.Faults.withDefaults(); err != nil {
		return c, err
	}
	if c.Scheduler != nil {
		sc := *c.Scheduler
		sc.MaxModelLen = c.MaxModelLen
		if err := sc.validate(flag); err != nil {
			return c, err
		}
		c.Scheduler = &sc
	}
	if c.Engine == nil && c.Scheduler == nil {
		c.Engine = FixedLatency{TTFT: c.TTFT, ITL: c.ITL}
	}
	return c, nil
}
