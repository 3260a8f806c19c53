package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/run"
	"github.com/spf13/pflag"
)

// serveFlags holds `gobench serve`'s flags: vLLM's (same names, defaults
// and meanings, vllm/benchmarks/serve.py@11dfa3169 add_cli_args and
// vllm/benchmarks/datasets/datasets.py@11dfa3169 add_dataset_parser) and
// gobench's own. Flags that map onto one field of run.Options are bound to
// it (opts starts as run.DefaultOptions(), so the defaults shown in the
// help are the run's); the others are kept here and converted by options()
// once every flag is read.
type serveFlags struct {
	opts run.Options

	// Converted after parsing: they depend on each other, on the order
	// vLLM checks them in, or on the environment.
	servedModelName, percentileMetrics     string
	header, goodput, metadata, loraModules *argparse.List
	maxConcurrency, inputLen, outputLen    *argparse.Int
	logprobs, rampUpStart, rampUpEnd       *argparse.Int
	rampUpStrategy                         *argparse.Choice
	readTimeout                            *argparse.Float
	chatTemplateKwargs                     *argparse.JSON
	sampling                               samplingFlags
	// datasetTexts are the texts of the dataset flags the dataset parses
	// itself (dataset.Flag.Parse), by name.
	datasetTexts map[string]*string

	// gobench's own.
	sim    bool
	gate   gateFlags
	simx   simFlags
	repeat repeatFlags
	sweep  serveSweepFlags
	shard  shardFlags
	report reportFlags
	live   liveFlags
}

// samplingFlags are the sampling parameters, sent only when given, in
// vLLM's order.
type samplingFlags struct {
	topP, minP, temperature, freqPen, presPen, repPen *argparse.Float
	topK                                              *argparse.Int
}

// listFlags are the nargs flags and their minimum count (1 for "+", 2 for
// "*", stored as minimum+1 so that 0 means "not a list").
var listFlags = map[string]int{"header": 2, "metadata": 2, "goodput": 1, "lora-modules": 1}

// newServeFlags returns the flags with vLLM's defaults.
func newServeFlags() *serveFlags {
	return &serveFlags{opts: run.DefaultOptions(), datasetTexts: map[string]*string{}}
}

// freshServeFlags is a new set of serve's flags, on which
// argparse.WithConfig checks each entry of a config file alone.
func freshServeFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	newServeFlags().register(fs)
	return fs
}

// flagSet registers flags with their help texts.
type flagSet struct{ fs *pflag.FlagSet }

func (s flagSet) str(p *string, name, usage string) { s.fs.StringVar(p, name, *p, usage) }
func (s flagSet) boolean(p *bool, name, usage string) {
	s.fs.BoolVar(p, name, *p, usage)
}
func (s flagSet) val(v pflag.Value, name, usage string) { s.fs.Var(v, name, usage) }

// register defines every flag on fs, with help texts after vLLM's.
func (f *serveFlags) register(fs *pflag.FlagSet) {
	s := flagSet{fs}
	f.registerTarget(s)
	f.registerLoad(s)
	f.registerPayload(s)
	f.registerOutput(s)
	f.registerDataset(s)
	f.registerMultiTurn(s)
	f.registerOwn(s)
	f.sweep.register(s)
	registerPending(fs)
	// Read and expanded by normalizeFor (argparse.WithConfig) before
	// parsing, so never set here; registered for the help, prefixes and
	// vLLM's args.
	fs.String("config", "", "Read serve's flags from a YAML file (vLLM's --config): one flag per key (num_prompts: 5), true for a flag without value, a list for several values, a mapping for a JSON flag; the command line wins.")
	// The default changes on every run, as vLLM's does; the help says how.
	fs.Lookup("request-id-prefix").DefValue = "bench-<8 random hex>-"
	hideRefused(fs)
}

// hideRefused hides the flags of features gobench does not have yet from
// the default help and from shell completion: they stay accepted by name
// (and by prefix: argparse.Normalize sees them), refused when given (or,
// for onlyDefault, given another value than the default), and listed by
// --help-all.
func hideRefused(fs *pflag.FlagSet) {
	fs.VisitAll(func(fl *pflag.Flag) {
		if slices.Contains(onlyDefault, fl.Name) || pendingFeature(fl.Name) != "" {
			fl.Hidden = true
		}
	})
}

