package cli

import (
	"math"
	"strconv"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
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
	servedModelName, randomRangeRatio, percentileMetrics   string
	header, goodput, metadata, loraModules                 *listFlag
	maxConcurrency, inputLen, outputLen, sharegptOutputLen *intFlag
	logprobs, rampUpStart, rampUpEnd                       *intFlag
	rampUpStrategy                                         *choiceFlag
	readTimeout, probeRequestRate                          *floatFlag
	sampling                                               samplingFlags

	// gobench's own.
	sim  bool
	gate gateFlags
	simx simFlags
}

// samplingFlags are the sampling parameters, sent only when given, in
// vLLM's order.
type samplingFlags struct {
	topP, minP, temperature, freqPen, presPen, repPen *floatFlag
	topK                                              *intFlag
}

// listFlags are the nargs flags and their minimum count (1 for "+", 2 for
// "*", stored as minimum+1 so that 0 means "not a list").
var listFlags = map[string]int{"header": 2, "metadata": 2, "goodput": 1, "lora-modules": 1}

// newServeFlags returns the flags with vLLM's defaults.
func newServeFlags() *serveFlags {
	return &serveFlags{opts: run.DefaultOptions()}
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
	f.registerOwn(s)
	registerPending(fs)
}

func (f *serveFlags) registerTarget(s flagSet) {
	o := &f.opts
	s.str(&o.Label, "label", "Label (prefix) of the result file name; defaults to --backend.")
	s.val(bindChoice("backend", &o.Backend, backend.Names()...), "backend", "API to benchmark: openai and vllm (completions) or openai-chat are supported; vLLM's other backends are refused for now.")
	s.str(&o.BaseURL, "base-url", "Server base URL, e.g. http://localhost:8000 (used instead of --host/--port).")
	s.str(&o.Host, "host", "Server host, when --base-url is not given.")
	s.val(bindInt("port", &o.Port), "port", "Server port, when --base-url is not given.")
	s.str(&o.Endpoint, "endpoint", "API path appended to the base URL (/v1/chat/completions for openai-chat).")
	f.header = &listFlag{}
	s.val(f.header, "header", "Extra HTTP headers KEY=VALUE, several after one flag (--header a=1 b=2). They override Authorization and Content-Type.")
	s.str(&o.Model, "model", "Model name; when omitted, the first model of GET /v1/models.")
	s.str(&f.servedModelName, "served-model-name", "Model name sent in requests when it differs from --model.")
	s.str(&o.Tokenizer, "tokenizer", "Tokenizer: a tokenizer.json file or a folder holding one, a Hugging Face model id (HF cache, else downloaded into it), or gobench-builtin (default: the model id).")
	s.val(bindChoice("tokenizer-mode", &o.TokenizerMode, "auto", "hf", "slow", "mistral", "deepseek_v32", "qwen_vl", "custom", "server"),
		"tokenizer-mode", "Tokenizer mode: auto and hf read tokenizer.json (local, HF cache, or downloaded); server counts tokens with the server's /tokenize (gobench only).")
	s.boolean(&o.SkipTokenizerInit, "skip-tokenizer-init", "Run without a tokenizer: token counts come from the server's usage (1 when absent) and the TTFT/TPOT/ITL sections are not reported.")
	s.boolean(new(bool), "trust-remote-code", "Accepted for compatibility; gobench never runs tokenizer code.")
	s.boolean(&o.Insecure, "insecure", "Do not verify the server's TLS certificate.")
}

