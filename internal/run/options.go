// Package run carries out one `gobench serve` run the way vLLM's
// main_async and benchmark() do (vllm/benchmarks/serve.py@11dfa3169), in
// two steps:
//
//   - NewPlan decides everything that comes before the first request: the
//     model, the tokenizer, the dataset, the request bodies and the arrival
//     offsets (what --dry-run prints, Plan.WriteJSONL);
//   - Plan.Execute sends it: the ready check, the warm-ups, the requests on
//     the seeded schedule under the concurrency limit, then the metrics,
//     the printed block and the saved result.
//
// Options arrive parsed and typed (the command line converts text to
// types), and Validate checks every value before anything is sent.
// Everything the run touches outside itself comes in through Env (writers,
// HTTP transport, clocks, the interrupt channel, the block's renderer), so
// tests drive it in-process against httptest servers.
package run

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
	"github.com/gobench/gobench/internal/serverview"
)

// Options are the settings of one run: vLLM's flags, parsed into types.
// DefaultOptions holds vLLM's defaults; Validate checks the values.
type Options struct {
	// Target.
	BaseURL string // --base-url; when empty, http://Host:Port
	Host    string
	Port    int
	// Endpoint is --endpoint; empty means the backend's default path
	// (backend.Spec.DefaultEndpoint), so that --backend openai-chat alone
	// works (vLLM refuses it; see EndpointPath).
	Endpoint string
	// Backend is --backend, a name of backend.Names().
	Backend string
	// Model is --model; empty asks the server (GET /v1/models).
	Model string
	// ServedModelName is --served-model-name, sent as "model" when set
	// (only used together with --model, as in vLLM).
	ServedModelName string
	// Tokenizer is --tokenizer; empty means the model id.
	Tokenizer string
	// TokenizerMode is --tokenizer-mode: auto, hf or server.
	TokenizerMode     string
	SkipTokenizerInit bool
	Headers           []backend.Header
	// APIKey is OPENAI_API_KEY; it is sent, never printed or saved.
	APIKey   string
	Insecure bool

	// Load shape.
	NumPrompts int
	// Schedule is --request-rate, --burstiness and the ramp-up. Its
	// NumRequests is the dataset's size, which only the plan knows: it is
	// ignored here.
	Schedule schedule.Params
	// MaxConcurrency is --max-concurrency; 0 means unlimited (unset).
	// With Shard it bounds each shard (shard.go).
	MaxConcurrency int
	// Shard is --num-shards, --shard-index and --start-at (shard.go).
	Shard Shard
	// Seed is --seed, in [0, 2**32).
	Seed int64
	// ScheduleSeed, when set, seeds a generator of the arrival schedule of
	// its own (NumPy's legacy MT19937) instead of continuing the dataset's
	// (vLLM's global generator seeded with Seed): the same prompts with
	// other arrivals, which serve --num-runs gives each run after the
	// first (scheduleseed.go). nil is vLLM's schedule. In [0, 2**32).
	ScheduleSeed *int64
	// PrefixCache says how a run of a set or a sweep was kept from the
	// prefix cache of the runs before it (a resultkey.PrefixCache*
	// value); "" when nothing was done. Saved in gobench_workload.
	PrefixCache string
	// Duration, when positive, is --duration: the run sends on its
	// schedule until this long after its start (at a finite rate, rate ×
	// Duration prompts), then waits at most InterruptGrace for the
	// requests in flight (duration.go).
	Duration time.Duration
	// WarmupDuration is --warmup-duration: the requests released in this
	// opening window are sent but left out of the metrics.
	WarmupDuration time.Duration
	NumWarmups     int
	// ReadyCheckTimeout > 0 polls the endpoint with the test request first.
	ReadyCheckTimeout time.Duration
	Profile           bool
	RequestIDPrefix   string
	// ReadTimeout fails a request that receives no token (or final event)
	// for that long.
	ReadTimeout time.Duration
	// RequestTimeout bounds each request as a whole (--request-timeout;
	// vLLM's aiohttp total timeout, 6 hours by default).
	RequestTimeout time.Duration
	// ClientEngine sends the requests: EngineNetHTTP (the default) or
	// EngineEpoll (package evloop; Linux, plain http, streaming backends).
	ClientEngine string
	// InterruptGrace bounds the wait for requests in flight after the first
	// interrupt.
	InterruptGrace time.Duration
	// LoRAModules and LoRAAssignment ("random" or "round-robin") pick a
	// LoRA per request.
	LoRAModules    []string
	LoRAAssignment string
	// ProbeRequestRate > 0 sends one-token "Hi" probes, one at a time,
	// at most this many a second, beside the run (--probe-request-rate).
	ProbeRequestRate float64

	// Payload.
	Logprobs *int
	// IgnoreEOS is --ignore-eos; some datasets force it on (their
	// dataset.Spec says when), as vLLM does.
	IgnoreEOS bool
	// SamplingParams holds the sampling flags that were given, in vLLM's
	// order (top_p, top_k, min_p, temperature, ...).
	SamplingParams pyjson.Object
	ExtraBody      pyjson.Object

	// MultiTurn holds the multi-turn conversation flags (--multi-turn).
	MultiTurn MultiTurn

	// Dataset holds the dataset flags; its NumPrompts, Seed and
	// RequestIDPrefix are taken from the run's when the run is planned.
	Dataset dataset.Options

	// Metrics and output.
	// PercentileMetrics is --percentile-metrics split into names; nil
	// means vLLM's default for the backend (PercentileMetricsOrDefault).
	PercentileMetrics []string
	// Percentiles is --metric-percentiles.
	Percentiles []float64
	// Goodput holds the --goodput SLOs in milliseconds; empty disables
	// goodput.
	Goodput            map[string]float64
	SaveResult         bool
	SaveDetailed       bool
	AppendResult       bool
	ResultDir          string
	ResultFilename     string
	Label              string
	Metadata           []report.KV
	ReportCachedTokens bool
	DisableProgress    bool
	// ProgressInterval is the time between progress lines when stderr is
	// not a terminal (--progress-interval); 0 prints none.
	ProgressInterval time.Duration
	// NoServerMetrics turns the server view off: no /metrics scrapes
	// beyond vLLM's own two, no gauge sampling, no server_view.
	NoServerMetrics bool
	// MetricsInterval is how often the server's state gauges are sampled
	// during the run (one GET /metrics each, on a connection of its own);
	// 0 samples only before and after.
	MetricsInterval time.Duration
	// ServerMaxNumSeqs is the server's --max-num-seqs per engine, which
	// vLLM does not publish; the diagnosis compares the running requests
	// with it. 0: not known.
	ServerMaxNumSeqs int
	// ScheduleLagWarnMS is --schedule-lag-warn-ms: the schedule lag's p99
	// (milliseconds) above which the run warns that the client may have
	// been the bottleneck (metrics.ClientLoad).
	ScheduleLagWarnMS float64
	// MaxFailedRatio is --max-failed-ratio: a run whose failed share
	// exceeds it ends with an error (exit status 3); nil keeps vLLM's
	// exit status whatever failed.
	MaxFailedRatio *float64
	// Details prints the whole of gobench's sections after vLLM's block
	// (--details); without it they fit one screen.
	Details bool
	// DryRun builds the plan, prints one JSON line per request and sends
	// nothing.
	DryRun bool
	// Args is the argument namespace as vLLM's vars(args) would hold it
	// (header values redacted), for the PyTorch benchmark records.
	Args *pyjson.Object
	// CommandLine is the command line with its secrets redacted, saved in
	// the result's gobench_workload.
	CommandLine string
}