// onlyDefault are the flags of which gobench supports the default value
// alone: none now (every flag's values are supported); the list stays
// so that a partly built feature can be gated the same way.
var onlyDefault = []string{}

// serveHelpGroups are the headings of `gobench serve --help`. A new flag
// belongs under one of them (TestHelpGroupsCoverEveryFlag); the dataset
// flags and the simulator's knobs are filed from their own tables.
func serveHelpGroups() []helpGroup {
	// The default help shows the flags every dataset shares and those of
	// the default dataset (random); the other datasets' own flags, which
	// only a run of that dataset needs, are in --help-all.
	var ds, other []string
	for _, fl := range dataset.Flags() {
		if fl.Name == "random-input-len" { // where registerDataset puts them
			ds = append(ds, "input-len", "output-len")
		}
		if ownDataset(fl.Name) && (!strings.HasPrefix(fl.Name, "random-") || strings.HasPrefix(fl.Name, "random-mm-")) {
			other = append(other, fl.Name)
		} else {
			ds = append(ds, fl.Name)
		}
	}
	other = append(other, "chat-template-kwargs") // custom's template
	groups := []helpGroup{
		{title: "Config file flags:", flags: []string{"config"}},
		{title: "Target flags:", flags: []string{"base-url", "host", "port", "endpoint", "backend", "model", "served-model-name",
			"header", "insecure", "client-engine", "tokenizer", "tokenizer-mode", "skip-tokenizer-init", "trust-remote-code", "profile"}},
		{title: "Workload flags:", flags: []string{"num-prompts", "request-rate", "duration", "warmup-duration", "max-concurrency", "burstiness",
			"ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps", "seed", "num-warmups", "lora-modules",
			"lora-assignment", "request-id-prefix", "probe-request-rate", "dry-run"}},
		{title: "Dataset flags:", flags: ds},
		{title: "Flags of the other datasets (sharegpt, custom, sonnet, prefix_repetition, ...):", flags: other,
			more: "flags of datasets other than random (--sharegpt-*, --custom-*, --sonnet-*, ...)"},
		{title: "Multi-turn flags (chat sessions: each turn sent after the answer to the one before, with the history):",
			flags: []string{"multi-turn", "multi-turn-num-turns", "multi-turn-min-turns", "multi-turn-max-turns",
				"per-turn-input-len", "multi-turn-concurrency", "multi-turn-delay-ms"},
			more: "multi-turn flags (--multi-turn, --multi-turn-*, --per-turn-input-len)"},
		{title: "Sampling flags (sent with every request):", flags: []string{"ignore-eos", "temperature", "top-p", "top-k",
			"min-p", "frequency-penalty", "presence-penalty", "repetition-penalty", "logprobs", "extra-body", "use-beam-search"}},
		{title: "Timeout flags:", flags: []string{"ready-check-timeout-sec", "request-timeout", "read-timeout", "interrupt-grace"}},
		{title: "Metrics flags:", flags: []string{"percentile-metrics", "metric-percentiles", "goodput", "report-cached-tokens",
			"schedule-lag-warn-ms"}},
		{title: "Server view flags (the server's /metrics beside the client's figures, and why it is slow):",
			flags: []string{"no-server-metrics", "metrics-interval", "server-max-num-seqs"}},
		{title: "Output flags:", flags: []string{"format", "save-result", "save-detailed", "append-result", "result-dir",
			"result-filename", "label", "metadata", "summary-file", "details", "disable-tqdm", "progress-interval", "metrics-listen",
			"report", "plot-timeline", "timeline-itl-thresholds", "plot-dataset-stats"}},
		{title: "Gate flags:", flags: []string{"threshold", "threshold-baseline", "max-failed-ratio"}},
		{title: "Repeated runs flags (one configuration several times, with the spread across runs):", flags: []string{"num-runs", "same-seed", "warm-cache"}},
		{title: "Sweep flags (one full run per load, then a table of the points; vLLM's Rust client):", flags: serveSweepFlagNames},
		{title: "Shard flags (one load spread over several clients; gobench merge joins their results):", flags: shardFlagNames},
	}
	return append(groups, serveSimHelpGroups()...)
}

