package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/schedule"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ServeOptions is what `gobench serve` runs: the run's options plus how to
// start the built-in simulator when asked.
type ServeOptions struct {
	// Run holds the benchmark settings.
	Run run.Options
	// Sim, when set, starts gobench's simulator on a free loopback port and
	// points the run at it.
	Sim *sim.Config
	// Gate holds the thresholds and the Markdown summary (servegate.go).
	Gate ServeGate
}

const serveLong = `Benchmark an OpenAI-compatible LLM server the way "vllm bench serve" does.

A vllm bench serve command line runs unchanged: the same flags (vLLM's
spellings such as --num_prompts 5, --flag=value, unambiguous prefixes and
space-separated lists like --goodput ttft:500 tpot:50 work), the same
workload for the same --seed, the same printed result block and a result
JSON with vLLM's keys.

Requests are released on a seeded schedule (gamma-distributed gaps with
shape --burstiness, normalised so the last request is due at
num_prompts/request_rate, or a linear/exponential ramp-up), limited to
--max-concurrency in flight, streamed over SSE, and timed on one monotonic
clock: TTFT is the first token event, ITL the gap between token events,
E2EL the last token event, TPOT (E2EL-TTFT)/(output tokens-1).

Environment: OPENAI_API_KEY (sent as a bearer token, never printed or
saved), VLLM_BENCH_SOCK_READ (per-read timeout in seconds).

Thresholds: --threshold 'p99_ttft_ms<500' (repeatable) checks the result
after the run and prints PASS or FAIL with the measured value after the
result block; 'KEY<=baseline*1.05' compares with --threshold-baseline FILE.
--format markdown prints a Markdown summary instead of the block, and
--summary-file FILE appends one (e.g. $GITHUB_STEP_SUMMARY).

Exit status: 0 success, 1 error, 2 bad command line, 3 every request
failed (never a pass, whatever the thresholds), 4 a --threshold failed,
130 interrupted (results over what completed are still printed and saved).`

const serveExample = `  # A real run against gobench's built-in simulator:
  gobench serve --sim --num-prompts 200 --request-rate 20 --max-concurrency 32

  # Against a vLLM server, with a local tokenizer:
  gobench serve --base-url http://localhost:8000 --model Qwen/Qwen3-8B \
    --tokenizer ./Qwen3-8B/tokenizer.json --dataset-name random \
    --random-input-len 1024 --random-output-len 128 --num-prompts 500 \
    --request-rate 8 --max-concurrency 64 --goodput ttft:500 tpot:50 --save-result

  # Show the workload without sending anything:
  gobench serve --sim --num-prompts 5 --request-rate 2 --dry-run`

// newServeCmd builds `gobench serve`. runF receives the parsed options;
// tests pass their own to check the flags without running anything.
func newServeCmd(deps *Deps, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	flags := &serveFlags{}
	cmd := &cobra.Command{
		Use:     "serve [flags]",
		Short:   "Benchmark an OpenAI-compatible server (vllm bench serve)",
		Long:    serveLong,
		Example: serveExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := flags.options(cmd.Flags(), deps)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), opts)
		},
	}
	flags.register(cmd.Flags())
	cmd.Flags().SortFlags = false
	return cmd
}

// noArgs refuses positional arguments with argparse's message.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return argErrorf("unrecognized arguments: %s", strings.Join(args, " "))
	}
	return nil
}