func (f *serveFlags) registerLoad(s flagSet) {
	o := &f.opts
	s.val(bindInt("num-prompts", &o.NumPrompts), "num-prompts", "Number of requests.")
	s.val(bindFloat("request-rate", &o.Schedule.RequestRate), "request-rate", "Mean requests per second; inf sends every request at once. Arrival gaps are gamma-distributed (Poisson when --burstiness is 1) and normalised so the last request is due at num_prompts/rate.")
	s.val(bindFloat("burstiness", &o.Schedule.Burstiness), "burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, below 1 burstier, above 1 more regular, inf evenly spaced.")
	f.maxConcurrency = newInt("max-concurrency", 0)
	s.val(f.maxConcurrency, "max-concurrency", "Most requests in flight at once (and the connection-pool size); the wait for a slot is reported as client queue time. Default: unlimited.")
	s.val(bindInt64("seed", &o.Seed), "seed", "Seed of the arrival schedule and the datasets (same seed, same workload as vLLM).")
	f.rampUpStrategy = newChoice("ramp-up-strategy", "", "linear", "exponential")
	s.val(f.rampUpStrategy, "ramp-up-strategy", "Ramp the request rate from --ramp-up-start-rps to --ramp-up-end-rps over the run (linear or exponential).")
	f.rampUpStart, f.rampUpEnd = newInt("ramp-up-start-rps", 0), newInt("ramp-up-end-rps", 0)
	s.val(f.rampUpStart, "ramp-up-start-rps", "Request rate at the start of a ramp-up.")
	s.val(f.rampUpEnd, "ramp-up-end-rps", "Request rate at the end of a ramp-up.")
	s.val(bindInt("num-warmups", &o.NumWarmups), "num-warmups", "Warm-up requests (copies of the first request) sent before the measured run.")
	s.val(bindWholeSeconds("ready-check-timeout-sec", &o.ReadyCheckTimeout), "ready-check-timeout-sec", "Poll the endpoint with the first request until it answers, for at most this many seconds; 0 skips the check.")
	s.boolean(&o.Profile, "profile", "POST /start_profile before and /stop_profile after the run (the server must have profiling enabled).")
	s.str(&o.RequestIDPrefix, "request-id-prefix", "Prefix of the x-request-id header of each request.")
	f.loraModules = &listFlag{}
	s.val(f.loraModules, "lora-modules", "LoRA adapters to spread the requests over (each request names one as its model).")
	s.val(bindChoice("lora-assignment", &o.LoRAAssignment, "random", "round-robin"), "lora-assignment", "How requests pick a LoRA: random or round-robin.")
	f.probeRequestRate = newFloat("probe-request-rate", 0)
	s.val(f.probeRequestRate, "probe-request-rate", "Send 1-token probe requests at this rate beside the run (not supported yet).")
	s.boolean(&o.DisableProgress, "disable-tqdm", "No progress bar.")
	s.boolean(new(bool), "use-beam-search", "Accepted for compatibility; it has no effect, as in vLLM.")
}

func (f *serveFlags) registerPayload(s flagSet) {
	o, sp := &f.opts, &f.sampling
	f.logprobs = newInt("logprobs", 0)
	s.val(f.logprobs, "logprobs", "Completions logprobs per token (sent as null when unset).")
	s.boolean(&o.IgnoreEOS, "ignore-eos", "Send ignore_eos: true so every request generates its full output length (forced on for the random dataset).")
	sp.topP, sp.topK, sp.minP = newFloat("top-p", 0), newInt("top-k", 0), newFloat("min-p", 0)
	s.val(sp.topP, "top-p", "Sampling top_p sent with every request.")
	s.val(sp.topK, "top-k", "Sampling top_k sent with every request.")
	s.val(sp.minP, "min-p", "Sampling min_p sent with every request.")
	sp.temperature = newFloat("temperature", 0)
	s.val(sp.temperature, "temperature", "Sampling temperature sent with every request (unset: the server's default).")
	sp.freqPen, sp.presPen, sp.repPen = newFloat("frequency-penalty", 0), newFloat("presence-penalty", 0), newFloat("repetition-penalty", 0)
	s.val(sp.freqPen, "frequency-penalty", "Sampling frequency_penalty sent with every request.")
	s.val(sp.presPen, "presence-penalty", "Sampling presence_penalty sent with every request.")
	s.val(sp.repPen, "repetition-penalty", "Sampling repetition_penalty sent with every request.")
	s.val(&jsonFlag{name: "extra-body", dst: &o.ExtraBody}, "extra-body", `JSON object merged into every payload, e.g. '{"top_k": 5}' (or --extra-body.top_k 5); it wins over the sampling flags.`)
}