// ownDataset reports whether a dataset flag belongs to one dataset (its
// Spec lists it, or its name starts with the dataset's, as
// --sonnet-input-len does) rather than to all of them (--dataset-path,
// --no-oversample, ...).
func ownDataset(flag string) bool {
	if _, ok := dataset.FlagOwner(flag); ok {
		return true
	}
	for _, d := range dataset.Names() {
		if strings.HasPrefix(flag, strings.ReplaceAll(d, "_", "-")+"-") {
			return true
		}
	}
	return false
}

func (f *serveFlags) registerTarget(s flagSet) {
	o := &f.opts
	s.str(&o.Label, "label", "Label (prefix) of the result file name; defaults to --backend.")
	b := argparse.BindChoice("backend", &o.Backend, backend.Names()...)
	b.Offer(supportedBackends())
	s.val(b, "backend", "API to benchmark: openai and vllm (completions), openai-chat, openai-responses, openai-audio (transcriptions), or a pooling API (openai-embeddings[-chat|-clip|-vlm2vec], infinity-embeddings[-clip], vllm-pooling, vllm-rerank).")
	s.str(&o.BaseURL, "base-url", "Server base URL, e.g. http://localhost:8000 (used instead of --host/--port).")
	s.str(&o.Host, "host", "Server host, when --base-url is not given.")
	s.val(argparse.BindInt("port", &o.Port), "port", "Server port, when --base-url is not given.")
	s.str(&o.Endpoint, "endpoint", "API path appended to the base URL (default: the backend's: /v1/completions for openai and vllm, /v1/chat/completions for openai-chat).")
	f.header = &argparse.List{}
	s.val(f.header, "header", "Extra HTTP headers KEY=VALUE, several after one flag (--header a=1 b=2). They override Authorization and Content-Type; Host, Content-Length, Transfer-Encoding and Trailer, which the HTTP client sets, are refused.")
	s.str(&o.Model, "model", "Model name; when omitted, the first model of GET /v1/models.")
	s.str(&f.servedModelName, "served-model-name", "Model name sent in requests when it differs from --model.")
	s.str(&o.Tokenizer, "tokenizer", "Tokenizer: a tokenizer.json file or a folder holding one, a Hugging Face model id (HF cache, else downloaded into it), or gobench-builtin (default: the model id).")
	s.val(argparse.BindChoice("tokenizer-mode", &o.TokenizerMode, "auto", "hf", "slow", "mistral", "deepseek_v32", "qwen_vl", "custom", "server"),
		"tokenizer-mode", "Tokenizer mode: auto and hf read tokenizer.json (local, HF cache, or downloaded); server counts tokens with the server's /tokenize (gobench only).")
	s.boolean(&o.SkipTokenizerInit, "skip-tokenizer-init", "Run without a tokenizer: token counts come from the server's usage (1 when absent) and the TTFT/TPOT/ITL sections are not reported.")
	s.boolean(new(bool), "trust-remote-code", "Accepted for compatibility; gobench never runs tokenizer code.")
	s.boolean(&o.Insecure, "insecure", "Do not verify the server's TLS certificate.")
	s.val(argparse.BindChoice("client-engine", &o.ClientEngine, run.EngineNetHTTP, run.EngineEpoll), "client-engine",
		"How gobench sends the requests (gobench only): net/http, or epoll, one Linux event loop over raw sockets that spends less CPU per streamed event at hundreds of streams. epoll takes plain http URLs without a proxy and the streaming backends (completions, chat, audio, responses); it refuses https, a proxy from the environment and the pooling backends.")
}