// unsupported lists flags of features gobench does not have yet: giving one
// is an error, never silently ignored.
var unsupported = map[string]string{
	"probe-request-rate":                 "probe requests",
	"chat-template-kwargs":               "client-side chat templates",
	"self-timed":                         "the timed_trace dataset",
	"no-self-timed":                      "the timed_trace dataset",
	"plot-timeline":                      "the HTML timeline",
	"timeline-itl-thresholds":            "the HTML timeline",
	"plot-dataset-stats":                 "dataset plots",
	"enable-multimodal-chat":             "multimodal chat",
	"no-stream":                          "the hf datasets",
	"no-reranker":                        "the random-rerank dataset",
	"custom-ensure-client-side-data":     "the custom_image dataset",
	"spec-bench-output-len":              "the spec_bench dataset",
	"spec-bench-category":                "the spec_bench dataset",
	"sonnet-input-len":                   "the sonnet dataset",
	"sonnet-output-len":                  "the sonnet dataset",
	"sonnet-prefix-len":                  "the sonnet dataset",
	"timed-trace-chunk-hash-size":        "the timed_trace dataset",
	"timed-trace-sec-multiplier":         "the timed_trace dataset",
	"timed-trace-label-timestamp":        "the timed_trace dataset",
	"timed-trace-label-input-length":     "the timed_trace dataset",
	"timed-trace-label-output-length":    "the timed_trace dataset",
	"timed-trace-label-hash-ids":         "the timed_trace dataset",
	"blazedit-min-distance":              "the hf datasets",
	"blazedit-max-distance":              "the hf datasets",
	"asr-max-audio-len-sec":              "the hf datasets",
	"asr-min-audio-len-sec":              "the hf datasets",
	"random-mm-base-items-per-request":   "the random-mm dataset",
	"random-mm-num-mm-items-range-ratio": "the random-mm dataset",
	"random-mm-limit-mm-per-prompt":      "the random-mm dataset",
	"random-mm-bucket-config":            "the random-mm dataset",
	"hf-subset":                          "the hf datasets",
	"hf-split":                           "the hf datasets",
	"hf-name":                            "the hf datasets",
	"hf-output-len":                      "the hf datasets",
	"prefix-repetition-prefix-len":       "the prefix_repetition dataset",
	"prefix-repetition-suffix-len":       "the prefix_repetition dataset",
	"prefix-repetition-num-prefixes":     "the prefix_repetition dataset",
	"prefix-repetition-output-len":       "the prefix_repetition dataset",
	"speed-bench-dataset-subset":         "the speed_bench dataset",
	"speed-bench-output-len":             "the speed_bench dataset",
	"speed-bench-category":               "the speed_bench dataset",
	"config":                             "YAML argument files",
}

// errNotSupported marks a refused feature (exit status 2: the command line
// asks for something this version cannot do).
var errNotSupported = errors.New("not supported yet")

// options turns the parsed flags into ServeOptions, checking them the way
// vLLM's argument handling does (same messages) and refusing features that
// are not built yet.
func (f *serveFlags) options(fs *pflag.FlagSet, deps *Deps) (*ServeOptions, error) {
	var bad error
	fs.Visit(func(fl *pflag.Flag) {
		if what, ok := unsupported[fl.Name]; ok && bad == nil {
			if fl.Name == "probe-request-rate" && f.probeRequestRate.v == 0 {
				return // 0 is the default and disables probes
			}
			bad = fmt.Errorf("--%s: %s %w", fl.Name, what, errNotSupported)
		}
	})
	if bad != nil {
		return nil, bad
	}
	if m := f.tokenizerMode.v; m != "auto" && m != "hf" && m != "server" {
		return nil, fmt.Errorf("--tokenizer-mode %s: tokenizer modes other than auto, hf and server are %w", m, errNotSupported)
	}
	if f.randomBatchSize.v != 1 {
		return nil, fmt.Errorf("--random-batch-size: batched prompts (embedding backends) are %w", errNotSupported)
	}
	if _, err := backend.Lookup(f.backend.v); err != nil {
		return nil, err
	}

	o := run.Options{
		BaseURL: f.baseURL, Host: f.host, Port: f.port.v, Endpoint: f.endpoint, Backend: f.backend.v,
		Model: f.model, Tokenizer: f.tokenizer, TokenizerMode: f.tokenizerMode.v,
		SkipTokenizerInit: f.skipTokenizerInit, APIKey: deps.Getenv("OPENAI_API_KEY"), Insecure: f.insecure,
		NumPrompts: f.numPrompts.v, RequestRate: f.requestRate.v, Burstiness: f.burstiness.v,
		Seed: int64(f.seed.v), NumWarmups: f.numWarmups.v,
		ReadyCheckTimeout: time.Duration(f.readyCheckTimeout.v) * time.Second, Profile: f.profile,
		RequestIDPrefix: f.requestIDPrefix, LoRAModules: f.loraModules.v, LoRAAssignment: f.loraAssignment.v,
		Logprobs: f.logprobs.ptr(), IgnoreEOS: f.ignoreEOS, ExtraBody: f.extraBody.v,
		PercentileMetrics: f.percentileMetrics, MetricPercentiles: f.metricPercentiles,
		SaveResult: f.saveResult, SaveDetailed: f.saveDetailed, AppendResult: f.appendResult,
		ResultDir: f.resultDir, ResultFilename: f.resultFilename, Label: f.label, Metadata: f.metadata.v,
		ReportCachedTokens: f.reportCachedTokens, DisableProgress: f.disableTqdm, DryRun: f.dryRun,
		InterruptGrace: seconds(f.grace.v),
	}
	if f.model != "" {
		o.ServedModelName = f.servedModelName
	}
	if mc := f.maxConcurrency; mc.set {
		if mc.v <= 0 {
			return nil, argErrorf("--max-concurrency must be greater than 0")
		}
		o.MaxConcurrency = mc.v
	}
	headers, err := parseHeaders(f.header.v)
	if err != nil {
		return nil, err
	}
	o.Headers = headers
	if f.goodput.set {
		g, err := metrics.ParseGoodput(f.goodput.v)
		if err != nil {
			return nil, &argError{msg: err.Error()}
		}
		o.Goodput = g
	}
	if _, err := metrics.ParseMetricPercentiles(f.metricPercentiles); err != nil {
		return nil, &argError{msg: err.Error()}
	}
	if _, err := report.ParseMetadata(f.metadata.v); err != nil {
		return nil, &argError{msg: err.Error()}
	}
	if f.rampUpStrategy.set {
		ru := &schedule.RampUp{Strategy: f.rampUpStrategy.v, StartRPS: math.NaN(), EndRPS: math.NaN()}
		if f.rampUpStart.set {
			ru.StartRPS = float64(f.rampUpStart.v)
		}
		if f.rampUpEnd.set {
			ru.EndRPS = float64(f.rampUpEnd.v)
		}
		o.RampUp = ru
	}
	if err := schedule.Validate(schedule.Params{NumRequests: 1, RequestRate: o.RequestRate, Burstiness: o.Burstiness, RampUp: o.RampUp}); err != nil {
		return nil, &argError{msg: err.Error()}
	}
	if o.Seed < 0 || o.Seed > math.MaxUint32 {
		return nil, argErrorf("argument --seed: Seed must be between 0 and 2**32 - 1")
	}
	sampling, err := f.samplingParams()
	if err != nil {
		return nil, err
	}
	o.SamplingParams = sampling
	o.ReadTimeout, err = f.readTimeoutValue(deps)
	if err != nil {
		return nil, err
	}
	o.Dataset = f.datasetOptions()
	if err := dataset.Validate(o.Dataset); err != nil {
		if errors.Is(err, dataset.ErrNotSupported) {
			return nil, err
		}
		return nil, &argError{msg: err.Error()}
	}
	if _, err := dataset.ParseRangeRatio(f.randomRangeRatio); err != nil && o.Dataset.Name == "random" {
		return nil, &argError{msg: err.Error()}
	}

	o.Args = argsObject(fs)
	so := &ServeOptions{Run: o}
	if so.Gate, err = f.gate.options(&so.Run); err != nil {
		return nil, err
	}
	if f.sim {
		if f.baseURL != "" {
			return nil, argErrorf("--sim starts its own server: leave out --base-url")
		}
		// The simulator answers to the model the command line names, and
		// counts tokens with gobench's built-in tokenizer, which is then the
		// run's tokenizer too unless --tokenizer says otherwise.
		model := f.model
		if model != "" && f.servedModelName != "" {
			model = f.servedModelName
		}
		if so.Sim, err = serveSimConfig(fs, &f.simx, int64(f.seed.v), model); err != nil {
			return nil, err
		}
		if f.tokenizer == "" && !f.skipTokenizerInit {
			so.Run.Tokenizer = tokenizer.BuiltinName
		}
	}
	return so, nil
}

