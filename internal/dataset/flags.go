package dataset

import "slices"

// Flag is one command-line flag of the datasets, described here so that a
// dataset's flags are defined with the dataset: the command line registers
// every Flag (cli/serveflags.go does it generically) and a dataset's Spec
// lists the ones it reads.
type Flag struct {
	// Name is the flag without "--".
	Name string
	// Help is the flag's help text.
	Help string
	// Field returns the field of o the flag sets: *int, *float64, *string,
	// *bool, **int (a value that defaults to None) or *RangeRatio (with
	// Parse). nil
	// marks a flag of a dataset gobench does not have yet: the command
	// line registers it with Kind and Default and refuses it when given.
	Field func(o *Options) any
	// Choices limits a string flag's values.
	Choices []string
	// Kind ("int", "float", "string", "bool") and Default (vLLM's, as
	// text) describe a flag without a Field; Default is also the text of
	// a flag with Parse when it is not given.
	Kind, Default string
	// Parse, when set, reads the flag's text into its Field once the
	// dataset is known (ParseFlagTexts): the command line keeps the text,
	// because only the datasets that read the flag refuse a malformed one.
	Parse func(o *Options, text string) error
}

// Pending reports whether the flag belongs to a dataset gobench does not
// have yet.
func (f *Flag) Pending() bool { return f.Field == nil }