// Tokenizer modes gobench has (--tokenizer-mode).
var tokenizerModes = []string{"auto", "hf", "server"}

// LoRA assignments (--lora-assignment).
var loraAssignments = []string{"random", "round-robin"}

// DefaultRequestTimeout is vLLM's total timeout of a request: its aiohttp
// session's ClientTimeout(total=6 * 60 * 60)
// (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169 AIOHTTP_TIMEOUT).
const DefaultRequestTimeout = 6 * time.Hour

// DefaultOptions are vLLM's defaults for every flag
// (vllm/benchmarks/serve.py@11dfa3169 add_cli_args), with a fresh request
// id prefix as vLLM draws one per process. The command line registers its
// flags with these values.
func DefaultOptions() Options {
	ps, err := metrics.ParseMetricPercentiles(metrics.DefaultMetricPercentiles)
	if err != nil {
		panic(err) // a constant
	}
	ds := dataset.DefaultOptions()
	return Options{
		Host: "127.0.0.1", Port: 8000, Backend: "openai", TokenizerMode: "auto",
		NumPrompts:      ds.NumPrompts,
		Schedule:        schedule.Params{RequestRate: math.Inf(1), Burstiness: 1},
		RequestIDPrefix: NewRequestIDPrefix(),
		InterruptGrace:  30 * time.Second,
		MetricsInterval: DefaultMetricsInterval,
		RequestTimeout:  DefaultRequestTimeout,
		ClientEngine:    EngineNetHTTP,
		LoRAAssignment:  "random",
		Percentiles:     ps,
		Dataset:         ds,
		MultiTurn:       MultiTurn{Turns: dataset.MultiTurnOptions{NumTurns: DefaultNumTurns}},
		// Not vLLM's: gobench prints progress lines in CI logs.
		ProgressInterval: DefaultProgressInterval,
		// Not vLLM's: gobench's client-bottleneck warning.
		ScheduleLagWarnMS: 1000 * metrics.DefaultScheduleLagWarn,
	}
}