// samplingParams collects the sampling flags that were given, in vLLM's
// order; they are refused for backends that do not take them.
func (f *serveFlags) samplingParams() (backend.Object, error) {
	var o backend.Object
	floats := []struct {
		key string
		v   *floatFlag
	}{{"top_p", f.topP}, {"min_p", f.minP}, {"temperature", f.temperature}, {"frequency_penalty", f.freqPen}, {"presence_penalty", f.presPen}, {"repetition_penalty", f.repPen}}
	add := func(key string, raw string) { o.Set(key, []byte(raw)) }
	if f.topP.set {
		add("top_p", pyfmt.Float(f.topP.v))
	}
	if f.topK.set {
		add("top_k", strconv.Itoa(f.topK.v))
	}
	for _, fl := range floats[1:] {
		if fl.v.set {
			if math.IsInf(fl.v.v, 0) || math.IsNaN(fl.v.v) {
				return o, argErrorf("argument --%s: %s is not a finite number", fl.v.name, pyfmt.Float(fl.v.v))
			}
			add(fl.key, pyfmt.Float(fl.v.v))
		}
	}
	if o.Len() > 0 && !backend.IsOpenAICompatible(f.backend.v) {
		return o, argErrorf("Sampling parameters are only supported by openai-compatible backends.")
	}
	return o, nil
}

