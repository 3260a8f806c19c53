package run

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/pyrandom"
	"github.com/gobench/gobench/internal/redact"
	"github.com/gobench/gobench/internal/schedule"
	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

// Plan is everything a run decides before it sends a request: the target,
// the model, the tokenizer, every request with its body, and when each is
// due. It is what --dry-run prints (WriteJSONL); Execute sends it.
type Plan struct {
	// Options are the run's options, validated.
	Options Options
	// Backend is the --backend's description.
	Backend *backend.Spec
	// Dataset is the --dataset-name's description.
	Dataset *dataset.Spec
	// BaseURL is the server; APIURL the benchmarked endpoint.
	BaseURL, APIURL string
	// ModelName is the served model name sent in requests ("" when the
	// model id is sent); ModelID names the model (the result's model_id).
	ModelName, ModelID string
	// TokenizerID names the tokenizer ("" with --skip-tokenizer-init).
	TokenizerID string
	// Tokenizer counts tokens; nil with --skip-tokenizer-init.
	Tokenizer tokenizer.Tokenizer
	// Arrivals are the scheduled arrivals, one per request; Offsets their
	// offsets in seconds from the start of the run.
	Arrivals []schedule.Arrival
	Offsets  []float64

	jobs []job
	// talks are the conversations of --multi-turn (nil without): jobs
	// then hold one request per turn, conversation after conversation.
	talks *conversations
	// headers are the run's extra headers: --header, after the base URL's
	// credentials as Basic authorization.
	headers []backend.Header
	// global plays CPython's global random and NumPy's legacy global
	// generator: seeded with --seed as vLLM's main_async seeds them, used
	// by the dataset, continued by the LoRA draws and the arrival gammas.
	global *dataset.Globals
	client *backend.Client
	// api talks to the server's side endpoints (models, tokenizer,
	// metrics, profiler) with the run's headers.
	api   *serverapi.Client
	clock *clock
	// out receives the transcript (what the run is doing, warnings): the
	// standard error, so that the standard output carries only the result
	// (the block, the Markdown summary, the JSON object or a dry run's
	// lines) for a redirect or a pipe.
	out io.Writer
	// pending is the result file's save, made ready before anything is sent.
	pending *pendingSave
	// hold, when set (tests only), runs before the dispatcher releases
	// request i: a client made late on purpose (dispatcher.hold).
	hold func(i int)
	// failAt, when set (tests only), runs at the start of each optional
	// stage at the end of a run, named by its stage constant: a stage
	// made to fail on purpose (execution.optional).
	failAt func(stage string)
	// inFlight bounds the requests in flight (0: unbounded):
	// --max-concurrency, or less when fdBound (limitConnections).
	inFlight int
	// fdBound tells that inFlight was lowered to fit both ends of every
	// connection, the server being in this process, in the open-file limit.
	fdBound bool
	// shareIndices are the global indices of a shard's requests, nil
	// when the run is not sharded; shareTotal the global plan's size
	// (shard.go).
	shareIndices []int
	shareTotal   int
	// executed is set by Execute, which consumes the requests.
	executed bool
	// warmupRequests counts the requests released within
	// --warmup-duration, left out of the metrics (duration.go).
	warmupRequests int
}

// NewPlan validates opts and plans the run: it asks the server for the
// model when --model is not given, finds the tokenizer, builds the dataset
// (re-aligned to the server's tokenizer where vLLM does that), the request
// bodies and the arrival schedule. A dry run contacts nothing. A result
// file to save is made ready first (prepareSave), so that a destination
// that cannot be written fails before anything is sent, and the free space
// there is checked against the result's size once the requests are known.
func NewPlan(ctx context.Context, opts Options, env Env) (*Plan, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	env = env.withDefaults()
	pending, err := prepareSave(&opts, env)
	if err != nil {
		return nil, err
	}
	p, err := buildPlan(ctx, opts, env, pending)
	if err != nil {
		pending.abort()
		return nil, err
	}
	return p, nil
}