// NewRequestIDPrefix draws vLLM's default request id prefix:
// "bench-" + 8 random hex digits + "-".
func NewRequestIDPrefix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "bench-" + hex.EncodeToString(b) + "-"
}

// PercentileMetricsOrDefault is --percentile-metrics, or vLLM's default
// when it was not given: "ttft,tpot,itl" for the generation backends,
// "e2el" for the pooling ones (serve.py@11dfa3169 main_async).
func (o *Options) PercentileMetricsOrDefault() []string {
	if o.PercentileMetrics != nil {
		return o.PercentileMetrics
	}
	if o.Pooling() {
		return metrics.ParsePercentileMetrics(metrics.DefaultPoolingPercentileMetrics)
	}
	return metrics.ParsePercentileMetrics("")
}

// Pooling reports whether --backend is one of vLLM's pooling backends.
func (o *Options) Pooling() bool {
	spec, err := backend.LookupSpec(o.Backend)
	return err == nil && spec.Task == backend.Pooling
}

// Validate checks every value of o the way vLLM's argument handling does
// (with its messages where it has one), so that a run never starts on a
// value it would refuse later, and refuses the values vLLM takes without
// giving them a meaning (a negative count, NaN, a header net/http would
// not send, an offset past what a run can wait), naming the flag and the
// value. A mistake is an exitcode.UsageError; a feature gobench does not
// have yet wraps exitcode.ErrNotSupported.
func (o *Options) Validate() error {
	for _, check := range []func() error{o.validateTarget, o.validateHeaders, o.validateLoad, o.validateWaits, o.validateOutput, o.validateMultiTurn, o.validateLagWarn, o.validateDuration, o.validateFailedRatio,
		func() error { return o.Shard.validate(o) }} {
		if err := check(); err != nil {
			if errors.Is(err, exitcode.ErrNotSupported) {
				return err
			}
			return exitcode.Usage(err)
		}
	}
	return nil
}

