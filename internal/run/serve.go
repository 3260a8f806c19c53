package run

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyrandom"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

// ErrAllFailed is returned (with the result) when no request succeeded:
// such a run must not look like a pass.
var ErrAllFailed = errors.New("every request failed")

// ErrInterrupted is returned (with the result, which was still printed and
// saved) when the run was interrupted.
var ErrInterrupted = errors.New("run interrupted")

// Result is what a run produced.
type Result struct {
	// Metrics is the computed result; nil for a dry run.
	Metrics *metrics.Result
	// Object is the result as saved (or as it would be saved).
	Object *report.Object
	// File is the path the result was written to, "" if not saved.
	File string
	// EndReason is report.EndCompleted or report.EndInterrupted.
	EndReason string
	// Spec is the speculative-decoding section, nil when the server
	// exposed no counters.
	Spec *report.SpecDecode
}

// NewTransport returns gobench's HTTP transport: the connection pool is the
// concurrency limit (vLLM's connector limit), keep-alive connections are
// reused, nothing is compressed (a gzip layer would buffer the stream) and
// proxies come from the environment (aiohttp's trust_env).
func NewTransport(maxConns int, insecure bool) http.RoundTripper {
	idle := maxConns
	if idle <= 0 {
		idle = 1024
	}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxConnsPerHost:     maxConns,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     60 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		WriteBufferSize:     64 << 10,
		ReadBufferSize:      64 << 10,
	}
	if insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asks for it
	}
	return t
}

// Serve runs the benchmark described by opts.
func Serve(ctx context.Context, opts Options, env Env) (*Result, error) {
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
	out := env.Stdout
	if opts.DryRun {
		// Stdout carries only the JSON lines, so the plan can be piped.
		out = env.Stderr
	}

	// The schedule's flags are checked before anything else, as vLLM checks
	// the ramp-up first (the request count is known only after the dataset).
	params := schedule.Params{NumRequests: 1, RequestRate: opts.RequestRate, Burstiness: opts.Burstiness, RampUp: opts.RampUp}
	if err := schedule.Validate(params); err != nil {
		return nil, err
	}

	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = "http://" + net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port))
	}
	apiURL := baseURL + opts.Endpoint
	be, err := backend.Lookup(opts.Backend)
	if err != nil {
		return nil, err
	}
	if err := be.ValidateURL(apiURL); err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: env.Transport(opts.MaxConcurrency, opts.Insecure)}
	clock := newClock()
	client := &backend.Client{HTTP: hc, Now: clock.Seconds, APIKey: opts.APIKey, ReadTimeout: opts.ReadTimeout}
	api := &serverapi.Client{HTTP: hc, BaseURL: baseURL, Header: client.Headers(opts.Headers, "")}

	modelName, modelID := opts.ServedModelName, opts.Model
	switch {
	case opts.Model == "" && opts.DryRun:
		// A dry run sends nothing, not even GET /v1/models.
		if opts.Tokenizer == "" && !opts.SkipTokenizerInit {
			return nil, errors.New("--dry-run sends nothing to the server, so it cannot ask it for the model: give --model or --tokenizer")
		}
	case opts.Model == "":
		fmt.Fprintln(out, "Model not specified, fetching first model from server...")
		modelName, modelID, err = api.FirstModel(ctx)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "First model name: %s, first model id: %s\n", modelName, modelID)
	}

	var tok tokenizer.Tokenizer
	tokenizerID := ""
	if !opts.SkipTokenizerInit {
		tokenizerID = opts.Tokenizer
		if tokenizerID == "" {
			tokenizerID = modelID
		}
		src := tokenizerSource{name: tokenizerID, mode: opts.TokenizerMode, opts: opts, env: env,
			model:     modelID,
			needVocab: opts.Dataset.Name == "random" || opts.Dataset.Name == "prefix_repetition"}
		if modelName != "" {
			src.model = modelName
		}
		if !opts.DryRun { // a dry run sends nothing, not even /tokenize
			src.server = api
		}
		if tok, err = resolveTokenizer(ctx, src); err != nil {
			return nil, err
		}
	}

	dopts := opts.Dataset
	dopts.RequestIDPrefix = opts.RequestIDPrefix
	ignoreEOS := opts.IgnoreEOS
	if dopts.Name == "random" && backend.IsOpenAICompatible(opts.Backend) {
		// vLLM: "when using random datasets, default to ignoring EOS so
		// generation runs to the requested length" (silently).
		ignoreEOS = true
	}
	if tok != nil && tok.VocabSize() == 0 && (dopts.Name == "random" || dopts.Name == "prefix_repetition") {
		// The server's tokenizer does not know its vocabulary, which the
		// random datasets draw from: say so before they fail obscurely.
		return nil, fmt.Errorf("--dataset-name %s with tokenizer %s: %w", dopts.Name, tok.Name(), hub.ErrNoVocabulary)
	}
	samples, err := dataset.Load(dopts, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	if err := checkTokenizer(tok, "--dataset-name "+dopts.Name); err != nil {
		return nil, err
	}
	if (dopts.Name == "random" || dopts.Name == "prefix_repetition") && !opts.DryRun {
		// vLLM re-aligns these prompts to the server's tokenizer
		// (realign.go); a dry run sends nothing.
		// The model is named as the requests will name it (the served name
		// when there is one), which is what the server accepts.
		served := modelID
		if modelName != "" {
			served = modelName
		}
		samples = alignPrompts(ctx, api.WithHTTP(&http.Client{Transport: env.Transport(alignConcurrency, opts.Insecure)}), served, samples, out)
	}
	if len(samples) == 0 {
		return nil, errors.New("the dataset produced no request")
	}

	if _, ok := opts.SamplingParams.Get("temperature"); !ok {
		fmt.Fprintln(out, "WARNING: vllm bench serve no longer sets temperature==0 (greedy) in requests by default. The default will be determined on the server side and can be model/API specific. For the old behavior, include --temperature=0.")
	}
	extra := opts.SamplingParams.Clone()
	extra.Update(opts.ExtraBody)

	jobs := make([]job, len(samples))
	loras := pickLoRAs(opts, len(samples))
	for i, s := range samples {
		req := &backend.Request{
			Prompt: s.Prompt, APIURL: apiURL, PromptLen: s.PromptLen, OutputLen: s.ExpectedOutputLen,
			Model: modelID, ModelName: modelName, Logprobs: opts.Logprobs, IgnoreEOS: ignoreEOS,
			ExtraHeaders: opts.Headers, ExtraBody: extra, RequestID: s.RequestID,
		}
		if loras != nil {
			req.Model, req.ModelName = loras[i], loras[i]
		}
		jobs[i] = job{req: req, body: be.Body(req)}
	}

	params.NumRequests = len(jobs)
	if opts.Seed < 0 || opts.Seed > math.MaxUint32 {
		return nil, fmt.Errorf("--seed %d: Seed must be between 0 and 2**32 - 1", opts.Seed)
	}
	arrivals, err := schedule.Offsets(params, numpyrand.NewLegacy(uint32(opts.Seed)))
	if err != nil {
		return nil, err
	}
	offsets := make([]float64, len(arrivals))
	for i, a := range arrivals {
		offsets[i] = a.Offset
	}

	if opts.DryRun {
		return nil, dryRun(env.Stdout, jobs, offsets)
	}
	res, err := benchmark(ctx, benchArgs{
		opts: opts, env: env, be: be, client: client, api: api, clock: clock,
		modelID: modelID, tokenizerID: tokenizerID, tok: tok, jobs: jobs, arrivals: arrivals,
		offsets: offsets,
	})
	if terr := checkTokenizer(tok, "counting output tokens"); terr != nil {
		fmt.Fprintf(env.Stderr, "WARNING: %v\n", terr)
	}
	return res, err
}