func (f *serveFlags) registerLoad(s flagSet) {
	o := &f.opts
	s.val(argparse.BindInt("num-prompts", &o.NumPrompts), "num-prompts", "Number of requests (custom dataset: 0 or less sends every sample).")
	s.val(argparse.BindFloat("request-rate", &o.Schedule.RequestRate), "request-rate", "Mean requests per second; inf sends every request at once. Arrival gaps are gamma-distributed (Poisson when --burstiness is 1) and normalised so the last request is due at num_prompts/rate.")
	s.val(argparse.BindDuration("duration", &o.Duration), "duration",
		"Run for this long (5m, 90s, seconds) instead of --num-prompts: rate × duration prompts at a finite --request-rate, "+
			"at inf the prompts in turn as --max-concurrency frees a slot (without it, --num-prompts at once); requests in flight then get --interrupt-grace.")
	s.val(argparse.BindDuration("warmup-duration", &o.WarmupDuration), "warmup-duration",
		"Leave the requests released in this opening window out of every figure (they are sent; the result counts them).")
	s.val(argparse.BindFloat("burstiness", &o.Schedule.Burstiness), "burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, below 1 burstier, above 1 more regular, inf evenly spaced.")
	f.maxConcurrency = argparse.NewInt("max-concurrency", 0)
	s.val(f.maxConcurrency, "max-concurrency", "Most requests in flight at once (and the connection-pool size); the wait for a slot is reported as client queue time. Default: unlimited.")
	s.val(argparse.BindInt64("seed", &o.Seed), "seed", "Seed of the arrival schedule and the datasets (same seed, same workload as vLLM).")
	f.rampUpStrategy = argparse.NewChoice("ramp-up-strategy", "", "linear", "exponential")
	s.val(f.rampUpStrategy, "ramp-up-strategy", "Ramp the request rate from --ramp-up-start-rps to --ramp-up-end-rps over the run (linear or exponential).")
	f.rampUpStart, f.rampUpEnd = argparse.NewInt("ramp-up-start-rps", 0), argparse.NewInt("ramp-up-end-rps", 0)
	s.val(f.rampUpStart, "ramp-up-start-rps", "Request rate at the start of a ramp-up.")
	s.val(f.rampUpEnd, "ramp-up-end-rps", "Request rate at the end of a ramp-up.")
	s.val(argparse.BindInt("num-warmups", &o.NumWarmups), "num-warmups", "Warm-up requests (copies of the first request) sent before the measured run.")
	s.val(argparse.BindWholeSeconds("ready-check-timeout-sec", &o.ReadyCheckTimeout), "ready-check-timeout-sec", "Poll the endpoint with the first request until it answers, for at most this many seconds; 0 skips the check.")
	s.boolean(&o.Profile, "profile", "POST /start_profile before and /stop_profile after the run (the server must have profiling enabled).")
	s.str(&o.RequestIDPrefix, "request-id-prefix", "Prefix of the x-request-id header of each request.")
	f.loraModules = &argparse.List{}
	s.val(f.loraModules, "lora-modules", "LoRA adapters to spread the requests over (each request names one as its model).")
	s.val(argparse.BindChoice("lora-assignment", &o.LoRAAssignment, "random", "round-robin"), "lora-assignment", "How requests pick a LoRA: random or round-robin.")
	s.val(argparse.BindFloat("probe-request-rate", &o.ProbeRequestRate), "probe-request-rate",
		"Beside the run, send one-token \"Hi\" probes, one at a time, at most this many a second, on their own connection: their latency (a \"Probe Requests\" section) is what a newcomer waits while the run loads the server; 0: none.")
	s.boolean(&o.DisableProgress, "disable-tqdm", "No progress bar (on a terminal) and no progress lines (otherwise).")
	s.boolean(new(bool), "use-beam-search", "Accepted for compatibility; it has no effect, as in vLLM.")
}