// buildPlan is NewPlan after the save is made ready: it does not give
// pending up on failure (its caller does), so that Serve can give it up
// while a plan it left to finish alone still holds it.
func buildPlan(ctx context.Context, opts Options, env Env, pending *pendingSave) (*Plan, error) {
	opts.NumPrompts = opts.timedNumPrompts()
	p := &Plan{Options: opts, out: env.Stderr, pending: pending}
	if err := p.target(env); err != nil {
		return nil, err
	}
	if err := p.model(ctx); err != nil {
		return nil, err
	}
	if err := p.tokenizer(ctx, env); err != nil {
		return nil, err
	}
	if opts.MultiTurn.Enabled {
		if err := p.planConversations(env); err != nil {
			return nil, err
		}
		return p, p.checkSpace()
	}
	samples, err := p.samples(ctx, env)
	if err != nil {
		return nil, err
	}
	if err := p.requests(samples); err != nil {
		return nil, err
	}
	if err := p.schedule(samples); err != nil {
		return nil, err
	}
	if err := p.takeShare(); err != nil {
		return nil, err
	}
	return p, p.checkSpace()
}

// target resolves the server, the endpoint and the backend, and builds the
// HTTP clients (one connection pool bounded by --max-concurrency, or by
// the open-file limit with the server in this process: limitConnections).
func (p *Plan) target(env Env) error {
	o := &p.Options
	var err error
	if p.BaseURL, p.headers, err = withoutCredentials(o.ServerURL(), o.Headers); err != nil {
		return err
	}
	if p.Backend, err = backend.Lookup(o.Backend); err != nil {
		return err
	}
	p.APIURL = p.BaseURL + o.EndpointPath(p.Backend)
	if err := p.Backend.ValidateURL(p.APIURL); err != nil {
		return err
	}
	if err := checkEngine(o.ClientEngine, p.APIURL, env.Getenv); err != nil {
		return err
	}
	if p.Dataset, err = dataset.Lookup(o.Dataset.Name); err != nil {
		return err
	}
	if err := p.limitConnections(env); err != nil {
		return err
	}
	hc := &http.Client{Transport: env.Transport(p.inFlight, o.Insecure)}
	p.clock = newClock()
	p.client = &backend.Client{HTTP: hc, Now: p.clock.Seconds, APIKey: o.APIKey, ReadTimeout: o.ReadTimeout, Deadline: o.RequestTimeout}
	p.api = &serverapi.Client{HTTP: hc, BaseURL: p.BaseURL, Header: p.client.Headers(p.headers, "")}
	return nil
}

// withoutCredentials takes the credentials out of a base URL
// (http://user:password@host) and returns the URL without them and the
// run's extra headers with them as HTTP Basic authorization first (an
// --header Authorization still wins), as aiohttp sends a URL's
// credentials. So no URL gobench prints, saves or puts in an error ever
// holds a password.
func withoutCredentials(base string, headers []backend.Header) (string, []backend.Header, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, exitcode.Usagef("argument --base-url: %q is not a URL: %w", redact.URL(base), err)
	}
	if u.User == nil {
		return base, headers, nil
	}
	pw, _ := u.User.Password()
	basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pw))
	u.User = nil
	out := append([]backend.Header{{Key: "Authorization", Value: "Basic " + basic}}, headers...)
	return u.String(), out, nil
}

// model names the model: --model, else the server's first model (vLLM's
// get_first_model_from_server). A dry run asks nothing.
func (p *Plan) model(ctx context.Context) error {
	o := &p.Options
	p.ModelName, p.ModelID = o.ServedModelName, o.Model
	if o.Model != "" && !o.DryRun {
		p.warnUnlistedModel(ctx)
	}
	if o.Model != "" || o.DryRun {
		return nil
	}
	var err error
	p.ModelName, p.ModelID, err = p.api.FirstModel(ctx)
	if err != nil {
		return err
	}
	weights := ""
	if p.ModelID != p.ModelName {
		weights = " (weights " + p.ModelID + ")"
	}
	sayWrapped(p.out, "Model: "+p.ModelName+weights+", the first the server lists at /v1/models (--model picks another).")
	return nil
}

// servedModel is the model name requests carry: the served name when
// there is one, which is what the server accepts.
func (p *Plan) servedModel() string {
	if p.ModelName != "" {
		return p.ModelName
	}
	return p.ModelID
}