// validateTarget checks where and what the run sends.
func (o *Options) validateTarget() error {
	if !slices.Contains(tokenizerModes, o.TokenizerMode) {
		return fmt.Errorf("--tokenizer-mode %s: tokenizer modes other than auto, hf and server are %w", o.TokenizerMode, exitcode.ErrNotSupported)
	}
	spec, err := backend.Lookup(o.Backend)
	if err != nil {
		return err
	}
	for _, key := range o.SamplingParams.Keys() {
		v, _ := o.SamplingParams.Get(key)
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Errorf("argument --%s: %s is not a finite number", strings.ReplaceAll(key, "_", "-"), pyfmt.Float(f))
		}
	}
	if o.SamplingParams.Len() > 0 && !spec.SamplingParams {
		return fmt.Errorf("argument --%s: Sampling parameters are only supported by openai-compatible backends.",
			strings.ReplaceAll(o.SamplingParams.Keys()[0], "_", "-"))
	}
	for _, key := range spec.RefusedParams {
		if _, ok := o.SamplingParams.Get(key); ok {
			return fmt.Errorf("argument --%s: the %s has no %s parameter (--backend %s)",
				strings.ReplaceAll(key, "_", "-"), spec.APIName, key, spec.Name)
		}
	}
	if err := o.validateEngine(spec); err != nil {
		return err
	}
	if o.DryRun && o.Model == "" && o.Tokenizer == "" && !o.SkipTokenizerInit {
		return errors.New("--dry-run sends nothing to the server, so it cannot ask it for the model: give --model or --tokenizer")
	}
	return o.validateURL(spec)
}

// ServerURL is the server's base URL: --base-url, else
// http://{host}:{port} (vLLM's join_host_port, brackets around an IPv6
// host).
func (o *Options) ServerURL() string {
	if o.BaseURL != "" {
		return o.BaseURL
	}
	return "http://" + net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
}

// validateURL checks the server's address and --endpoint. vLLM joins them
// as text (base_url + endpoint), so "/v1/completions" after
// "http://h:8000" and "v1/completions" after "http://h:8000/" both work;
// whatever does not give an http(s) URL on the same server, or a path the
// backend's request function accepts (its _validate_api_url, with its
// message), is refused here rather than by every request.
func (o *Options) validateURL(spec *backend.Spec) error {
	flag := "--base-url"
	if o.BaseURL == "" {
		if o.Port < 1 || o.Port > 65535 {
			return fmt.Errorf("argument --port: must be between 1 and 65535 (got %d)", o.Port)
		}
		flag = "--host"
	}
	base, err := httpURL(o.ServerURL())
	if err != nil {
		return fmt.Errorf("argument %s: %w", flag, err)
	}
	path := o.EndpointPath(spec)
	apiURL := o.ServerURL() + path
	if err := doubledV1(flag, base.Path, path); err != nil {
		return err
	}
	if api, err := httpURL(apiURL); err != nil || api.Host != base.Host {
		return fmt.Errorf("argument --endpoint: appended to the server's address it does not give a URL on that server (got %s)", pyfmt.StrRepr(path))
	}
	if err := spec.ValidateURL(apiURL); err != nil {
		return fmt.Errorf("argument --endpoint: %w (got %s; without --endpoint, --backend %s uses %s)",
			err, pyfmt.StrRepr(path), spec.Name, spec.DefaultEndpoint)
	}
	return nil
}

// doubledV1 refuses a base URL ending in /v1 before an endpoint starting
// with it: the requests would go to /v1/v1/..., which no server serves,
// and a page of 404s would not say why.
func doubledV1(flag, basePath, endpoint string) error {
	if flag != "--base-url" || !strings.HasSuffix(strings.TrimSuffix(basePath, "/"), "/v1") || !strings.HasPrefix(endpoint, "/v1/") {
		return nil
	}
	return fmt.Errorf("argument --base-url: it ends in /v1 and the endpoint %s starts with it, so requests would go to .../v1%s: "+
		"drop /v1 from --base-url (gobench adds the endpoint's path), or give --endpoint %s", endpoint, endpoint, strings.TrimPrefix(endpoint, "/v1"))
}

// EndpointPath is the API path the run posts to: --endpoint, or when it
// was not given the path spec's API is served at. vLLM's default is always
// /v1/completions, which only the completions backends accept; a command
// line vLLM accepts names a completions backend or gives --endpoint, so
// following the backend changes nothing that works there.
func (o *Options) EndpointPath(spec *backend.Spec) string {
	if o.Endpoint == "" {
		return spec.DefaultEndpoint
	}
	return o.Endpoint
}