func (f *serveFlags) registerPayload(s flagSet) {
	o, sp := &f.opts, &f.sampling
	f.logprobs = argparse.NewInt("logprobs", 0)
	s.val(f.logprobs, "logprobs", "Completions logprobs per token (sent as null when unset).")
	s.boolean(&o.IgnoreEOS, "ignore-eos", "Send ignore_eos: true so every request generates its full output length (forced on for the random dataset).")
	sp.topP, sp.topK, sp.minP = argparse.NewFloat("top-p", 0), argparse.NewInt("top-k", 0), argparse.NewFloat("min-p", 0)
	s.val(sp.topP, "top-p", "Sampling top_p sent with every request.")
	s.val(sp.topK, "top-k", "Sampling top_k sent with every request.")
	s.val(sp.minP, "min-p", "Sampling min_p sent with every request.")
	sp.temperature = argparse.NewFloat("temperature", 0)
	s.val(sp.temperature, "temperature", "Sampling temperature sent with every request (unset: the server's default).")
	sp.freqPen, sp.presPen, sp.repPen = argparse.NewFloat("frequency-penalty", 0), argparse.NewFloat("presence-penalty", 0), argparse.NewFloat("repetition-penalty", 0)
	s.val(sp.freqPen, "frequency-penalty", "Sampling frequency_penalty sent with every request.")
	s.val(sp.presPen, "presence-penalty", "Sampling presence_penalty sent with every request.")
	s.val(sp.repPen, "repetition-penalty", "Sampling repetition_penalty sent with every request.")
	f.chatTemplateKwargs = argparse.NewJSON("chat-template-kwargs")
	s.val(f.chatTemplateKwargs, "chat-template-kwargs", `JSON object of variables for the chat template where gobench applies it (the custom dataset), e.g. '{"enable_thinking": false}'.`)
	s.val(argparse.BindJSON("extra-body", &o.ExtraBody), "extra-body", `JSON object merged into every payload, e.g. '{"top_k": 5}' (or --extra-body.top_k 5); it wins over the sampling flags.`)
}

func (f *serveFlags) registerOutput(s flagSet) {
	o := &f.opts
	s.str(&f.percentileMetrics, "percentile-metrics", `Comma-separated metrics to report with mean, median and percentiles: ttft, tpot, itl, e2el (default "ttft,tpot,itl").`)
	s.val(&percentilesFlag{dst: &o.Percentiles}, "metric-percentiles", `Comma-separated percentiles to report, e.g. "50,90,99".`)
	f.goodput = &argparse.List{}
	s.val(f.goodput, "goodput", "Service-level objectives KEY:VALUE in ms (ttft, tpot, e2el), e.g. --goodput ttft:500 tpot:50; a request is good when it meets all of them.")
	s.boolean(&o.SaveResult, "save-result", "Save the result to a JSON file.")
	s.boolean(&o.SaveDetailed, "save-detailed", "Keep per-request lists (TTFTs, ITLs, texts, errors, scheduled offsets) in the result file.")
	s.boolean(&o.AppendResult, "append-result", "Append the result to the file as one JSON line (implies saving).")
	f.metadata = &argparse.List{}
	s.val(f.metadata, "metadata", "Extra KEY=VALUE pairs saved at the top of the result file.")
	s.str(&o.ResultDir, "result-dir", "Folder of the result file (created if needed).")
	s.str(&o.ResultFilename, "result-filename", "Name of the result file, instead of {label}-{rate}qps[-concurrency{N}]-{model}-{date}.json.")
	s.boolean(&o.ReportCachedTokens, "report-cached-tokens", "Sum usage.prompt_tokens_details.cached_tokens into total_cached_tokens.")
	s.val(argparse.BindFloat("schedule-lag-warn-ms", &o.ScheduleLagWarnMS), "schedule-lag-warn-ms",
		"Warn that the client may have been the bottleneck when the 99th percentile of the schedule lag (a request's release "+
			"minus the instant it was due) exceeds this many milliseconds.")
	s.boolean(&o.NoServerMetrics, "no-server-metrics", "No server view: do not read the server's /metrics beyond vLLM's two scrapes, sample no gauges, diagnose nothing.")
	s.val(argparse.BindSeconds("metrics-interval", &o.MetricsInterval), "metrics-interval",
		"Seconds between samples of the server's state gauges during the run (one GET /metrics each, on a connection of its own: "+
			"a few milliseconds of the API server's CPU per sample); 0 reads them only before and after.")
	s.val(argparse.BindInt("server-max-num-seqs", &o.ServerMaxNumSeqs), "server-max-num-seqs",
		"The server's --max-num-seqs per engine, which vLLM does not publish: the diagnosis compares the running requests with it (--sim sets it).")
}