// flags lists every dataset flag in vLLM's order
// (vllm/benchmarks/datasets/datasets.py@11dfa3169 add_dataset_parser).
var flags = []Flag{
	{Name: "dataset-name", Choices: Names(), Field: func(o *Options) any { return &o.Name },
		Help: "Dataset: every one of vLLM's: random, random-mm, random-rerank, custom (JSONL with a prompt per line), custom_image, custom_mm, custom_audio (JSONL of prompts and WAV files, for openai-audio), sharegpt, sonnet, prefix_repetition, burstgpt, spec_bench, speed_bench, timed_trace and hf (vLLM's Hugging Face datasets, local or from the Hub)."},
	{Name: "dataset-path", Field: func(o *Options) any { return &o.Path },
		Help: "Dataset file (sharegpt: JSON list; custom, spec_bench, timed_trace: .jsonl; burstgpt: CSV; sonnet: text, vLLM's sonnet.txt built in; speed_bench: a directory; hf: a Parquet, JSON Lines, JSON or CSV file, a directory in the Hub's layout, or a Hub dataset id)."},
	{Name: "no-oversample", Field: func(o *Options) any { return &o.NoOversample },
		Help: "Do not repeat samples to reach --num-prompts when the file has fewer."},
	{Name: "disable-shuffle", Field: func(o *Options) any { return &o.DisableShuffle },
		Help: "Keep the file's order instead of shuffling with --seed."},
	{Name: "skip-chat-template", Field: func(o *Options) any { return &o.SkipChatTemplate },
		Help: "Send custom prompts as they are, without the tokenizer's chat template."},
	{Name: "enable-multimodal-chat", Field: func(o *Options) any { return &o.EnableMultimodalChat },
		Help: "random-mm, custom_image, sharegpt: send the prompt and its media as one prebuilt chat message (vLLM's multimodal chat transformation)."},
	{Name: "no-stream", Field: func(o *Options) any { return &o.NoStream },
		Help: "hf: load the whole dataset and shuffle it at once (the datasets library's Dataset.shuffle) instead of its streaming shuffle buffer."},
	{Name: "random-input-len", Field: func(o *Options) any { return &o.RandomInputLen },
		Help: "Random dataset: input tokens per request (special tokens the tokenizer adds are subtracted)."},
	{Name: "random-output-len", Field: func(o *Options) any { return &o.RandomOutputLen },
		Help: "Random dataset: output tokens per request."},
	{Name: "random-range-ratio", Field: func(o *Options) any { return &o.RandomRangeRatio }, Parse: parseRangeRatioFlag, Default: "0.0",
		Help: `Random dataset: lengths are drawn uniformly from [len·(1-r), len·(1+r)]; a float or '{"input": r1, "output": r2}', each in [0, 1).`},
	{Name: "random-prefix-len", Field: func(o *Options) any { return &o.RandomPrefixLen },
		Help: "Random dataset: tokens of a random prefix shared by every prompt."},
	{Name: "random-batch-size", Field: func(o *Options) any { return &o.RandomBatchSize },
		Help: "Random dataset: prompts per request, sent as a list (embedding backends); random-rerank: documents per query."},
	{Name: "no-reranker", Field: func(o *Options) any { return &o.NoReranker },
		Help: "random-rerank for a model that is not a native reranker: no separator token; the query counts as one of --num-prompts and of each batch."},
	{Name: "prompt-token-ids", Field: func(o *Options) any { return &o.PromptTokenIDs },
		Help: "Random dataset: send each prompt's token ids instead of its text (completions backends), so the server skips tokenization (vLLM's Rust client)."},
	{Name: "custom-output-len", Field: func(o *Options) any { return &o.CustomOutputLen },
		Help: "Custom and custom_audio datasets: output tokens per request; -1 takes each line's output_tokens."},
	{Name: "custom-ensure-client-side-data", Field: func(o *Options) any { return &o.CustomEnsureClientSideData },
		Help: "custom_image: read the local images a line references and send them as PNG data URLs instead of file:// references (http(s) images are refused)."},
	{Name: "sharegpt-output-len", Field: func(o *Options) any { return &o.SharegptOutputLen },
		Help: "ShareGPT: output tokens per request instead of each answer's length."},
	{Name: "spec-bench-output-len", Field: func(o *Options) any { return &o.SpecBenchOutputLen },
		Help: "spec_bench: output tokens per request."},
	{Name: "spec-bench-category", Field: func(o *Options) any { return &o.SpecBenchCategory },
		Help: "spec_bench: only the questions of this category (default: all)."},
	{Name: "sonnet-input-len", Field: func(o *Options) any { return &o.SonnetInputLen },
		Help: "Sonnet: the most tokens of a chat-formatted prompt."},
	{Name: "sonnet-output-len", Field: func(o *Options) any { return &o.SonnetOutputLen },
		Help: "Sonnet: output tokens per request."},
	{Name: "sonnet-prefix-len", Field: func(o *Options) any { return &o.SonnetPrefixLen },
		Help: "Sonnet: tokens of the poem's opening lines shared by every prompt."},
	{Name: "timed-trace-chunk-hash-size", Field: func(o *Options) any { return &o.TimedTraceChunkHashSize },
		Help: "timed_trace: tokens each hash id stands for (Moonshot's traces: 512, Qwen/Alibaba's: 16)."},
	{Name: "timed-trace-sec-multiplier", Field: func(o *Options) any { return &o.TimedTraceSecMultiplier },
		Help: "timed_trace: multiplies the timestamps into seconds (0.001 for milliseconds)."},
	{Name: "timed-trace-label-timestamp", Field: func(o *Options) any { return &o.TimedTraceLabelTimestamp },
		Help: "timed_trace: the trace's field holding the arrival time."},
	{Name: "timed-trace-label-input-length", Field: func(o *Options) any { return &o.TimedTraceLabelInputLength },
		Help: "timed_trace: the trace's field holding the input length."},
	{Name: "timed-trace-label-output-length", Field: func(o *Options) any { return &o.TimedTraceLabelOutputLength },
		Help: "timed_trace: the trace's field holding the output length."},
	{Name: "timed-trace-label-hash-ids", Field: func(o *Options) any { return &o.TimedTraceLabelHashIDs },
		Help: "timed_trace: the trace's field holding the prompt's block hash ids."},
	{Name: "self-timed", Field: func(o *Options) any { return &o.SelfTimed },
		Help: "Send each request at its trace timestamp instead of --request-rate (the default for timed_trace)."},
	{Name: "no-self-timed", Field: func(o *Options) any { return &o.NoSelfTimed },
		Help: "timed_trace: ignore the timestamps and use --request-rate and --burstiness."},
	{Name: "blazedit-min-distance", Field: func(o *Options) any { return &o.BlazeditMinDistance },
		Help: "hf Blazedit: skip rows whose normalised edit distance is below this."},
	{Name: "blazedit-max-distance", Field: func(o *Options) any { return &o.BlazeditMaxDistance },
		Help: "hf Blazedit: skip rows whose normalised edit distance is above this."},
	{Name: "asr-max-audio-len-sec", Field: func(o *Options) any { return &o.ASRMaxAudioLenSec },
		Help: "hf ASR: skip clips longer than this many seconds."},
	{Name: "asr-min-audio-len-sec", Field: func(o *Options) any { return &o.ASRMinAudioLenSec },
		Help: "hf ASR: skip clips shorter than this many seconds."},
	{Name: "random-mm-base-items-per-request", Field: func(o *Options) any { return &o.RandomMMBaseItemsPerRequest },
		Help: "random-mm: media items per request, n; the count is drawn from [floor(n·(1-r)), ceil(n·(1+r))]."},
	{Name: "random-mm-num-mm-items-range-ratio", Field: func(o *Options) any { return &o.RandomMMNumMMItemsRangeRatio },
		Help: "random-mm: r in [0, 1] for the items per request (0: always n)."},
	{Name: "random-mm-limit-mm-per-prompt", Field: func(o *Options) any { return &o.RandomMMLimitMMPerPrompt },
		Help: `random-mm: most items per request of each modality, JSON (e.g. '{"image": 3, "video": 0}').`},
	{Name: "random-mm-bucket-config", Field: func(o *Options) any { return &o.RandomMMBucketConfig },
		Help: "random-mm: {(height, width, frames): probability, ...}; frames 1 is an image, more a video."},
	{Name: "hf-subset", Field: func(o *Options) any { return &o.HFSubset },
		Help: "hf: the dataset's subset (config): a subdirectory of a local --dataset-path."},
	{Name: "hf-split", Field: func(o *Options) any { return &o.HFSplit },
		Help: "hf: the split (train, validation, test, ...), chosen by the data files' names; default: the class's."},
	{Name: "hf-name", Field: func(o *Options) any { return &o.HFName },
		Help: "hf: the Hub id that picks vLLM's dataset class when --dataset-path is a local copy."},
	{Name: "hf-output-len", Field: func(o *Options) any { return &o.HFOutputLen },
		Help: "hf: output tokens per request instead of the class's default (or each row's reference length)."},
	{Name: "prefix-repetition-prefix-len", Field: func(o *Options) any { return &o.PrefixRepetitionPrefixLen },
		Help: "prefix_repetition: tokens of each shared prefix."},
	{Name: "prefix-repetition-suffix-len", Field: func(o *Options) any { return &o.PrefixRepetitionSuffixLen },
		Help: "prefix_repetition: tokens of the random suffix after the prefix."},
	{Name: "prefix-repetition-num-prefixes", Field: func(o *Options) any { return &o.PrefixRepetitionNumPrefixes },
		Help: "prefix_repetition: distinct prefixes; each gets --num-prompts // this many requests."},
	{Name: "prefix-repetition-output-len", Field: func(o *Options) any { return &o.PrefixRepetitionOutputLen },
		Help: "prefix_repetition: output tokens per request."},
	{Name: "speed-bench-dataset-subset", Field: func(o *Options) any { return &o.SpeedBenchSubset },
		Choices: []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"},
		Help:    "speed_bench: the subset, read from SUBSET.jsonl in the --dataset-path directory."},
	{Name: "speed-bench-output-len", Field: func(o *Options) any { return &o.SpeedBenchOutputLen },
		Help: "speed_bench: output tokens per request."},
	{Name: "speed-bench-category", Field: func(o *Options) any { return &o.SpeedBenchCategory },
		Help: "speed_bench: only the rows of this category (default: all)."},
}

// Flags returns every dataset flag, in vLLM's order.
func Flags() []Flag { return slices.Clone(flags) }

// LookupFlag returns the dataset flag name (without "--"). It copies one
// Flag, where a search of Flags copies them all: the command line asks
// for each of its flags while it starts, and those copies were about a
// megabyte of memory touched for the first time then.
func LookupFlag(name string) (Flag, bool) {
	for i := range flags {
		if flags[i].Name == name {
			return flags[i], true
		}
	}
	return Flag{}, false
}