// pickLoRAs draws one LoRA module per request: round-robin, or
// random.choice from CPython's global random as vLLM leaves it (seeded with
// --seed; exact for the random dataset, which does not touch it).
func pickLoRAs(opts Options, n int) []string {
	if len(opts.LoRAModules) == 0 {
		return nil
	}
	out := make([]string, n)
	rng := pyrandom.New(opts.Seed)
	for i := range out {
		if opts.LoRAAssignment == "round-robin" {
			out[i] = opts.LoRAModules[i%len(opts.LoRAModules)]
		} else {
			out[i] = opts.LoRAModules[rng.Choice(len(opts.LoRAModules))]
		}
	}
	return out
}

// dryRun prints the planned requests, one JSON line each.
func dryRun(w io.Writer, jobs []job, offsets []float64) error {
	for i, j := range jobs {
		o := report.NewObject()
		o.Set("index", i)
		o.Set("offset_s", offsets[i])
		o.Set("prompt_len", j.req.PromptLen)
		o.Set("output_len", j.req.OutputLen)
		o.Set("request_id", j.req.RequestID)
		if err := report.WriteJSON(w, o); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// clock reads seconds on the monotonic clock since the run began, as
// vLLM's time.perf_counter() does (arbitrary epoch, one per run).
type clock struct{ epoch time.Time }

func newClock() *clock { return &clock{epoch: time.Now()} }

// Seconds returns the seconds elapsed since the clock was made.
func (c *clock) Seconds() float64 { return time.Since(c.epoch).Seconds() }

// isoformat is Python's datetime.isoformat() of a naive local time:
// microseconds only when non-zero.
func isoformat(t time.Time) string {
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}

// describeRate prints a Python float (inf, 10.0).
func describeRate(r float64) string { return pyfmt.Float(r) }

// percentileKeys returns the selected metrics and percentiles.
func percentileKeys(opts Options) ([]string, []float64, error) {
	pm := opts.PercentileMetrics
	if pm == "" {
		pm = "ttft,tpot,itl"
	}
	mp := opts.MetricPercentiles
	if mp == "" {
		mp = "99"
	}
	ps, err := metrics.ParseMetricPercentiles(mp)
	if err != nil {
		return nil, nil, err
	}
	return metrics.ParsePercentileMetrics(pm), ps, nil
}