func (f *serveFlags) registerOutput(s flagSet) {
	o := &f.opts
	s.str(&f.percentileMetrics, "percentile-metrics", `Comma-separated metrics to report with mean, median and percentiles: ttft, tpot, itl, e2el (default "ttft,tpot,itl").`)
	s.val(&percentilesFlag{dst: &o.Percentiles}, "metric-percentiles", `Comma-separated percentiles to report, e.g. "50,90,99".`)
	f.goodput = &listFlag{}
	s.val(f.goodput, "goodput", "Service-level objectives KEY:VALUE in ms (ttft, tpot, e2el), e.g. --goodput ttft:500 tpot:50; a request is good when it meets all of them.")
	s.boolean(&o.SaveResult, "save-result", "Save the result to a JSON file.")
	s.boolean(&o.SaveDetailed, "save-detailed", "Keep per-request lists (TTFTs, ITLs, texts, errors, scheduled offsets) in the result file.")
	s.boolean(&o.AppendResult, "append-result", "Append the result to the file as one JSON line (implies saving).")
	f.metadata = &listFlag{}
	s.val(f.metadata, "metadata", "Extra KEY=VALUE pairs saved at the top of the result file.")
	s.str(&o.ResultDir, "result-dir", "Folder of the result file (created if needed).")
	s.str(&o.ResultFilename, "result-filename", "Name of the result file, instead of {label}-{rate}qps[-concurrency{N}]-{model}-{date}.json.")
	s.boolean(&o.ReportCachedTokens, "report-cached-tokens", "Sum usage.prompt_tokens_details.cached_tokens into total_cached_tokens.")
}

func (f *serveFlags) registerDataset(s flagSet) {
	d := &f.opts.Dataset
	s.val(bindChoice("dataset-name", &d.Name, dataset.Names()...), "dataset-name", "Dataset: random, custom (JSONL with a prompt per line) and sharegpt are supported; vLLM's others are refused for now.")
	s.str(&d.Path, "dataset-path", "Dataset file (sharegpt: JSON list; custom: .jsonl).")
	f.inputLen, f.outputLen = newInt("input-len", 0), newInt("output-len", 0)
	s.val(f.inputLen, "input-len", "Input length for the synthetic datasets (sets --random-input-len).")
	s.val(f.outputLen, "output-len", "Output length for every dataset (sets --random-output-len, --sharegpt-output-len, --custom-output-len, ...).")
	s.boolean(&d.NoOversample, "no-oversample", "Do not repeat samples to reach --num-prompts when the file has fewer.")
	s.boolean(&d.DisableShuffle, "disable-shuffle", "Keep the file's order instead of shuffling with --seed.")
	s.boolean(&d.SkipChatTemplate, "skip-chat-template", "Send custom prompts as they are, without the tokenizer's chat template.")
	s.val(bindInt("random-input-len", &d.RandomInputLen), "random-input-len", "Random dataset: input tokens per request (special tokens the tokenizer adds are subtracted).")
	s.val(bindInt("random-output-len", &d.RandomOutputLen), "random-output-len", "Random dataset: output tokens per request.")
	f.randomRangeRatio = "0.0"
	s.str(&f.randomRangeRatio, "random-range-ratio", `Random dataset: lengths are drawn uniformly from [len·(1-r), len·(1+r)]; a float or '{"input": r1, "output": r2}', each in [0, 1).`)
	s.val(bindInt("random-prefix-len", &d.RandomPrefixLen), "random-prefix-len", "Random dataset: tokens of a random prefix shared by every prompt.")
	s.val(bindInt("random-batch-size", &d.RandomBatchSize), "random-batch-size", "Random dataset: prompts per request (embedding backends, not supported yet).")
	s.val(bindInt("custom-output-len", &d.CustomOutputLen), "custom-output-len", "Custom dataset: output tokens per request; -1 takes each line's output_tokens.")
	f.sharegptOutputLen = newInt("sharegpt-output-len", 0)
	s.val(f.sharegptOutputLen, "sharegpt-output-len", "ShareGPT: output tokens per request instead of each answer's length.")
}

