package cli

import (
	"crypto/rand"
	"encoding/hex"
	"math"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/spf13/pflag"
)

// serveFlags holds the values of every `gobench serve` flag: vLLM's (§1.2
// and §1.3 of the reference, same names, defaults and meanings) and
// gobench's own.
type serveFlags struct {
	// Target.
	label, baseURL, host, endpoint, model, tokenizer, servedModelName string
	backend, tokenizerMode                                            *choiceFlag
	port                                                              *intFlag
	header                                                            *listFlag
	insecure, skipTokenizerInit, trustRemoteCode                      bool

	// Load.
	maxConcurrency, numWarmups, readyCheckTimeout *intFlag
	requestRate, burstiness, probeRequestRate     *floatFlag
	rampUpStrategy                                *choiceFlag
	rampUpStart, rampUpEnd                        *intFlag
	profile, disableTqdm, useBeamSearch           bool
	requestIDPrefix                               string
	loraModules                                   *listFlag
	loraAssignment                                *choiceFlag

	// Payload.
	logprobs, topK                                    *intFlag
	topP, minP, temperature, freqPen, presPen, repPen *floatFlag
	ignoreEOS                                         bool
	extraBody, chatTemplateKwargs                     *jsonFlag
	selfTimed, noSelfTimed                            bool

	// Metrics and output.
	percentileMetrics, metricPercentiles, timelineThresholds string
	goodput, metadata                                        *listFlag
	saveResult, saveDetailed, appendResult                   bool
	resultDir, resultFilename                                string
	plotTimeline, plotDatasetStats, reportCachedTokens       bool

	// Dataset.
	seed, numPrompts, inputLen, outputLen                     *intFlag
	datasetName                                               *choiceFlag
	datasetPath                                               string
	noStream, noOversample, skipChatTemplate, enableMMChat    bool
	disableShuffle                                            bool
	customOutputLen, specBenchOutputLen                       *intFlag
	specBenchCategory                                         string
	sonnetInputLen, sonnetOutputLen, sonnetPrefixLen          *intFlag
	sharegptOutputLen                                         *intFlag
	customEnsureClientSide                                    bool
	randomInputLen, randomOutputLen, randomPrefixLen          *intFlag
	randomBatchSize                                           *intFlag
	randomRangeRatio                                          string
	noReranker                                                bool
	hfSubset, hfSplit, hfName                                 string
	hfOutputLen                                               *intFlag
	prefixRepPrefixLen, prefixRepSuffixLen, prefixRepNum      *intFlag
	prefixRepOutputLen                                        *intFlag
	timedTraceChunk                                           *intFlag
	timedTraceMult                                            *floatFlag
	timedTraceTS, timedTraceIn, timedTraceOut, timedTraceHash string
	blazeditMin, blazeditMax, asrMax, asrMin                  *floatFlag
	mmBaseItems                                               *intFlag
	mmRangeRatio                                              *floatFlag
	mmLimit, mmBuckets                                        string
	speedBenchSubset                                          *choiceFlag
	speedBenchOutputLen                                       *intFlag
	speedBenchCategory                                        string
	configFile                                                string

	// gobench's own.
	dryRun, sim        bool
	readTimeout, grace *floatFlag
	gate               gateFlags
	simx               simFlags
}

// listFlags are the nargs flags and their minimum count (1 for "+", 2 for
// "*", stored as minimum+1 so that 0 means "not a list").
var listFlags = map[string]int{"header": 2, "metadata": 2, "goodput": 1, "lora-modules": 1}

// defaultRequestIDPrefix is vLLM's default, drawn once per process:
// "bench-" + 8 random hex digits + "-".
func defaultRequestIDPrefix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "bench-" + hex.EncodeToString(b) + "-"
}

func newInt(name string, v int) *intFlag         { return &intFlag{name: name, v: v} }
func newFloat(name string, v float64) *floatFlag { return &floatFlag{name: name, v: v} }
func newChoice(name, v string, choices ...string) *choiceFlag {
	return &choiceFlag{name: name, v: v, choices: choices}
}

