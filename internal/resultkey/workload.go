package resultkey

// Keys of the gobench_workload object (GobenchWorkload), in its order
// (internal/report/doc.go describes each). They are vLLM's argument names
// (vars(args)) where vLLM has the setting, so that a reader knows them.
// The dataset's own flags (dataset.Spec.Flags, e.g. random_input_len) come
// between WorkloadDatasetPath and WorkloadSeed, under their argument
// names.
const (
	// WorkloadDatasetName is --dataset-name.
	WorkloadDatasetName = "dataset_name"
	// WorkloadDatasetPath is --dataset-path, or null.
	WorkloadDatasetPath = "dataset_path"
	// WorkloadSeed is --seed.
	WorkloadSeed = "seed"
	// WorkloadScheduleSeed is the seed of the arrivals when it is not
	// --seed's (runs after the first of serve --num-runs); absent
	// otherwise, so it is not among WorkloadKeys.
	WorkloadScheduleSeed = "schedule_seed"
	// WorkloadPrefixCache says how a run of a set (serve --num-runs) or
	// a sweep point was kept from the prefix cache of the runs before it:
	// PrefixCacheReset, PrefixCacheFreshPrompts or PrefixCacheWarm;
	// absent for a single run without --reset-prefix-cache.
	WorkloadPrefixCache = "prefix_cache"
	// WorkloadDuration is --duration in seconds; absent without it.
	WorkloadDuration = "duration"
	// WorkloadWarmupDuration is --warmup-duration in seconds, and
	// WorkloadWarmupRequests the requests released within it (sent, left
	// out of every figure); both absent without it.
	WorkloadWarmupDuration = "warmup_duration"
	WorkloadWarmupRequests = "warmup_requests"
	// WorkloadIgnoreEOS says whether the requests carried ignore_eos
	// (--ignore-eos, or forced by the dataset).
	WorkloadIgnoreEOS = "ignore_eos"
	// WorkloadSamplingParams holds the sampling flags given (top_p,
	// temperature, ...), {} for none.
	WorkloadSamplingParams = "sampling_params"
	// WorkloadGoodput holds the --goodput SLOs in ms, or null.
	WorkloadGoodput = "goodput"
	// WorkloadPercentileMetrics is --percentile-metrics as the run used
	// it ("ttft,tpot,itl").
	WorkloadPercentileMetrics = "percentile_metrics"
	// WorkloadMetricPercentiles is --metric-percentiles as the run used
	// it ("50,90,99").
	WorkloadMetricPercentiles = "metric_percentiles"
	// WorkloadTokenizerMode is --tokenizer-mode.
	WorkloadTokenizerMode = "tokenizer_mode"
	// WorkloadTokenizerSource says where the tokenizer (tokenizer_id) was
	// found: TokenizerBuiltin, TokenizerHuggingFace, TokenizerServer, or
	// null without one.
	WorkloadTokenizerSource = "tokenizer_source"
	// WorkloadCommand is the command line, secrets redacted.
	WorkloadCommand = "command"
)

// Values of WorkloadTokenizerSource.
const (
	// TokenizerBuiltin is gobench's built-in tokenizer.
	TokenizerBuiltin = "builtin"
	// TokenizerHuggingFace is a tokenizer.json: a local file or folder,
	// the Hugging Face cache or a download from the Hub.
	TokenizerHuggingFace = "huggingface"
	// TokenizerServer is the server's /tokenize and /detokenize.
	TokenizerServer = "server"
)

// Values of WorkloadPrefixCache.
const (
	// PrefixCacheReset: the server's prefix cache was reset (POST
	// /reset_prefix_cache) before the run.
	PrefixCacheReset = "reset"
	// PrefixCacheFreshPrompts: the server could not reset it, so the run
	// drew prompts of its own (its seed is the dataset's).
	PrefixCacheFreshPrompts = "fresh_prompts"
	// PrefixCacheWarm: --warm-cache, the same prompts as the runs before,
	// the cache left as they left it.
	PrefixCacheWarm = "warm"
)

// WorkloadKeys returns the keys every gobench_workload object has, in
// order; the dataset's flags, which vary with the dataset, are not among
// them.
func WorkloadKeys() []string {
	return []string{
		WorkloadDatasetName, WorkloadDatasetPath, WorkloadSeed, WorkloadIgnoreEOS, WorkloadSamplingParams,
		WorkloadGoodput, WorkloadPercentileMetrics, WorkloadMetricPercentiles, WorkloadTokenizerMode,
		WorkloadTokenizerSource, WorkloadCommand,
	}
}