func (f *serveFlags) registerOwn(s flagSet) {
	o := &f.opts
	s.boolean(&o.DryRun, "dry-run", "Build the dataset and the schedule, print one JSON line per request (index, offset_s, prompt_len, output_len, request_id) and send nothing.")
	s.boolean(&f.sim, "sim", "Start gobench's simulated OpenAI-compatible server on a free loopback port and benchmark it (no --base-url needed).")
	f.readTimeout = newFloat("read-timeout", 0)
	s.val(f.readTimeout, "read-timeout", "Fail a request that receives no data for this many seconds (default: VLLM_BENCH_SOCK_READ, else none).")
	s.val(bindSeconds("interrupt-grace", &o.InterruptGrace), "interrupt-grace", "After the first Ctrl-C, seconds to let requests in flight finish before cancelling them.")
	f.gate.register(s.fs)
	f.simx.register(s.fs, "sim-", false)
}

// pendingFlag is one of vLLM's flags for a feature gobench does not have
// yet: registered with vLLM's default, so that the help lists it and the
// argument namespace holds it, and refused when given.
type pendingFlag struct {
	name, kind, def, help string
	// feature names what is missing; "" takes the dataset that owns the
	// flag (dataset.FlagOwner).
	feature string
}

// pendingFlags lists them, in vLLM's order.
var pendingFlags = []pendingFlag{
	{"chat-template-kwargs", "json", "", "JSON kwargs for client-side chat templates (not supported yet).", "client-side chat templates"},
	{"self-timed", "bool", "", "Use the trace's timestamps (timed_trace dataset, not supported yet).", ""},
	{"no-self-timed", "bool", "", "Do not use the trace's timestamps.", ""},
	{"plot-timeline", "bool", "", "Write an HTML timeline next to the result (not supported yet).", "the HTML timeline"},
	{"timeline-itl-thresholds", "string", "25,50", "Two ITL thresholds in ms for --plot-timeline.", "the HTML timeline"},
	{"plot-dataset-stats", "bool", "", "Plot the dataset's token distributions (not supported yet).", "dataset plots"},
	{"enable-multimodal-chat", "bool", "", "Wrap prompts and media into chat messages (not supported yet).", "multimodal chat"},
	{"no-stream", "bool", "", "Load HF datasets without streaming (not supported yet).", ""},
	{"no-reranker", "bool", "", "random-rerank for non-native rerankers (not supported yet).", ""},
	{"custom-ensure-client-side-data", "bool", "", "custom_image: send media as data (not supported yet).", ""},
	{"spec-bench-output-len", "int", "256", "spec_bench dataset option (not supported yet).", ""},
	{"spec-bench-category", "string", "", "spec_bench dataset option (not supported yet).", ""},
	{"sonnet-input-len", "int", "550", "sonnet dataset option (not supported yet).", ""},
	{"sonnet-output-len", "int", "150", "sonnet dataset option (not supported yet).", ""},
	{"sonnet-prefix-len", "int", "200", "sonnet dataset option (not supported yet).", ""},
	{"timed-trace-chunk-hash-size", "int", "16", "timed_trace dataset option (not supported yet).", ""},
	{"timed-trace-sec-multiplier", "float", "1", "timed_trace dataset option (not supported yet).", ""},
	{"timed-trace-label-timestamp", "string", "timestamp", "timed_trace dataset option (not supported yet).", ""},
	{"timed-trace-label-input-length", "string", "input_length", "timed_trace dataset option (not supported yet).", ""},
	{"timed-trace-label-output-length", "string", "output_length", "timed_trace dataset option (not supported yet).", ""},
	{"timed-trace-label-hash-ids", "string", "hash_ids", "timed_trace dataset option (not supported yet).", ""},
	{"blazedit-min-distance", "float", "0", "hf blazedit option (not supported yet).", ""},
	{"blazedit-max-distance", "float", "1", "hf blazedit option (not supported yet).", ""},
	{"asr-max-audio-len-sec", "float", "inf", "hf ASR option (not supported yet).", ""},
	{"asr-min-audio-len-sec", "float", "0", "hf ASR option (not supported yet).", ""},
	{"random-mm-base-items-per-request", "int", "1", "random-mm dataset option (not supported yet).", ""},
	{"random-mm-num-mm-items-range-ratio", "float", "0", "random-mm dataset option (not supported yet).", ""},
	{"random-mm-limit-mm-per-prompt", "string", `{"image": 255, "video": 1}`, "random-mm dataset option (not supported yet).", ""},
	{"random-mm-bucket-config", "string", "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}", "random-mm dataset option (not supported yet).", ""},
	{"hf-subset", "string", "", "hf dataset option (not supported yet).", ""},
	{"hf-split", "string", "", "hf dataset option (not supported yet).", ""},
	{"hf-name", "string", "", "hf dataset option (not supported yet).", ""},
	{"hf-output-len", "int", "0", "hf dataset option (not supported yet).", ""},
	{"prefix-repetition-prefix-len", "int", "256", "prefix_repetition dataset option (not supported yet).", ""},
	{"prefix-repetition-suffix-len", "int", "256", "prefix_repetition dataset option (not supported yet).", ""},
	{"prefix-repetition-num-prefixes", "int", "10", "prefix_repetition dataset option (not supported yet).", ""},
	{"prefix-repetition-output-len", "int", "128", "prefix_repetition dataset option (not supported yet).", ""},
	{"speed-bench-dataset-subset", "choice", "qualitative", "speed_bench dataset option (not supported yet).", ""},
	{"speed-bench-output-len", "int", "4096", "speed_bench dataset option (not supported yet).", ""},
	{"speed-bench-category", "string", "", "speed_bench dataset option (not supported yet).", ""},
	{"config", "string", "", "Read arguments from a YAML file (not supported yet).", "YAML argument files"},
}