// tokenizer finds the tokenizer named by --tokenizer or the model id.
func (p *Plan) tokenizer(ctx context.Context, env Env) error {
	o := &p.Options
	if o.SkipTokenizerInit {
		return nil
	}
	p.TokenizerID = o.Tokenizer
	if p.TokenizerID == "" {
		p.TokenizerID = p.ModelID
	}
	src := tokenizerSource{name: p.TokenizerID, mode: o.TokenizerMode, opts: *o, env: env,
		model: p.servedModel(), needVocab: p.Dataset.NeedsVocabulary}
	if !o.DryRun { // a dry run sends nothing, not even /tokenize
		src.server = p.api
	}
	tok, err := resolveTokenizer(ctx, src)
	if err != nil {
		return err
	}
	p.Tokenizer = tok
	return nil
}

// samples builds the dataset and, where vLLM does, re-aligns its prompts to
// the server's tokenizer.
func (p *Plan) samples(ctx context.Context, env Env) ([]dataset.Sample, error) {
	o := &p.Options
	d := o.Dataset
	d.NumPrompts, d.Seed, d.RequestIDPrefix, d.Backend = o.NumPrompts, o.Seed, o.RequestIDPrefix, o.Backend
	if p.Tokenizer != nil && p.Tokenizer.VocabSize() == 0 && p.Dataset.NeedsVocabulary {
		// The server's tokenizer does not know its vocabulary, which the
		// dataset draws from: say so before it fails obscurely.
		return nil, fmt.Errorf("--dataset-name %s with tokenizer %s: %w", d.Name, p.Tokenizer.Name(), hub.ErrNoVocabulary)
	}
	d.Hub = datasetHub(ctx, env)
	p.global = dataset.NewGlobals(o.Seed)
	samples, err := dataset.Load(d, p.Tokenizer, p.global, env.Stderr)
	if err != nil {
		return nil, err
	}
	if err := checkTokenizer(p.Tokenizer, "--dataset-name "+d.Name); err != nil {
		return nil, err
	}
	if p.Dataset.Realign(d) && !o.DryRun {
		api := p.api.WithHTTP(&http.Client{Transport: env.Transport(alignConcurrency, o.Insecure)})
		samples = alignPrompts(ctx, api, p.servedModel(), samples, p.out)
	}
	if len(samples) == 0 {
		return nil, errors.New("the dataset produced no request")
	}
	return samples, nil
}

// datasetHub is the Hugging Face Hub as the hf dataset reaches it: the
// environment's HF_* variables, and downloads that, like the tokenizer's,
// never use --insecure (which is about the benchmarked server).
func datasetHub(ctx context.Context, env Env) *dataset.Hub {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	transport := env.Transport
	if transport == nil {
		transport = NewTransport
	}
	return &dataset.Hub{Ctx: ctx, Getenv: getenv, HTTP: &http.Client{Transport: transport(0, false), Timeout: time.Hour}}
}

// ignoreEOS tells whether requests carry ignore_eos: --ignore-eos, or
// forced by the dataset as vLLM forces it ("when using random datasets,
// default to ignoring EOS so generation runs to the requested length",
// silently).
func (p *Plan) ignoreEOS() bool {
	switch p.Dataset.IgnoreEOS {
	case dataset.IgnoreEOSAlways:
		return true
	case dataset.IgnoreEOSForSampling:
		return p.Options.IgnoreEOS || p.Backend.SamplingParams
	}
	return p.Options.IgnoreEOS
}

// requests builds every request and its body, with its LoRA. A request
// the backend cannot send (backend.Checker) fails the plan, naming it, where
// vLLM's request function would assert in the middle of the run.
func (p *Plan) requests(samples []dataset.Sample) error {
	o := &p.Options
	if _, ok := o.SamplingParams.Get("temperature"); !ok && p.Backend.SamplingParams {
		sayWrapped(p.out, "Sampling: the requests carry no temperature, so the server's default applies (--temperature 0 asks for greedy decoding).")
	}
	extra := o.SamplingParams.Clone()
	extra.Update(&o.ExtraBody)
	ignoreEOS := p.ignoreEOS()
	loras := pickLoRAs(*o, len(samples), p.global.Random)
	p.jobs = make([]job, len(samples))
	for i, s := range samples {
		req := &backend.Request{
			Prompt: s.Prompt, APIURL: p.APIURL, PromptLen: s.PromptLen, OutputLen: s.ExpectedOutputLen,
			Model: p.ModelID, ModelName: p.ModelName, Logprobs: o.Logprobs, IgnoreEOS: ignoreEOS,
			ExtraHeaders: p.headers, ExtraBody: *extra, RequestID: s.RequestID,
			Prompts: s.Prompts, PromptObject: s.PromptObject, MultiModal: s.MultiModal, PromptTokenIDs: s.PromptTokenIDs,
			PromptParts: s.PromptParts,
		}
		if s.Audio != nil {
			req.AudioWAV, req.AudioDuration = s.Audio.WAV, s.Audio.Duration
		}
		if loras != nil {
			req.Model, req.ModelName = loras[i], loras[i]
		}
		if err := backend.Check(p.Backend.Impl, req); err != nil {
			return exitcode.Usage(fmt.Errorf("--backend %s, request %d of --dataset-name %s: %w", o.Backend, i, o.Dataset.Name, err))
		}
		// The body is built when the request is sent (dispatcher.send), so
		// that the plan holds each prompt once (its text) and only the
		// bodies in flight exist: 4,096 prompts of 1,024 tokens held twice
		// were 20 MB of a run's peak.
		p.jobs[i] = job{req: req}
	}
	return nil
}