// httpURL parses an http or https URL with a host. Its errors never quote
// the URL, which may hold credentials.
func httpURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	var ue *url.Error
	switch {
	case errors.As(err, &ue):
		return nil, fmt.Errorf("not a URL: %w", ue.Err)
	case err != nil:
		return nil, err
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("the scheme must be http or https (got %s)", pyfmt.StrRepr(u.Scheme))
	case u.Host == "":
		return nil, errors.New("the URL has no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("the port must be between 1 and 65535 (got %s)", p)
		}
	}
	return u, nil
}

// validateHeaders checks what the run puts in headers: --header (names
// and values net/http sends as given, see backend.Header.Check) and the
// request id prefix, which starts every x-request-id.
func (o *Options) validateHeaders() error {
	for _, h := range o.Headers {
		if err := h.Check(); err != nil {
			return fmt.Errorf("argument --header: %w", err)
		}
	}
	if err := backend.CheckHeaderValue(o.RequestIDPrefix); err != nil {
		return fmt.Errorf("argument --request-id-prefix: it starts the x-request-id header, and %w (got %s)", err, pyfmt.StrRepr(o.RequestIDPrefix))
	}
	return nil
}

// validateLoad checks the schedule, the counts and the dataset. The
// schedule is checked before the dataset, as vLLM checks the ramp-up
// first.
func (o *Options) validateLoad() error {
	sched := o.Schedule
	sched.NumRequests = 1 // the dataset's size is not known yet
	if err := schedule.Validate(sched); err != nil {
		var ve *schedule.ValidationError
		if errors.As(err, &ve) {
			return withFlag(ve.Flag, err)
		}
		return err
	}
	if err := o.checkSpan(o.NumPrompts); err != nil {
		return err
	}
	if o.Seed < 0 || o.Seed > math.MaxUint32 {
		return errors.New("argument --seed: Seed must be between 0 and 2**32 - 1")
	}
	if s := o.ScheduleSeed; s != nil && (*s < 0 || *s > math.MaxUint32) {
		return fmt.Errorf("the schedule's seed %d is not between 0 and 2**32 - 1", *s)
	}
	if !(o.RequestTimeout > 0) {
		return errors.New("argument --request-timeout: must be a positive number of seconds")
	}
	if o.MaxConcurrency < 0 {
		return errors.New("--max-concurrency must be greater than 0")
	}
	if o.NumWarmups < 0 || o.NumWarmups > dataset.MaxSamples {
		return fmt.Errorf("argument --num-warmups: must be between 0 and %d (got %d)", dataset.MaxSamples, o.NumWarmups)
	}
	if !slices.Contains(loraAssignments, o.LoRAAssignment) {
		return fmt.Errorf("argument --lora-assignment: invalid choice: %q", o.LoRAAssignment)
	}
	if err := o.validateProbes(); err != nil {
		return err
	}
	d := o.Dataset
	d.NumPrompts, d.Backend = o.NumPrompts, o.Backend
	if err := dataset.Validate(d); err != nil {
		return err
	}
	spec, _ := dataset.Lookup(d.Name) // Validate found it
	return spec.CheckTokenizer(!o.SkipTokenizerInit)
}

// withFlag puts argparse's "argument --flag: " before a message of vLLM's
// that names no flag, so that every refusal says which flag it is about.
func withFlag(flag string, err error) error {
	if strings.Contains(err.Error(), "--") {
		return err
	}
	return fmt.Errorf("argument %s: %w", flag, err)
}