// speedBenchSubsets are vLLM's choices of --speed-bench-dataset-subset.
var speedBenchSubsets = []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"}

// registerPending defines the pending flags on fs.
func registerPending(fs *pflag.FlagSet) {
	for _, p := range pendingFlags {
		switch p.kind {
		case "bool":
			fs.Bool(p.name, false, p.help)
		case "string":
			fs.String(p.name, p.def, p.help)
		case "json":
			fs.Var(&jsonFlag{name: p.name}, p.name, p.help)
		case "choice":
			fs.Var(newChoice(p.name, p.def, speedBenchSubsets...), p.name, p.help)
		case "int":
			v, _ := strconv.Atoi(p.def)
			fs.Var(newInt(p.name, v), p.name, p.help)
		case "float":
			v := math.Inf(1)
			if p.def != "inf" {
				v, _ = strconv.ParseFloat(p.def, 64)
			}
			fs.Var(newFloat(p.name, v), p.name, p.help)
		}
	}
}

// pendingFeature names what a given pending flag asks for, or "" when the
// flag is not a pending one.
func pendingFeature(name string) string {
	for _, p := range pendingFlags {
		if p.name != name {
			continue
		}
		if p.feature != "" {
			return p.feature
		}
		if spec, ok := dataset.FlagOwner(name); ok {
			return "the " + spec.Name + " dataset"
		}
	}
	return ""
}