// readTimeoutValue is --read-timeout, else VLLM_BENCH_SOCK_READ.
func (f *serveFlags) readTimeoutValue(deps *Deps) (time.Duration, error) {
	if f.readTimeout.set {
		if !(f.readTimeout.v > 0) {
			return 0, argErrorf("argument --read-timeout: must be a positive number of seconds")
		}
		return seconds(f.readTimeout.v), nil
	}
	if env := deps.Getenv("VLLM_BENCH_SOCK_READ"); env != "" {
		v, err := pyfmt.ParseFloat(env)
		if err != nil || !(v > 0) {
			return 0, argErrorf("VLLM_BENCH_SOCK_READ=%s: must be a positive number of seconds", env)
		}
		return seconds(v), nil
	}
	return 0, nil
}

// datasetOptions applies vLLM's mapping of --input-len and --output-len onto
// the dataset flags (main_async).
func (f *serveFlags) datasetOptions() dataset.Options {
	d := dataset.Options{
		Name: f.datasetName.v, Path: f.datasetPath, NumPrompts: f.numPrompts.v, Seed: int64(f.seed.v),
		NoOversample: f.noOversample, DisableShuffle: f.disableShuffle, SkipChatTemplate: f.skipChatTemplate,
		RandomInputLen: f.randomInputLen.v, RandomOutputLen: f.randomOutputLen.v, RandomPrefixLen: f.randomPrefixLen.v,
		RandomRangeRatio: f.randomRangeRatio, RandomBatchSize: f.randomBatchSize.v,
		CustomOutputLen: f.customOutputLen.v, SharegptOutputLen: f.sharegptOutputLen.ptr(),
	}
	if f.inputLen.set {
		d.RandomInputLen = f.inputLen.v
	}
	if f.outputLen.set {
		d.RandomOutputLen = f.outputLen.v
		v := f.outputLen.v
		d.SharegptOutputLen = &v
		d.CustomOutputLen = v
	}
	return d
}

// parseHeaders splits --header KEY=VALUE items as vLLM does.
func parseHeaders(items []string) ([]backend.Header, error) {
	var hs []backend.Header
	for _, it := range items {
		if it == emptyListMarker {
			continue
		}
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return nil, argErrorf("Invalid header format. Please use KEY=VALUE format.")
		}
		hs = append(hs, backend.Header{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return hs, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// runServe runs a parsed `gobench serve`, starting the simulator first when
// asked.
func runServe(ctx context.Context, deps *Deps, opts *ServeOptions, stop <-chan struct{}) error {
	o := opts.Run
	o.Metadata = dropEmpty(o.Metadata)
	sg, err := opts.Gate.prepare()
	if err != nil {
		return err
	}
	if opts.Sim != nil && !o.DryRun { // a dry run sends nothing, so needs no server
		url, stopSim, err := startEmbeddedSim(ctx, deps, opts.Sim)
		if err != nil {
			return err
		}
		defer stopSim()
		o.BaseURL = url
	}
	env := run.Env{
		Stdout: deps.Stdout, Stderr: deps.Stderr, Now: deps.Now, Stop: stop, Getenv: deps.Getenv,
		Progress: deps.IsTerminal, Version: deps.Version, Transport: deps.Transport,
		BlockWriter: sg.blockWriter(),
	}
	res, err := run.Serve(ctx, o, env)
	if res != nil && res.File != "" {
		fmt.Fprintf(deps.Stderr, "Saved the result to %s\n", res.File)
	}
	return sg.finish(deps, res, err)
}

func dropEmpty(items []string) []string {
	var out []string
	for _, it := range items {
		if it != emptyListMarker {
			out = append(out, it)
		}
	}
	return out
}

// argsObject is the argument namespace as vLLM's vars(args) holds it: every
// flag under its Python name, unset optional values as None, and --header
// values redacted because they may carry credentials.
func argsObject(fs *pflag.FlagSet) *report.Object {
	o := report.NewObject()
	fs.VisitAll(func(f *pflag.Flag) {
		key := strings.ReplaceAll(f.Name, "-", "_")
		var v any
		switch fv := f.Value.(type) {
		case *intFlag:
			if fv.set || fv.v != 0 {
				v = fv.v
			}
		case *floatFlag:
			if fv.set || fv.v != 0 {
				v = fv.v
			}
		case *choiceFlag:
			if fv.v != "" {
				v = fv.v
			}
		case *listFlag:
			if fv.set {
				items := dropEmpty(fv.v)
				if f.Name == "header" {
					for i, it := range items {
						k, _, _ := strings.Cut(it, "=")
						items[i] = k + "=<redacted>"
					}
				}
				v = items
			}
		case *jsonFlag:
			if fv.set {
				v, _ = report.FromJSON(fv.v.AppendJSON(nil)) // valid: it was parsed
			}
		default:
			switch f.Value.Type() {
			case "bool":
				v = f.Value.String() == "true"
			default:
				if s := f.Value.String(); s != "" {
					v = s
				}
			}
		}
		o.Set(key, v)
	})
	return o
}