// checkSpan checks that a schedule of n requests ends within what a run
// can wait: without a ramp-up the last request is due at n/rate seconds
// (vLLM normalises the gamma gaps to that), and the gaps are drawn with
// the scale 1/(rate·burstiness). A rate so low that this is not a
// time.Duration (1e-300 requests/s gives offsets of 1e299 s, which the
// dispatcher would read as overdue and send at once), or a burstiness so
// low that the scale is infinite (every offset NaN), has no meaning.
// Validate checks --num-prompts requests (one when the dataset decides,
// custom's "every sample"); the plan, which knows the count, can check it
// again.
func (o *Options) checkSpan(n int) error {
	s := o.Schedule
	if s.RampUp != nil || math.IsInf(s.RequestRate, 1) {
		return nil
	}
	n = max(n, 1)
	if last := float64(n) / s.RequestRate; !metrics.FitsDuration(last) {
		return fmt.Errorf("argument --request-rate: the last of %d requests would be due after %s s, longer than a run can wait (292 years) (got %s)",
			n, pyfmt.Float(last), pyfmt.Float(s.RequestRate))
	}
	if scale := 1 / (s.RequestRate * s.Burstiness); math.IsInf(scale, 0) {
		return fmt.Errorf("argument --burstiness: at --request-rate %s the gaps' gamma scale 1/(rate*burstiness) is infinite (got %s)",
			pyfmt.Float(s.RequestRate), pyfmt.Float(s.Burstiness))
	}
	return nil
}

// validateWaits checks the timeouts.
func (o *Options) validateWaits() error {
	if o.ReadyCheckTimeout < 0 { // an int flag: whole seconds
		return fmt.Errorf("argument --ready-check-timeout-sec: must not be negative (got %d)", o.ReadyCheckTimeout/time.Second)
	}
	for _, w := range []struct {
		flag string
		d    time.Duration
	}{{"--read-timeout", o.ReadTimeout}, {"--interrupt-grace", o.InterruptGrace}, {"--progress-interval", o.ProgressInterval}, {"--metrics-interval", o.MetricsInterval}} {
		if w.d < 0 {
			return fmt.Errorf("argument %s: must not be negative (got %s)", w.flag, pyfmt.Float(w.d.Seconds()))
		}
	}
	return nil
}

// validateOutput checks what the run reports.
func (o *Options) validateOutput() error {
	if err := metrics.ValidatePercentiles(o.Percentiles); err != nil {
		return fmt.Errorf("invalid --metric-percentiles: %w", err)
	}
	if err := metrics.ValidatePercentileMetrics(o.PercentileMetrics); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(o.Goodput)) {
		if err := metrics.CheckSLO(name, o.Goodput[name]); err != nil {
			return fmt.Errorf("argument --goodput: %w", err)
		}
	}
	if len(o.Goodput) > 0 && o.Pooling() {
		// vLLM computes no goodput for pooling and its print of the
		// goodput line raises AttributeError (serve.py@11dfa3169 benchmark).
		return fmt.Errorf("argument --goodput: --backend %s is a pooling backend, for which vLLM computes no goodput", o.Backend)
	}
	for _, kv := range o.Metadata {
		if kv.Key == "" {
			return fmt.Errorf("argument --metadata: KEY=VALUE needs a key (got %s)", pyfmt.StrRepr("="+kv.Value))
		}
	}
	return nil
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
	// Stop is closed on the first interrupt: no new request is sent (a run
	// stopped before its first request sends none), requests in flight get
	// InterruptGrace to finish, then the run reports what was sent.
	// Cancelling the context passed to Execute (the second interrupt)
	// cancels what is in flight.
	Stop <-chan struct{}
	// Quick, when set, reports whether the interrupt that closed Stop asks
	// for a quick end (SIGTERM, SIGHUP: a supervisor kills the process
	// soon after, docker stop 10 s later): requests in flight then get at
	// most QuickGrace.
	Quick func() bool
	// Abort is closed on the third interrupt: what is left before saving
	// (the server's counters, the profiler's stop) is skipped.
	Abort <-chan struct{}
	// Progress tells that Stderr is a terminal: the run draws a progress
	// bar there; otherwise it prints a progress line every
	// Options.ProgressInterval.
	Progress bool
	// Version is gobench's version, saved in detailed results.
	Version string
	// Render prints the result block where vLLM prints it; nil prints
	// vLLM's text block (report.Text).
	Render Renderer
	// Getenv reads the environment (SAVE_TO_PYTORCH_BENCHMARK_FORMAT); nil
	// reads nothing.
	Getenv func(string) string
	// ServerInProcess tells that the server runs in this process (serve
	// --sim): each connection then holds a descriptor at both ends under
	// the one open-file limit, so the run holds at most half of what that
	// limit leaves (inProcessConns).
	ServerInProcess bool
	// Live, when set, is told of each run's requests as they go (the live
	// view, the live metrics: package live); when it draws, the main run
	// draws no progress bar.
	Live live.Watcher
}