// schedule draws the arrival offsets from NumPy's legacy global generator,
// seeded with --seed and continued where the dataset left it
// (prefix_repetition draws from it), as vLLM's get_request does; with
// --self-timed they are the samples' trace timestamps instead.
func (p *Plan) schedule(samples []dataset.Sample) error {
	// Validate checked the span for --num-prompts; the dataset may have
	// made another count (custom's "every sample").
	if err := p.Options.checkSpan(len(p.jobs)); err != nil {
		return exitcode.Usage(err)
	}
	params := p.Options.Schedule
	params.NumRequests = len(p.jobs)
	var arrivals []schedule.Arrival
	var err error
	if dataset.SelfTimed(p.Options.Dataset) {
		arrivals, err = selfTimedArrivals(samples)
	} else {
		arrivals, err = schedule.Offsets(params, p.scheduleRNG())
	}
	if err != nil {
		return err
	}
	p.Arrivals = arrivals
	p.Offsets = make([]float64, len(arrivals))
	for i, a := range arrivals {
		p.Offsets[i] = a.Offset
	}
	return nil
}

// pickLoRAs draws one LoRA module per request: round-robin, or
// random.choice from CPython's global random, continuing global where the
// dataset left it (serve.py@11dfa3169 benchmark; dataset.Load says what
// each dataset draws before).
func pickLoRAs(opts Options, n int, global *pyrandom.Random) []string {
	if len(opts.LoRAModules) == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		if opts.LoRAAssignment == "round-robin" {
			out[i] = opts.LoRAModules[i%len(opts.LoRAModules)]
		} else {
			out[i] = opts.LoRAModules[global.Choice(len(opts.LoRAModules))]
		}
	}
	return out
}

// WriteJSONL prints the planned requests, one JSON line each (index,
// offset_s, prompt_len, output_len, request_id; with --multi-turn also
// conversation and turn; the media described without their bytes when
// there are any): the output of --dry-run.
func (p *Plan) WriteJSONL(w io.Writer) error {
	for i, j := range p.jobs {
		o := pyjson.NewObject()
		o.Set("index", p.globalIndex(i))
		o.Set("offset_s", p.Offsets[i])
		o.Set("prompt_len", j.req.PromptLen)
		o.Set("output_len", j.req.OutputLen)
		o.Set("request_id", j.req.RequestID)
		p.talks.annotate(o, i)
		if media := dataset.MediaSummaries(j.req.PromptParts, j.req.MultiModal); media != nil {
			o.Set("media", media)
		}
		if err := pyjson.WritePython(w, o); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
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
		// Every connection holds both buffers for its whole life, so at
		// 1,400 streams 64 KiB each were 180 MB of the client's peak; at
		// 10,000 idle streams 8 and 4 KiB still cost a page each, and
		// buffers under a page share pages (2 and 1 KiB, with the SSE
		// reader's first buffer at 1 KiB: 45.9 → 34.9 KB resident per idle
		// stream in tools/membench, 297 → 234 MB at the peak of its
		// 1,400-stream serve). A body larger
		// than the write buffer is written straight through (one more
		// write per request, not per event), and a read buffer of 2 KiB
		// still takes about ten SSE events in one read; a larger event is
		// read past it, into the SSE reader's buffer (no change in CPU per
		// event at 1 and 512 streams, tools/simbench).
		WriteBufferSize: 1 << 10,
		ReadBufferSize:  2 << 10,
	}
	if insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asks for it
	}
	return t
}