// registerDataset defines the dataset flags that package dataset
// describes (dataset.Flags), bound to the dataset options, and vLLM's
// --input-len and --output-len, which fan out to them.
func (f *serveFlags) registerDataset(s flagSet) {
	d := &f.opts.Dataset
	for _, fl := range dataset.Flags() {
		if fl.Name == "random-input-len" { // vLLM lists the fan-out flags here
			f.inputLen, f.outputLen = argparse.NewInt("input-len", 0), argparse.NewInt("output-len", 0)
			s.val(f.inputLen, "input-len", "Input length for the synthetic datasets (sets --random-input-len).")
			s.val(f.outputLen, "output-len", "Output length for every dataset (sets --random-output-len, --sharegpt-output-len, --custom-output-len, ...).")
		}
		if fl.Pending() {
			registerPendingDataset(s, fl)
			continue
		}
		if fl.Parse != nil {
			text := fl.Default
			f.datasetTexts[fl.Name] = &text
			s.str(&text, fl.Name, fl.Help)
			continue
		}
		switch p := fl.Field(d).(type) {
		case *int:
			s.val(argparse.BindInt(fl.Name, p), fl.Name, fl.Help)
		case *float64:
			s.val(argparse.BindFloat(fl.Name, p), fl.Name, fl.Help)
		case *string:
			if fl.Choices != nil {
				c := argparse.BindChoice(fl.Name, p, fl.Choices...)
				if fl.Name == "dataset-name" {
					c.Offer(dataset.Supported())
				}
				s.val(c, fl.Name, fl.Help)
			} else {
				s.str(p, fl.Name, fl.Help)
			}
		case *bool:
			s.boolean(p, fl.Name, fl.Help)
		case **int:
			s.val(argparse.BindOptionalInt(fl.Name, p), fl.Name, fl.Help)
		default:
			panic(fmt.Sprintf("dataset flag --%s: no flag type for %T", fl.Name, p))
		}
	}
}

// registerPendingDataset defines the flag of a dataset gobench does not
// have yet, with vLLM's default; options() refuses it when given.
func registerPendingDataset(s flagSet, fl dataset.Flag) {
	switch {
	case fl.Choices != nil:
		s.val(argparse.NewChoice(fl.Name, fl.Default, fl.Choices...), fl.Name, fl.Help)
	case fl.Kind == "int":
		v, _ := strconv.Atoi(fl.Default)
		s.val(argparse.NewInt(fl.Name, v), fl.Name, fl.Help)
	case fl.Kind == "float":
		v, _ := pyfmt.ParseFloat(fl.Default)
		s.val(argparse.NewFloat(fl.Name, v), fl.Name, fl.Help)
	case fl.Kind == "bool":
		s.boolean(new(bool), fl.Name, fl.Help)
	default:
		v := fl.Default
		s.str(&v, fl.Name, fl.Help)
	}
}

// registerMultiTurn defines the multi-turn flags, named as vLLM's Rust
// client names them (rust/src/bench/src/cli.rs); the pinned vLLM has none.
func (f *serveFlags) registerMultiTurn(s flagSet) {
	m := &f.opts.MultiTurn
	s.boolean(&m.Enabled, "multi-turn", "Send conversations (--backend openai-chat): turn k+1 after turn k's answer, with every earlier turn and answer as messages. From --dataset-name random (synthetic), sharegpt (every turn) or custom (a JSONL conversation trace); --num-prompts counts conversations, --request-rate starts them.")
	s.val(argparse.BindInt("multi-turn-num-turns", &m.Turns.NumTurns), "multi-turn-num-turns", "Turns of each synthetic conversation (random dataset).")
	s.val(argparse.BindInt("multi-turn-min-turns", &m.Turns.MinTurns), "multi-turn-min-turns", "Fewest turns of a synthetic conversation, drawn uniformly up to --multi-turn-max-turns; 0: --multi-turn-num-turns.")
	s.val(argparse.BindInt("multi-turn-max-turns", &m.Turns.MaxTurns), "multi-turn-max-turns", "Most turns of a synthetic conversation (0: --multi-turn-num-turns); caps a ShareGPT conversation's turns (0: all).")
	s.val(argparse.BindInt("per-turn-input-len", &m.Turns.PerTurnInputLen), "per-turn-input-len", "Input tokens of each synthetic turn after the first (0: --random-input-len).")
	s.val(argparse.BindInt("multi-turn-concurrency", &m.Concurrency), "multi-turn-concurrency", "Most conversations open at once, each holding its slot from its first request to its last answer (0: --max-concurrency, else unlimited).")
	s.val(argparse.BindInt("multi-turn-delay-ms", &m.DelayMS), "multi-turn-delay-ms", "Think time in ms between an answer and the conversation's next turn.")
}

