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
	// *bool, **int (a value that defaults to None) or *RangeRatio. nil
	// marks a flag of a dataset gobench does not have yet: the command
	// line registers it with Kind and Default and refuses it when given.
	Field func(o *Options) any
	// Choices limits a string flag's values.
	Choices []string
	// Kind ("int", "float", "string", "bool") and Default (vLLM's, as
	// text) describe a flag without a Field.
	Kind, Default string
}

// Pending reports whether the flag belongs to a dataset gobench does not
// have yet.
func (f *Flag) Pending() bool { return f.Field == nil }

// pending is a Flag of a dataset gobench does not have yet.
func pending(name, kind, def, help string) Flag {
	return Flag{Name: name, Kind: kind, Default: def, Help: help}
}

// flags lists every dataset flag in vLLM's order
// (vllm/benchmarks/datasets/datasets.py@11dfa3169 add_dataset_parser).
var flags = []Flag{
	{Name: "dataset-name", Choices: Names(), Field: func(o *Options) any { return &o.Name },
		Help: "Dataset: random, custom (JSONL with a prompt per line), sharegpt, sonnet, prefix_repetition and hf (local copies of vLLM's Hugging Face text datasets) are supported; vLLM's others are refused for now."},
	{Name: "dataset-path", Field: func(o *Options) any { return &o.Path },
		Help: "Dataset file (sharegpt: JSON list; custom: .jsonl; sonnet: text, vLLM's sonnet.txt built in; hf: a Parquet, JSON Lines, JSON or CSV file, a directory in the Hub's layout, or a Hub dataset id)."},
	{Name: "no-oversample", Field: func(o *Options) any { return &o.NoOversample },
		Help: "Do not repeat samples to reach --num-prompts when the file has fewer."},
	{Name: "disable-shuffle", Field: func(o *Options) any { return &o.DisableShuffle },
		Help: "Keep the file's order instead of shuffling with --seed."},
	{Name: "skip-chat-template", Field: func(o *Options) any { return &o.SkipChatTemplate },
		Help: "Send custom prompts as they are, without the tokenizer's chat template."},
	{Name: "no-stream", Field: func(o *Options) any { return &o.NoStream },
		Help: "hf: load the whole dataset and shuffle it at once (the datasets library's Dataset.shuffle) instead of its streaming shuffle buffer."},
	{Name: "random-input-len", Field: func(o *Options) any { return &o.RandomInputLen },
		Help: "Random dataset: input tokens per request (special tokens the tokenizer adds are subtracted)."},
	{Name: "random-output-len", Field: func(o *Options) any { return &o.RandomOutputLen },
		Help: "Random dataset: output tokens per request."},
	{Name: "random-range-ratio", Field: func(o *Options) any { return &o.RandomRangeRatio },
		Help: `Random dataset: lengths are drawn uniformly from [len·(1-r), len·(1+r)]; a float or '{"input": r1, "output": r2}', each in [0, 1).`},
	{Name: "random-prefix-len", Field: func(o *Options) any { return &o.RandomPrefixLen },
		Help: "Random dataset: tokens of a random prefix shared by every prompt."},
	{Name: "random-batch-size", Field: func(o *Options) any { return &o.RandomBatchSize },
		Help: "Random dataset: prompts per request (embedding backends, not supported yet)."},
	pending("no-reranker", "bool", "", "random-rerank for non-native rerankers (not supported yet)."),
	{Name: "custom-output-len", Field: func(o *Options) any { return &o.CustomOutputLen },
		Help: "Custom dataset: output tokens per request; -1 takes each line's output_tokens."},
	pending("custom-ensure-client-side-data", "bool", "", "custom_image: send media as data (not supported yet)."),
	{Name: "sharegpt-output-len", Field: func(o *Options) any { return &o.SharegptOutputLen },
		Help: "ShareGPT: output tokens per request instead of each answer's length."},
	pending("spec-bench-output-len", "int", "256", "spec_bench dataset option (not supported yet)."),
	pending("spec-bench-category", "string", "", "spec_bench dataset option (not supported yet)."),
	{Name: "sonnet-input-len", Field: func(o *Options) any { return &o.SonnetInputLen },
		Help: "Sonnet: the most tokens of a chat-formatted prompt."},
	{Name: "sonnet-output-len", Field: func(o *Options) any { return &o.SonnetOutputLen },
		Help: "Sonnet: output tokens per request."},
	{Name: "sonnet-prefix-len", Field: func(o *Options) any { return &o.SonnetPrefixLen },
		Help: "Sonnet: tokens of the poem's opening lines shared by every prompt."},
	pending("timed-trace-chunk-hash-size", "int", "16", "timed_trace dataset option (not supported yet)."),
	pending("timed-trace-sec-multiplier", "float", "1", "timed_trace dataset option (not supported yet)."),
	pending("timed-trace-label-timestamp", "string", "timestamp", "timed_trace dataset option (not supported yet)."),
	pending("timed-trace-label-input-length", "string", "input_length", "timed_trace dataset option (not supported yet)."),
	pending("timed-trace-label-output-length", "string", "output_length", "timed_trace dataset option (not supported yet)."),
	pending("timed-trace-label-hash-ids", "string", "hash_ids", "timed_trace dataset option (not supported yet)."),
	pending("self-timed", "bool", "", "Use the trace's timestamps (timed_trace dataset, not supported yet)."),
	pending("no-self-timed", "bool", "", "Do not use the trace's timestamps."),
	{Name: "blazedit-min-distance", Field: func(o *Options) any { return &o.BlazeditMinDistance },
		Help: "hf Blazedit: skip rows whose normalised edit distance is below this."},
	{Name: "blazedit-max-distance", Field: func(o *Options) any { return &o.BlazeditMaxDistance },
		Help: "hf Blazedit: skip rows whose normalised edit distance is above this."},
	{Name: "asr-max-audio-len-sec", Field: func(o *Options) any { return &o.ASRMaxAudioLenSec },
		Help: "hf ASR: skip clips longer than this many seconds."},
	{Name: "asr-min-audio-len-sec", Field: func(o *Options) any { return &o.ASRMinAudioLenSec },
		Help: "hf ASR: skip clips shorter than this many seconds."},
	pending("random-mm-base-items-per-request", "int", "1", "random-mm dataset option (not supported yet)."),
	pending("random-mm-num-mm-items-range-ratio", "float", "0", "random-mm dataset option (not supported yet)."),
	pending("random-mm-limit-mm-per-prompt", "string", `{"image": 255, "video": 1}`, "random-mm dataset option (not supported yet)."),
	pending("random-mm-bucket-config", "string", "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}", "random-mm dataset option (not supported yet)."),
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
	{Name: "speed-bench-dataset-subset", Kind: "string", Default: "qualitative",
		Choices: []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"},
		Help:    "speed_bench dataset option (not supported yet)."},
	pending("speed-bench-output-len", "int", "4096", "speed_bench dataset option (not supported yet)."),
	pending("speed-bench-category", "string", "", "speed_bench dataset option (not supported yet)."),
}

// Flags returns every dataset flag, in vLLM's order.
func Flags() []Flag { return slices.Clone(flags) }