// register defines every flag on fs, with help texts after vLLM's.
func (o *serveFlags) register(fs *pflag.FlagSet) {
	str := func(p *string, name, def, usage string) { fs.StringVar(p, name, def, usage) }
	boolean := func(p *bool, name, usage string) { fs.BoolVar(p, name, false, usage) }
	val := func(v pflag.Value, name, usage string) { fs.Var(v, name, usage) }

	// Where to send.
	str(&o.label, "label", "", "Label (prefix) of the result file name; defaults to --backend.")
	o.backend = newChoice("backend", "openai", backend.Names...)
	val(o.backend, "backend", "API to benchmark: openai and vllm (completions) or openai-chat are supported; vLLM's other backends are refused for now.")
	str(&o.baseURL, "base-url", "", "Server base URL, e.g. http://localhost:8000 (used instead of --host/--port).")
	str(&o.host, "host", "127.0.0.1", "Server host, when --base-url is not given.")
	o.port = newInt("port", 8000)
	val(o.port, "port", "Server port, when --base-url is not given.")
	str(&o.endpoint, "endpoint", "/v1/completions", "API path appended to the base URL (/v1/chat/completions for openai-chat).")
	o.header = &listFlag{}
	val(o.header, "header", "Extra HTTP headers KEY=VALUE, several after one flag (--header a=1 b=2). They override Authorization and Content-Type.")
	str(&o.model, "model", "", "Model name; when omitted, the first model of GET /v1/models.")
	str(&o.servedModelName, "served-model-name", "", "Model name sent in requests when it differs from --model.")
	str(&o.tokenizer, "tokenizer", "", "Tokenizer: a tokenizer.json file or a folder holding one, a Hugging Face model id (HF cache, else downloaded into it), or gobench-builtin (default: the model id).")
	o.tokenizerMode = newChoice("tokenizer-mode", "auto", "auto", "hf", "slow", "mistral", "deepseek_v32", "qwen_vl", "custom", "server")
	val(o.tokenizerMode, "tokenizer-mode", "Tokenizer mode: auto and hf read tokenizer.json (local, HF cache, or downloaded); server counts tokens with the server's /tokenize (gobench only).")
	boolean(&o.skipTokenizerInit, "skip-tokenizer-init", "Run without a tokenizer: token counts come from the server's usage (1 when absent) and the TTFT/TPOT/ITL sections are not reported.")
	boolean(&o.trustRemoteCode, "trust-remote-code", "Accepted for compatibility; gobench never runs tokenizer code.")
	boolean(&o.insecure, "insecure", "Do not verify the server's TLS certificate.")

	// How to send.
	o.numPrompts = newInt("num-prompts", 1000)
	val(o.numPrompts, "num-prompts", "Number of requests.")
	o.requestRate = newFloat("request-rate", math.Inf(1))
	val(o.requestRate, "request-rate", "Mean requests per second; inf sends every request at once. Arrival gaps are gamma-distributed (Poisson when --burstiness is 1) and normalised so the last request is due at num_prompts/rate.")
	o.burstiness = newFloat("burstiness", 1.0)
	val(o.burstiness, "burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, below 1 burstier, above 1 more regular, inf evenly spaced.")
	o.maxConcurrency = newInt("max-concurrency", 0)
	val(o.maxConcurrency, "max-concurrency", "Most requests in flight at once (and the connection-pool size); the wait for a slot is reported as client queue time. Default: unlimited.")
	o.seed = newInt("seed", 0)
	val(o.seed, "seed", "Seed of the arrival schedule and the datasets (same seed, same workload as vLLM).")
	o.rampUpStrategy = newChoice("ramp-up-strategy", "", "linear", "exponential")
	val(o.rampUpStrategy, "ramp-up-strategy", "Ramp the request rate from --ramp-up-start-rps to --ramp-up-end-rps over the run (linear or exponential).")
	o.rampUpStart = newInt("ramp-up-start-rps", 0)
	val(o.rampUpStart, "ramp-up-start-rps", "Request rate at the start of a ramp-up.")
	o.rampUpEnd = newInt("ramp-up-end-rps", 0)
	val(o.rampUpEnd, "ramp-up-end-rps", "Request rate at the end of a ramp-up.")
	o.numWarmups = newInt("num-warmups", 0)
	val(o.numWarmups, "num-warmups", "Warm-up requests (copies of the first request) sent before the measured run.")
	o.readyCheckTimeout = newInt("ready-check-timeout-sec", 0)
	val(o.readyCheckTimeout, "ready-check-timeout-sec", "Poll the endpoint with the first request until it answers, for at most this many seconds; 0 skips the check.")
	boolean(&o.profile, "profile", "POST /start_profile before and /stop_profile after the run (the server must have profiling enabled).")
	str(&o.requestIDPrefix, "request-id-prefix", defaultRequestIDPrefix(), "Prefix of the x-request-id header of each request.")
	o.loraModules = &listFlag{}
	val(o.loraModules, "lora-modules", "LoRA adapters to spread the requests over (each request names one as its model).")
	o.loraAssignment = newChoice("lora-assignment", "random", "random", "round-robin")
	val(o.loraAssignment, "lora-assignment", "How requests pick a LoRA: random or round-robin.")
	o.probeRequestRate = newFloat("probe-request-rate", 0)
	val(o.probeRequestRate, "probe-request-rate", "Send 1-token probe requests at this rate beside the run (not supported yet).")
	boolean(&o.disableTqdm, "disable-tqdm", "No progress bar.")
	boolean(&o.useBeamSearch, "use-beam-search", "Accepted for compatibility; it has no effect, as in vLLM.")

	// What to send.
	o.logprobs = newInt("logprobs", 0)
	val(o.logprobs, "logprobs", "Completions logprobs per token (sent as null when unset).")
	boolean(&o.ignoreEOS, "ignore-eos", "Send ignore_eos: true so every request generates its full output length (forced on for the random dataset).")
	o.topP, o.topK, o.minP = newFloat("top-p", 0), newInt("top-k", 0), newFloat("min-p", 0)
	val(o.topP, "top-p", "Sampling top_p sent with every request.")
	val(o.topK, "top-k", "Sampling top_k sent with every request.")
	val(o.minP, "min-p", "Sampling min_p sent with every request.")
	o.temperature = newFloat("temperature", 0)
	val(o.temperature, "temperature", "Sampling temperature sent with every request (unset: the server's default).")
	o.freqPen, o.presPen, o.repPen = newFloat("frequency-penalty", 0), newFloat("presence-penalty", 0), newFloat("repetition-penalty", 0)
	val(o.freqPen, "frequency-penalty", "Sampling frequency_penalty sent with every request.")
	val(o.presPen, "presence-penalty", "Sampling presence_penalty sent with every request.")
	val(o.repPen, "repetition-penalty", "Sampling repetition_penalty sent with every request.")
	o.extraBody = &jsonFlag{name: "extra-body"}
	val(o.extraBody, "extra-body", `JSON object merged into every payload, e.g. '{"top_k": 5}' (or --extra-body.top_k 5); it wins over the sampling flags.`)
	o.chatTemplateKwargs = &jsonFlag{name: "chat-template-kwargs"}
	val(o.chatTemplateKwargs, "chat-template-kwargs", "JSON kwargs for client-side chat templates (not supported yet).")
	boolean(&o.selfTimed, "self-timed", "Use the trace's timestamps (timed_trace dataset, not supported yet).")
	boolean(&o.noSelfTimed, "no-self-timed", "Do not use the trace's timestamps.")

	// What to report.
	str(&o.percentileMetrics, "percentile-metrics", "", `Comma-separated metrics to report with mean, median and percentiles: ttft, tpot, itl, e2el (default "ttft,tpot,itl").`)
	str(&o.metricPercentiles, "metric-percentiles", "99", `Comma-separated percentiles to report, e.g. "50,90,99".`)
	o.goodput = &listFlag{}
	val(o.goodput, "goodput", "Service-level objectives KEY:VALUE in ms (ttft, tpot, e2el), e.g. --goodput ttft:500 tpot:50; a request is good when it meets all of them.")
	boolean(&o.saveResult, "save-result", "Save the result to a JSON file.")
	boolean(&o.saveDetailed, "save-detailed", "Keep per-request lists (TTFTs, ITLs, texts, errors, scheduled offsets) in the result file.")
	boolean(&o.appendResult, "append-result", "Append the result to the file as one JSON line (implies saving).")
	o.metadata = &listFlag{}
	val(o.metadata, "metadata", "Extra KEY=VALUE pairs saved at the top of the result file.")
	str(&o.resultDir, "result-dir", "", "Folder of the result file (created if needed).")
	str(&o.resultFilename, "result-filename", "", "Name of the result file, instead of {label}-{rate}qps[-concurrency{N}]-{model}-{date}.json.")
	boolean(&o.reportCachedTokens, "report-cached-tokens", "Sum usage.prompt_tokens_details.cached_tokens into total_cached_tokens.")
	boolean(&o.plotTimeline, "plot-timeline", "Write an HTML timeline next to the result (not supported yet).")
	str(&o.timelineThresholds, "timeline-itl-thresholds", "25,50", "Two ITL thresholds in ms for --plot-timeline.")
	boolean(&o.plotDatasetStats, "plot-dataset-stats", "Plot the dataset's token distributions (not supported yet).")

	// Datasets.
	o.datasetName = newChoice("dataset-name", "random", dataset.Names...)
	val(o.datasetName, "dataset-name", "Dataset: random, custom (JSONL with a prompt per line) and sharegpt are supported; vLLM's others are refused for now.")
	str(&o.datasetPath, "dataset-path", "", "Dataset file (sharegpt: JSON list; custom: .jsonl).")
	o.inputLen, o.outputLen = newInt("input-len", 0), newInt("output-len", 0)
	val(o.inputLen, "input-len", "Input length for the synthetic datasets (sets --random-input-len).")
	val(o.outputLen, "output-len", "Output length for every dataset (sets --random-output-len, --sharegpt-output-len, --custom-output-len, ...).")
	boolean(&o.noOversample, "no-oversample", "Do not repeat samples to reach --num-prompts when the file has fewer.")
	boolean(&o.disableShuffle, "disable-shuffle", "Keep the file's order instead of shuffling with --seed.")
	boolean(&o.skipChatTemplate, "skip-chat-template", "Send custom prompts as they are, without the tokenizer's chat template.")
	boolean(&o.enableMMChat, "enable-multimodal-chat", "Wrap prompts and media into chat messages (not supported yet).")
	boolean(&o.noStream, "no-stream", "Load HF datasets without streaming (not supported yet).")
	o.randomInputLen, o.randomOutputLen = newInt("random-input-len", 1024), newInt("random-output-len", 128)
	val(o.randomInputLen, "random-input-len", "Random dataset: input tokens per request (special tokens the tokenizer adds are subtracted).")
	val(o.randomOutputLen, "random-output-len", "Random dataset: output tokens per request.")
	str(&o.randomRangeRatio, "random-range-ratio", "0.0", `Random dataset: lengths are drawn uniformly from [len·(1-r), len·(1+r)]; a float or '{"input": r1, "output": r2}', each in [0, 1).`)
	o.randomPrefixLen = newInt("random-prefix-len", 0)
	val(o.randomPrefixLen, "random-prefix-len", "Random dataset: tokens of a random prefix shared by every prompt.")
	o.randomBatchSize = newInt("random-batch-size", 1)
	val(o.randomBatchSize, "random-batch-size", "Random dataset: prompts per request (embedding backends, not supported yet).")
	boolean(&o.noReranker, "no-reranker", "random-rerank for non-native rerankers (not supported yet).")
	o.customOutputLen = newInt("custom-output-len", 256)
	val(o.customOutputLen, "custom-output-len", "Custom dataset: output tokens per request; -1 takes each line's output_tokens.")
	boolean(&o.customEnsureClientSide, "custom-ensure-client-side-data", "custom_image: send media as data (not supported yet).")
	o.sharegptOutputLen = newInt("sharegpt-output-len", 0)
	val(o.sharegptOutputLen, "sharegpt-output-len", "ShareGPT: output tokens per request instead of each answer's length.")
	o.specBenchOutputLen = newInt("spec-bench-output-len", 256)
	val(o.specBenchOutputLen, "spec-bench-output-len", "spec_bench dataset option (not supported yet).")
	str(&o.specBenchCategory, "spec-bench-category", "", "spec_bench dataset option (not supported yet).")
	o.sonnetInputLen, o.sonnetOutputLen, o.sonnetPrefixLen = newInt("sonnet-input-len", 550), newInt("sonnet-output-len", 150), newInt("sonnet-prefix-len", 200)
	val(o.sonnetInputLen, "sonnet-input-len", "sonnet dataset option (not supported yet).")
	val(o.sonnetOutputLen, "sonnet-output-len", "sonnet dataset option (not supported yet).")
	val(o.sonnetPrefixLen, "sonnet-prefix-len", "sonnet dataset option (not supported yet).")
	o.timedTraceChunk = newInt("timed-trace-chunk-hash-size", 16)
	val(o.timedTraceChunk, "timed-trace-chunk-hash-size", "timed_trace dataset option (not supported yet).")
	o.timedTraceMult = newFloat("timed-trace-sec-multiplier", 1)
	val(o.timedTraceMult, "timed-trace-sec-multiplier", "timed_trace dataset option (not supported yet).")
	str(&o.timedTraceTS, "timed-trace-label-timestamp", "timestamp", "timed_trace dataset option (not supported yet).")
	str(&o.timedTraceIn, "timed-trace-label-input-length", "input_length", "timed_trace dataset option (not supported yet).")
	str(&o.timedTraceOut, "timed-trace-label-output-length", "output_length", "timed_trace dataset option (not supported yet).")
	str(&o.timedTraceHash, "timed-trace-label-hash-ids", "hash_ids", "timed_trace dataset option (not supported yet).")
	o.blazeditMin, o.blazeditMax = newFloat("blazedit-min-distance", 0), newFloat("blazedit-max-distance", 1)
	val(o.blazeditMin, "blazedit-min-distance", "hf blazedit option (not supported yet).")
	val(o.blazeditMax, "blazedit-max-distance", "hf blazedit option (not supported yet).")
	o.asrMax, o.asrMin = newFloat("asr-max-audio-len-sec", math.Inf(1)), newFloat("asr-min-audio-len-sec", 0)
	val(o.asrMax, "asr-max-audio-len-sec", "hf ASR option (not supported yet).")
	val(o.asrMin, "asr-min-audio-len-sec", "hf ASR option (not supported yet).")
	o.mmBaseItems = newInt("random-mm-base-items-per-request", 1)
	val(o.mmBaseItems, "random-mm-base-items-per-request", "random-mm dataset option (not supported yet).")
	o.mmRangeRatio = newFloat("random-mm-num-mm-items-range-ratio", 0)
	val(o.mmRangeRatio, "random-mm-num-mm-items-range-ratio", "random-mm dataset option (not supported yet).")
	str(&o.mmLimit, "random-mm-limit-mm-per-prompt", `{"image": 255, "video": 1}`, "random-mm dataset option (not supported yet).")
	str(&o.mmBuckets, "random-mm-bucket-config", "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}", "random-mm dataset option (not supported yet).")
	str(&o.hfSubset, "hf-subset", "", "hf dataset option (not supported yet).")
	str(&o.hfSplit, "hf-split", "", "hf dataset option (not supported yet).")
	str(&o.hfName, "hf-name", "", "hf dataset option (not supported yet).")
	o.hfOutputLen = newInt("hf-output-len", 0)
	val(o.hfOutputLen, "hf-output-len", "hf dataset option (not supported yet).")
	o.prefixRepPrefixLen, o.prefixRepSuffixLen = newInt("prefix-repetition-prefix-len", 256), newInt("prefix-repetition-suffix-len", 256)
	o.prefixRepNum, o.prefixRepOutputLen = newInt("prefix-repetition-num-prefixes", 10), newInt("prefix-repetition-output-len", 128)
	val(o.prefixRepPrefixLen, "prefix-repetition-prefix-len", "prefix_repetition dataset option (not supported yet).")
	val(o.prefixRepSuffixLen, "prefix-repetition-suffix-len", "prefix_repetition dataset option (not supported yet).")
	val(o.prefixRepNum, "prefix-repetition-num-prefixes", "prefix_repetition dataset option (not supported yet).")
	val(o.prefixRepOutputLen, "prefix-repetition-output-len", "prefix_repetition dataset option (not supported yet).")
	o.speedBenchSubset = newChoice("speed-bench-dataset-subset", "qualitative", "qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k")
	val(o.speedBenchSubset, "speed-bench-dataset-subset", "speed_bench dataset option (not supported yet).")
	o.speedBenchOutputLen = newInt("speed-bench-output-len", 4096)
	val(o.speedBenchOutputLen, "speed-bench-output-len", "speed_bench dataset option (not supported yet).")
	str(&o.speedBenchCategory, "speed-bench-category", "", "speed_bench dataset option (not supported yet).")
	str(&o.configFile, "config", "", "Read arguments from a YAML file (not supported yet).")

	// gobench's own.
	boolean(&o.dryRun, "dry-run", "Build the dataset and the schedule, print one JSON line per request (index, offset_s, prompt_len, output_len, request_id) and send nothing.")
	boolean(&o.sim, "sim", "Start gobench's simulated OpenAI-compatible server on a free loopback port and benchmark it (no --base-url needed).")
	o.readTimeout = newFloat("read-timeout", 0)
	val(o.readTimeout, "read-timeout", "Fail a request that receives no data for this many seconds (default: VLLM_BENCH_SOCK_READ, else none).")
	o.grace = newFloat("interrupt-grace", 30)
	val(o.grace, "interrupt-grace", "After the first Ctrl-C, seconds to let requests in flight finish before cancelling them.")
	o.gate.register(fs)
	o.simx.register(fs, "sim-", false)
}