func (f *serveFlags) registerOwn(s flagSet) {
	o := &f.opts
	s.boolean(&o.DryRun, "dry-run", "Build the dataset and the schedule, print one JSON line per request (index, offset_s, prompt_len, output_len, request_id, media) and send nothing.")
	s.boolean(&f.sim, "sim", "Start gobench's simulated OpenAI-compatible server on a free loopback port and benchmark it (no --base-url needed).")
	f.readTimeout = argparse.NewFloat("read-timeout", 0)
	s.val(f.readTimeout, "read-timeout", "Fail a request that receives no token (or final event) for this many seconds; SSE comments and empty chunks do not count (default: VLLM_BENCH_SOCK_READ, else none; inf: none).")
	s.val(argparse.BindSeconds("request-timeout", &o.RequestTimeout), "request-timeout", "Fail a request that has not finished after this many seconds (vLLM's aiohttp total timeout).")
	s.val(argparse.BindSeconds("interrupt-grace", &o.InterruptGrace), "interrupt-grace", "After the first Ctrl-C, seconds to let requests in flight finish before cancelling them.")
	s.val(argparse.BindSeconds("progress-interval", &o.ProgressInterval), "progress-interval", "When stderr is not a terminal (CI logs), seconds between progress lines (\"progress: 120/1000 done, 0 failed, ...\"; the first after 1 s); 0: none.")
	s.val(optionalFloat{argparse.NewFloat("max-failed-ratio", 0), &o.MaxFailedRatio}, "max-failed-ratio",
		"Fail the run (exit status 3) when more than this share of its requests failed, 0 to 1 (default: off, as vLLM exits 0 whatever failed).")
	s.boolean(&o.Details, "details", "Print the whole of gobench's sections after vLLM's block (the steady-state table, every question of the diagnosis, why each client/server gap); by default they fit one screen.")
	f.gate.register(s.fs)
	f.repeat.register(s.fs)
	f.shard.register(s.fs)
	f.report.register(s.fs)
	f.live.register(s.fs)
	f.simx.register(s.fs, "sim-", false)
}

// pendingFlag is one of vLLM's flags, outside the datasets, for a feature
// gobench does not have yet: registered with vLLM's default, so that the
// help lists it and the argument namespace holds it, and refused when
// given.
type pendingFlag struct {
	name, kind, help string
	// feature names what is missing.
	feature string
}

// pendingFlags lists them, in vLLM's order.
var pendingFlags = []pendingFlag{}

// registerPending defines the pending flags on fs.
func registerPending(fs *pflag.FlagSet) {
	for _, p := range pendingFlags {
		switch p.kind {
		case "bool":
			fs.Bool(p.name, false, p.help)
		case "json":
			fs.Var(argparse.NewJSON(p.name), p.name, p.help)
		case "itl":
			fs.String(p.name, "25,50", p.help)
		default:
			fs.String(p.name, "", p.help)
		}
	}
}

// pendingFeature names what a given pending flag asks for, or "" when the
// flag is not a pending one.
func pendingFeature(name string) string {
	for _, p := range pendingFlags {
		if p.name == name {
			return p.feature
		}
	}
	if fl, ok := dataset.LookupFlag(name); ok && fl.Pending() {
		if spec, ok := dataset.FlagOwner(name); ok {
			return "the " + spec.Name + " dataset"
		}
	}
	return ""
}

// optionalFloat is a float flag that is off (nil) unless given: a value
// given is written to *dst as a pointer.
type optionalFloat struct {
	*argparse.Float
	dst **float64
}

// Set parses s as the flag does and stores a pointer to the value.
func (f optionalFloat) Set(s string) error {
	if err := f.Float.Set(s); err != nil {
		return err
	}
	*f.dst = f.Ptr()
	return nil
}
