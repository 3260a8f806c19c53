package cli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/redact"
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
	// Repeat is --num-runs and --same-seed (repeat.go).
	Repeat Repeat
	// Sweep, when set, runs the short form of a sweep (servesweep.go).
	Sweep *ServeSweep
	// Report is --report, --plot-timeline and --plot-dataset-stats
	// (reportserve.go).
	Report ServeReport
	// Live is the live view and --metrics-listen (live.go).
	Live ServeLive
}

const serveLong = `Benchmark an OpenAI-compatible LLM server the way "vllm bench serve" does: a
vllm bench serve command line runs unchanged (--num_prompts 5, unambiguous
prefixes, --goodput ttft:500 tpot:50) and gives the same workload for the same
--seed, the same result block and a result JSON with vLLM's keys.

Environment: OPENAI_API_KEY (sent as a bearer token, never printed or
saved), VLLM_BENCH_SOCK_READ (--read-timeout: seconds without a token).

Standard output gets the result (--format text, markdown or json) and
standard error everything else, so "> result.txt" and "| jq" work.

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
	flags := newServeFlags()
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

// options converts what the flags could not bind directly into the run's
// typed options, checks them all (run.Options.Validate, so that nothing is
// sent for a command line vLLM would refuse) and adds the simulator and the
// gates. It refuses the flags of features not built yet.
func (f *serveFlags) options(fs *pflag.FlagSet, deps *Deps) (*ServeOptions, error) {
	if err := f.refusePending(fs); err != nil {
		return nil, err
	}
	if fs.Changed("endpoint") && f.opts.Endpoint == "" {
		return nil, argErrorf("argument --endpoint: must not be empty (leave it out for the backend's path, e.g. /v1/completions)")
	}
	o := &f.opts
	o.APIKey = deps.Getenv("OPENAI_API_KEY")
	if o.Model != "" {
		o.ServedModelName = f.servedModelName
	}
	if mc := f.maxConcurrency; mc.Given() {
		if mc.Value() <= 0 {
			return nil, argErrorf("--max-concurrency must be greater than 0")
		}
		o.MaxConcurrency = mc.Value()
	}
	o.Logprobs = f.logprobs.Ptr()
	o.LoRAModules = f.loraModules.Value()
	if err := f.convertLists(); err != nil {
		return nil, err
	}
	if f.percentileMetrics != "" {
		o.PercentileMetrics = metrics.ParsePercentileMetrics(f.percentileMetrics)
	}
	o.Schedule.RampUp = f.rampUp()
	o.SamplingParams = f.sampling.object()
	var err error
	if o.ReadTimeout, err = f.readTimeoutValue(deps); err != nil {
		return nil, err
	}
	if err := f.datasetOptions(); err != nil {
		return nil, err
	}
	if err := f.shard.options(o, deps); err != nil {
		return nil, err
	}
	o.Args = argsObject(fs)
	o.CommandLine = commandLine(deps.args, deps.Getenv)
	f.simTokenizer()
	so := &ServeOptions{Run: *o}
	if so.Gate, err = f.gate.options(&so.Run); err != nil {
		return nil, err
	}
	if err := so.Run.Validate(); err != nil {
		return nil, err
	}
	if so.Repeat, err = f.repeat.options(&so.Run); err != nil {
		return nil, err
	}
	if so.Sweep, err = f.sweep.options(&so.Repeat); err != nil {
		return nil, err
	}
	if err := f.shard.checkWith(so); err != nil {
		return nil, err
	}
	if so.Report, err = f.report.options(); err != nil {
		return nil, err
	}
	if so.Live, err = f.live.options(); err != nil {
		return nil, err
	}
	if err := so.Report.checkSingle(so); err != nil {
		return nil, err
	}
	if so.Sweep != nil && so.Repeat.Runs > 1 {
		// Each point would need its own set; say so rather than pick one.
		return nil, argErrorf("argument --num-runs: not with --sweep-request-rate or --sweep-max-concurrency (repeat a sweep with gobench sweep serve --num-runs)")
	}
	if f.sim {
		if err := f.simOptions(fs, so); err != nil {
			return nil, err
		}
	}
	return so, nil
}

// simTokenizer makes the built-in tokenizer the run's with --sim unless
// --tokenizer names another: the simulator counts with it, and a dry run,
// which asks no server for the model, needs a tokenizer before Validate.
func (f *serveFlags) simTokenizer() {
	if f.sim && f.opts.Tokenizer == "" && !f.opts.SkipTokenizerInit {
		f.opts.Tokenizer = tokenizer.BuiltinName
	}
}

// refusePending fails on a flag of a feature not built yet: it is never
// silently ignored.
func (f *serveFlags) refusePending(fs *pflag.FlagSet) error {
	var bad error
	fs.Visit(func(fl *pflag.Flag) {
		if bad != nil {
			return
		}
		if what := pendingFeature(fl.Name); what != "" {
			bad = fmt.Errorf("--%s: %s %w", fl.Name, what, exitcode.ErrNotSupported)
		}
	})
	return bad
}

// convertLists parses the nargs flags: --header, --goodput, --metadata;
// and --chat-template-kwargs.
func (f *serveFlags) convertLists() error {
	o := &f.opts
	if f.chatTemplateKwargs.Given() {
		kw := f.chatTemplateKwargs.Value().Plain()
		if err := tokenizer.CheckChatTemplateKwargs(kw); err != nil {
			return argErrorf("argument --chat-template-kwargs: %v", err)
		}
		o.Dataset.ChatTemplateKwargs = kw
	}
	headers, err := parseHeaders(f.header.Value())
	if err != nil {
		return err
	}
	o.Headers = headers
	if f.goodput.Given() {
		if o.Goodput, err = metrics.ParseGoodput(f.goodput.Value()); err != nil {
			return argErrorf("argument --goodput: %w", err)
		}
	}
	if o.Metadata, err = report.ParseMetadata(f.metadata.Value()); err != nil {
		return argErrorf("argument --metadata: %w", err)
	}
	return nil
}

// rampUp is the ramp-up of --ramp-up-strategy; a bound not given is NaN,
// so that the schedule reports it in vLLM's order.
func (f *serveFlags) rampUp() *schedule.RampUp {
	if !f.rampUpStrategy.Given() {
		return nil
	}
	ru := &schedule.RampUp{Strategy: f.rampUpStrategy.Value(), StartRPS: math.NaN(), EndRPS: math.NaN()}
	if f.rampUpStart.Given() {
		ru.StartRPS = float64(f.rampUpStart.Value())
	}
	if f.rampUpEnd.Given() {
		ru.EndRPS = float64(f.rampUpEnd.Value())
	}
	return ru
}

// object collects the sampling flags that were given, in vLLM's order;
// run.Options.Validate checks their values.
func (sp *samplingFlags) object() pyjson.Object {
	var o pyjson.Object
	if sp.topP.Given() {
		o.Set("top_p", sp.topP.Value())
	}
	if sp.topK.Given() {
		o.Set("top_k", sp.topK.Value())
	}
	for _, fl := range []struct {
		key string
		v   *argparse.Float
	}{{"min_p", sp.minP}, {"temperature", sp.temperature}, {"frequency_penalty", sp.freqPen}, {"presence_penalty", sp.presPen}, {"repetition_penalty", sp.repPen}} {
		if fl.v.Given() {
			o.Set(fl.key, fl.v.Value())
		}
	}
	return o
}

// readTimeoutValue is --read-timeout, else VLLM_BENCH_SOCK_READ.
func (f *serveFlags) readTimeoutValue(deps *Deps) (time.Duration, error) {
	if f.readTimeout.Given() {
		return readTimeout("argument --read-timeout:", f.readTimeout.Value())
	}
	env := deps.Getenv("VLLM_BENCH_SOCK_READ")
	if env == "" {
		return 0, nil
	}
	v, err := pyfmt.ParseFloat(env)
	if err != nil {
		v = math.NaN()
	}
	return readTimeout("VLLM_BENCH_SOCK_READ="+env+":", v)
}

// readTimeout is a read timeout of v seconds: positive and within what a
// duration holds, or inf for none (what aiohttp makes of sock_read=inf).
// 0, which the run's options read as none, is refused: given, it asks for
// a timeout.
func readTimeout(what string, v float64) (time.Duration, error) {
	switch {
	case math.IsInf(v, 1):
		return 0, nil
	case !(v > 0) || !metrics.FitsDuration(v):
		return 0, argErrorf("%s must be a positive number of seconds within 292 years, or inf for none (got %s)", what, pyfmt.Float(v))
	}
	return metrics.Duration(v), nil
}

// datasetOptions applies vLLM's mapping of --input-len and --output-len onto
// the dataset flags (dataset.ApplyLengths) and has the dataset parse the
// flags whose malformed text only the datasets that read them refuse
// (dataset.ParseFlagTexts).
func (f *serveFlags) datasetOptions() error {
	d := &f.opts.Dataset
	dataset.ApplyLengths(d, f.inputLen.Ptr(), f.outputLen.Ptr())
	texts := make(map[string]string, len(f.datasetTexts))
	for name, text := range f.datasetTexts {
		texts[name] = *text
	}
	return exitcode.Usage(dataset.ParseFlagTexts(d, texts))
}

// simOptions adds `--sim`: gobench's simulator, answering to the model the
// command line names and counting tokens with gobench's built-in
// tokenizer, which is then the run's tokenizer too unless --tokenizer says
// otherwise.
func (f *serveFlags) simOptions(fs *pflag.FlagSet, so *ServeOptions) error {
	if f.opts.BaseURL != "" {
		return argErrorf("--sim starts its own server: leave out --base-url")
	}
	model := f.opts.Model
	if model != "" && f.servedModelName != "" {
		model = f.servedModelName
	}
	var err error
	if so.Sim, err = serveSimConfig(fs, &f.simx, f.opts.Seed, model); err != nil {
		return err
	}
	if sc := so.Sim.Scheduler; sc != nil && !fs.Changed("server-max-num-seqs") {
		// The simulator's limit is known: the diagnosis need not guess it.
		so.Run.ServerMaxNumSeqs = sc.MaxNumSeqs
	}
	return nil
}

// parseHeaders splits --header KEY=VALUE items as vLLM does.
func parseHeaders(items []string) ([]backend.Header, error) {
	var hs []backend.Header
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return nil, argErrorf("argument --header: Invalid header format. Please use KEY=VALUE format.")
		}
		hs = append(hs, backend.Header{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return hs, nil
}

// runServe runs a parsed `gobench serve`, starting the simulator first when
// asked. An interrupt while the run is being planned (model discovery,
// tokenizer download, prompt alignment) ends it as interrupted, with
// nothing sent.
func runServe(ctx context.Context, deps *Deps, opts *ServeOptions, intr *interrupts) error {
	stopLive, err := opts.Live.start(deps, opts.Run.DisableProgress || opts.Run.DryRun)
	if err != nil {
		return err
	}
	defer stopLive()
	if opts.Sweep != nil {
		return runServeSweep(ctx, deps, opts, intr)
	}
	_, err = serveRuns(ctx, deps, opts, intr)
	return err
}

// argsObject is the argument namespace as vLLM's vars(args) holds it: every
// flag under its Python name, unset optional values as None, and --header
// values and the credentials in URLs redacted (package redact).
func argsObject(fs *pflag.FlagSet) *pyjson.Object {
	o := pyjson.NewObject()
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help-all" {
			return // gobench's own help flag: no argument of vLLM's
		}
		key := strings.ReplaceAll(f.Name, "-", "_")
		var v any
		switch fv := f.Value.(type) {
		case argparse.PythonValuer:
			v = fv.Python()
			if items, ok := v.([]string); ok && f.Name == "header" {
				for i, it := range items {
					k, _, _ := strings.Cut(it, "=")
					items[i] = k + "=" + redact.Mark
				}
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
		if s, ok := v.(string); ok {
			v = redact.URL(s)
		}
		o.Set(key, v)
	})
	return o
}
