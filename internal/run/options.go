// Package run carries out one `gobench serve` run the way vLLM's
// main_async and benchmark() do (vllm/benchmarks/serve.py): discover the
// model, load the tokenizer and the dataset, check readiness, warm up,
// send the requests on the seeded schedule under the concurrency limit,
// then compute, print and save the results.
//
// Everything the run touches outside itself comes in through Env (writers,
// HTTP transport, clocks, the interrupt channel), so tests drive it
// in-process against httptest servers.
package run

import (
	"io"
	"net/http"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
)

// Options are the settings of one run: vLLM's flags, already parsed and
// checked for syntax by the command line.
type Options struct {
	// Target.
	BaseURL  string // --base-url; when empty, http://Host:Port
	Host     string
	Port     int
	Endpoint string
	Backend  string
	// Model is --model; empty asks the server (GET /v1/models).
	Model string
	// ServedModelName is --served-model-name, sent as "model" when set
	// (only used together with --model, as in vLLM).
	ServedModelName string
	// Tokenizer is --tokenizer; empty means the model id.
	Tokenizer         string
	TokenizerMode     string
	SkipTokenizerInit bool
	Headers           []backend.Header
	// APIKey is OPENAI_API_KEY; it is sent, never printed or saved.
	APIKey   string
	Insecure bool

	// Load shape.
	NumPrompts  int
	RequestRate float64 // +Inf sends everything at once
	Burstiness  float64
	// MaxConcurrency is --max-concurrency; 0 means unlimited (unset).
	MaxConcurrency int
	Seed           int64
	RampUp         *schedule.RampUp
	NumWarmups     int
	// ReadyCheckTimeout > 0 polls the endpoint with the test request first.
	ReadyCheckTimeout time.Duration
	Profile           bool
	RequestIDPrefix   string
	// ReadTimeout fails a request that receives nothing for that long.
	ReadTimeout time.Duration
	// InterruptGrace bounds the wait for requests in flight after the first
	// interrupt.
	InterruptGrace time.Duration
	// LoRAModules and LoRAAssignment pick a LoRA per request.
	LoRAModules    []string
	LoRAAssignment string

	// Payload.
	Logprobs *int
	// IgnoreEOS is --ignore-eos; the random dataset forces it on for the
	// OpenAI-compatible backends, as vLLM does.
	IgnoreEOS bool
	// SamplingParams holds the sampling flags that were given, in vLLM's
	// order (top_p, top_k, min_p, temperature, ...).
	SamplingParams backend.Object
	ExtraBody      backend.Object

	// Dataset holds the dataset flags.
	Dataset dataset.Options

	// Metrics and output.
	PercentileMetrics  string // "" means vLLM's default "ttft,tpot,itl"
	MetricPercentiles  string
	Goodput            map[string]float64
	SaveResult         bool
	SaveDetailed       bool
	AppendResult       bool
	ResultDir          string
	ResultFilename     string
	Label              string
	Metadata           []string
	ReportCachedTokens bool
	DisableProgress    bool
	// DryRun builds the dataset and schedule, prints one JSON line per
	// request and sends nothing.
	DryRun bool
	// Args is the argument namespace as vLLM's vars(args) would hold it
	// (header values redacted), for the PyTorch benchmark records.
	Args *report.Object
}

// Env is everything a run takes from its surroundings.
type Env struct {
	// Stdout receives the transcript and the result block; Stderr the
	// progress bar and warnings.
	Stdout, Stderr io.Writer
	// Transport builds the HTTP transport for a connection limit
	// (0 = unlimited); nil uses NewTransport.
	Transport func(maxConns int, insecure bool) http.RoundTripper
	// Now is the wall clock, for the result's date (local time).
	Now func() time.Time
	// Stop is closed on the first interrupt: stop sending, let requests in
	// flight finish (bounded by InterruptGrace), then report. Cancelling the
	// context passed to Serve cancels what is in flight.
	Stop <-chan struct{}
	// Progress, when true, draws a progress bar on Stderr.
	Progress bool
	// Version is gobench's version, saved in detailed results.
	Version string
	// BlockWriter receives the printed result block; nil means Stdout.
	// `gobench serve --format markdown` discards it and prints its own
	// summary from the Result.
	BlockWriter io.Writer
	// Getenv reads the environment (SAVE_TO_PYTORCH_BENCHMARK_FORMAT); nil
	// reads nothing.
	Getenv func(string) string
}