// DefaultMetricsInterval is --metrics-interval's default: a GET /metrics
// every two seconds costs a vLLM API server one page render (a few
// milliseconds of its CPU) per interval, and sees the peaks of a run
// that lasts tens of seconds.
const DefaultMetricsInterval = 2 * time.Second

// QuickGrace bounds the wait for requests in flight after a quick
// interrupt (Env.Quick), so that the result is saved within a few seconds
// of SIGTERM whatever --interrupt-grace says.
const QuickGrace = 2 * time.Second

// afterInterrupt bounds each call to the server after an interrupted run
// (its counters, the profiler), so that saving never waits on a server
// that stopped answering.
const afterInterrupt = time.Second

// Renderer prints a run's result block on w.
type Renderer func(w io.Writer, b Block) error

// Block is what a Renderer draws: the run's metrics and what names the
// run.
type Block struct {
	// Metrics are the computed results.
	Metrics *metrics.Result
	// Spec is the speculative-decoding section, nil when the server
	// exposed no counters.
	Spec *report.SpecDecode
	// ModelID and Label name the run.
	ModelID, Label string
	// ServerView is the run's server_view object (package serverview),
	// nil without one; it is drawn after the block.
	ServerView *pyjson.Object
	// MultiTurn is a --multi-turn run's per-turn table (nil otherwise),
	// drawn after the block.
	MultiTurn *report.MultiTurn
	// Steady and Client are gobench's steady-state figures and the
	// client's load (nil when not measured), drawn after the block as
	// gobench's own section (report.Gobench).
	Steady *metrics.SteadyState
	Client *metrics.ClientLoad
	// Details draws gobench's sections whole (--details) instead of in
	// the lines of one screen.
	Details bool
}

// withDefaults fills the writers, clock and transport left nil.
func (env Env) withDefaults() Env {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Transport == nil {
		env.Transport = NewTransport
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Render == nil {
		env.Render = func(w io.Writer, b Block) error {
			if err := report.Text(w, b.Metrics, b.Spec); err != nil {
				return err
			}
			turns, gobench, view := (*report.MultiTurn).Text, report.Gobench, serverview.Render
			if b.Details {
				turns, gobench, view = (*report.MultiTurn).TextDetails, report.GobenchDetails, serverview.RenderDetails
			}
			if b.MultiTurn != nil {
				if err := turns(b.MultiTurn, w); err != nil {
					return err
				}
			}
			if err := gobench(w, b.Metrics, b.Steady, b.Client); err != nil {
				return err
			}
			if b.ServerView == nil {
				return nil
			}
			return view(w, b.ServerView, "text")
		}
	}
	return env
}

// validateProbes checks --probe-request-rate. vLLM takes any float and
// sends no probe at 0 or below; a negative or NaN rate is a typo here.
// A probe is a text request ("Hi"), which the audio API cannot carry:
// vLLM's probe task dies of the audio request function's TypeError and
// takes the run with it, so gobench refuses the combination up front.
func (o *Options) validateProbes() error {
	r := o.ProbeRequestRate
	switch {
	case r == 0:
		return nil
	case math.IsNaN(r) || r < 0:
		return fmt.Errorf("argument --probe-request-rate: must be a positive rate in requests per second, or 0 for none (got %s)", pyfmt.Float(r))
	case o.Backend == "openai-audio":
		return errors.New("argument --probe-request-rate: probes are text requests (\"Hi\"), which --backend openai-audio cannot send")
	}
	return nil
}
