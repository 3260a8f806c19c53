// Package dataset builds the list of requests a run sends, as vLLM's
// benchmark datasets do (vllm/benchmarks/datasets/datasets.py@11dfa3169).
// Given the same tokenizer and seed, the prompts, their lengths, their order
// and their request ids equal vLLM's: the random dataset draws from a port
// of NumPy's default_rng (package numpyrand), prefix_repetition from its
// port of NumPy's legacy global generator, and the file datasets shuffle
// and oversample with a port of CPython's random (package pyrandom).
//
// Every dataset is described once, by its Spec in table.go: what it needs
// (a file, a tokenizer, the vocabulary), what the run must do for it
// (re-align prompts, force ignore_eos), its flags and which of them
// --input-len and --output-len set, the checks of their values, what the
// run may assume of its prompts (a shared prefix), its conversations and
// its loader. The run and the command line ask the Spec and name no
// dataset. vLLM's datasets that gobench does not have yet have a Spec
// without a loader and are refused with exitcode.ErrNotSupported.
package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/pyrandom"
	"github.com/gobench/gobench/internal/tokenizer"
)

// Sample is one request to send: vLLM's SampleRequest.
type Sample struct {
	// Prompt is the prompt text.
	Prompt string
	// PromptLen is the prompt's length in tokens, as the dataset counts it.
	PromptLen int
	// ExpectedOutputLen is the number of output tokens to ask for.
	ExpectedOutputLen int
	// RequestID is sent as x-request-id; empty means none.
	RequestID string
	// Prompts, when not nil, is a prompt of several texts (vLLM's prompt
	// as a list[str]): batched embedding inputs (--random-batch-size), or
	// a rerank query followed by its documents. Prompt is then empty.
	Prompts []string
	// PromptObject, when not nil, is a prompt vLLM passes as a dict
	// (vllm-pooling merges its fields into the payload).
	PromptObject *pyjson.Object
	// MultiModal is the request's media as chat content parts, in order
	// (vLLM's multi_modal_data, e.g. {"type": "image_url", "image_url":
	// {"url": ...}}); nil for text.
	MultiModal []*pyjson.Object
	// Audio is the request's clip for openai-audio; nil otherwise.
	Audio *Audio
	// Timestamp, when not nil, is the trace's arrival time of the request
	// in seconds (timed_trace, used with --self-timed).
	Timestamp *float64
	// PromptTokenIDs, when not nil, are the prompt's token ids, sent
	// instead of its text with --prompt-token-ids.
	PromptTokenIDs []int
	// PromptParts, when not nil, is a prompt vLLM passes as a list of
	// dicts: chat messages ({"role", "content"}, --enable-multimodal-chat)
	// or content parts ({"type": "text"|"image_url", ...}, custom_image's
	// interleaved "content"); Prompt is then empty.
	PromptParts []*pyjson.Object
}

// Audio is one audio clip to upload: the WAV file's bytes and its length
// in seconds (vLLM's input_audio_duration, which RTFx divides).
type Audio struct {
	// WAV is the file as sent (RIFF/WAVE).
	WAV []byte
	// Duration is the clip's length in seconds.
	Duration float64
}

// Options are the dataset flags, after vLLM's mapping of --input-len and
// --output-len onto the dataset-specific flags (serve.py@11dfa3169
// main_async). NumPrompts, Seed, RequestIDPrefix and Backend are the
// run's, copied in when the run is planned.
type Options struct {
	Name            string
	Path            string
	NumPrompts      int
	Seed            int64
	RequestIDPrefix string
	// Backend is the run's --backend: the sonnet dataset sends its prompts
	// chat-formatted except to openai-chat.
	Backend        string
	NoOversample   bool
	DisableShuffle bool
	// SkipChatTemplate keeps custom prompts as they are instead of applying
	// the tokenizer's chat template.
	SkipChatTemplate bool
	// ChatTemplateKwargs are --chat-template-kwargs: variables given to
	// the chat template where a dataset applies it on the client (custom),
	// e.g. {"enable_thinking": false}; nil for none.
	ChatTemplateKwargs map[string]any

	RandomInputLen  int
	RandomOutputLen int
	RandomPrefixLen int
	// RandomRangeRatio is --random-range-ratio, parsed (ParseRangeRatio).
	RandomRangeRatio RangeRatio
	// RandomBatchSize is --random-batch-size: the random dataset's prompts
	// per request (a list prompt, for the embedding backends), the
	// random-rerank dataset's documents per query.
	RandomBatchSize int
	// NoReranker is --no-reranker: random-rerank for a model that is not a
	// native reranker (no separator token; the first document of each
	// batch is the query's).
	NoReranker bool
	// PromptTokenIDs is --prompt-token-ids (vLLM's Rust client): the
	// random dataset's requests carry their token ids, which the
	// completions backends send instead of the text.
	PromptTokenIDs bool

	// CustomOutputLen is --custom-output-len; -1 takes each row's
	// output_tokens.
	CustomOutputLen int
	// SharegptOutputLen is --sharegpt-output-len; nil uses each
	// conversation's completion length.
	SharegptOutputLen *int

	// PrefixRepetitionPrefixLen, PrefixRepetitionSuffixLen,
	// PrefixRepetitionNumPrefixes and PrefixRepetitionOutputLen are the
	// --prefix-repetition-* flags.
	PrefixRepetitionPrefixLen   int
	PrefixRepetitionSuffixLen   int
	PrefixRepetitionNumPrefixes int
	PrefixRepetitionOutputLen   int

	// SonnetInputLen, SonnetOutputLen and SonnetPrefixLen are the
	// --sonnet-* flags.
	SonnetInputLen  int
	SonnetOutputLen int
	SonnetPrefixLen int

	// SpecBenchOutputLen and SpecBenchCategory are the --spec-bench-*
	// flags ("" takes every category).
	SpecBenchOutputLen int
	SpecBenchCategory  string
	// SpeedBenchSubset, SpeedBenchOutputLen and SpeedBenchCategory are the
	// --speed-bench-* flags.
	SpeedBenchSubset    string
	SpeedBenchOutputLen int
	SpeedBenchCategory  string

	// TimedTraceChunkHashSize, TimedTraceSecMultiplier and the
	// TimedTraceLabel* field names are the --timed-trace-* flags.
	TimedTraceChunkHashSize     int
	TimedTraceSecMultiplier     float64
	TimedTraceLabelTimestamp    string
	TimedTraceLabelInputLength  string
	TimedTraceLabelOutputLength string
	TimedTraceLabelHashIDs      string
	// SelfTimed and NoSelfTimed are --self-timed and --no-self-timed
	// (vLLM's BooleanOptionalAction, None when neither is given); see
	// SelfTimedArrivals.
	SelfTimed, NoSelfTimed bool
	// RandomMMBaseItemsPerRequest, RandomMMNumMMItemsRangeRatio,
	// RandomMMLimitMMPerPrompt (JSON) and RandomMMBucketConfig (a Python
	// dict literal) are the --random-mm-* flags, parsed when the dataset
	// is built (parseMMLimits, parseMMBuckets).
	RandomMMBaseItemsPerRequest  int
	RandomMMNumMMItemsRangeRatio float64
	RandomMMLimitMMPerPrompt     string
	RandomMMBucketConfig         string

	// CustomEnsureClientSideData: custom_image reads the images it
	// references and sends them as data URLs instead of references.
	CustomEnsureClientSideData bool
	// EnableMultimodalChat: the multimodal datasets send their prompt and
	// media as a prebuilt chat message (vLLM's
	// apply_multimodal_chat_transformation) instead of a text prompt with
	// media beside it.
	EnableMultimodalChat bool
	// HFSubset, HFSplit and HFName are --hf-subset, --hf-split and
	// --hf-name ("" for None); HFOutputLen is --hf-output-len (nil: each
	// class's default); NoStream is --no-stream (the datasets library's
	// Dataset.shuffle instead of the streaming shuffle).
	HFSubset    string
	HFSplit     string
	HFName      string
	HFOutputLen *int
	NoStream    bool
	// BlazeditMinDistance and BlazeditMaxDistance bound the Blazedit
	// rows' norm_distance.
	BlazeditMinDistance float64
	BlazeditMaxDistance float64
	// ASRMinAudioLenSec and ASRMaxAudioLenSec bound the ASR clips'
	// durations.
	ASRMinAudioLenSec float64
	ASRMaxAudioLenSec float64

	// Hub reaches the Hugging Face Hub for the hf dataset when
	// --dataset-path is a dataset id (the run fills it); nil: local
	// copies only.
	Hub *Hub
}

// DefaultOptions are vLLM's defaults of the dataset flags
// (vllm/benchmarks/datasets/datasets.py@11dfa3169 add_dataset_parser),
// --num-prompts (1000, DEFAULT_NUM_PROMPTS) among them.
func DefaultOptions() Options {
	return Options{Name: "random", NumPrompts: 1000, RandomInputLen: 1024, RandomOutputLen: 128, RandomBatchSize: 1, CustomOutputLen: 256,
		PrefixRepetitionPrefixLen: 256, PrefixRepetitionSuffixLen: 256, PrefixRepetitionNumPrefixes: 10, PrefixRepetitionOutputLen: 128,
		SonnetInputLen: 550, SonnetOutputLen: 150, SonnetPrefixLen: 200,
		SpecBenchOutputLen: 256, SpeedBenchSubset: "qualitative", SpeedBenchOutputLen: 4096,
		TimedTraceChunkHashSize: 16, TimedTraceSecMultiplier: 1, TimedTraceLabelTimestamp: "timestamp",
		TimedTraceLabelInputLength: "input_length", TimedTraceLabelOutputLength: "output_length", TimedTraceLabelHashIDs: "hash_ids",
		RandomMMBaseItemsPerRequest: 1, RandomMMLimitMMPerPrompt: DefaultMMLimits, RandomMMBucketConfig: DefaultMMBuckets,
		BlazeditMaxDistance: 1, ASRMaxAudioLenSec: math.Inf(1)}
}

// Bounds of the counts and lengths the dataset flags take: far beyond any
// real run, and small enough that what they ask for (a slice per request,
// a prompt of that many tokens) can be allocated; past them a run would
// die of a panic or the kernel's OOM killer instead of saying why.
const (
	// MaxSamples bounds --num-prompts (and --num-warmups, copies of the
	// first request).
	MaxSamples = 100_000_000
	// MaxTokens bounds the token lengths (--random-input-len, ...):
	// 16,777,216 tokens, above the longest context of any model.
	MaxTokens = 1 << 24
)

// Validate checks what can be checked before anything is loaded: that the
// dataset exists and is supported, that --dataset-path is given or absent
// as it must be, the values of the dataset's own flags (its Spec.Check),
// the flags of other datasets that vLLM refuses (their
// Spec.CheckElsewhere; any other flag of another dataset is ignored, as in
// vLLM), and the number of prompts. The run calls it before the server is
// contacted.
func Validate(opts Options) error {
	spec, err := Lookup(opts.Name)
	if err != nil {
		return err
	}
	switch {
	case spec.Path == PathForbidden && opts.Path != "":
		return pathForbidden(opts)
	case !spec.Supported():
		return notSupported(opts.Name)
	case spec.Path == PathRequired && opts.Path == "":
		return fmt.Errorf("--dataset-name %s needs --dataset-path", opts.Name)
	}
	if spec.Check != nil {
		if err := spec.Check(opts); err != nil {
			return err
		}
	}
	for i := range specs {
		if other := &specs[i]; other != spec && other.CheckElsewhere != nil {
			if err := other.CheckElsewhere(opts); err != nil {
				return err
			}
		}
	}
	return validateNumPrompts(spec, opts.NumPrompts)
}

// validateNumPrompts checks --num-prompts: at least one request, except
// for the datasets where vLLM reads 0 or less as "every sample"
// (Spec.NumPromptsAll), and at most MaxSamples.
func validateNumPrompts(spec *Spec, n int) error {
	switch {
	case n > MaxSamples:
		return fmt.Errorf("argument --num-prompts: must be at most %d (got %d)", MaxSamples, n)
	case n < 1 && !spec.NumPromptsAll:
		return fmt.Errorf("argument --num-prompts: must be at least 1 for the %s dataset (got %d)", spec.Name, n)
	}
	return nil
}

// Load builds the samples with the dataset's loader. tok may be nil
// (--skip-tokenizer-init) for the datasets that allow it. Warnings vLLM
// logs go to warn.
//
// g holds the global generators, which Load leaves where vLLM leaves them
// (see Globals); nil stands for generators just seeded with opts.Seed.
func Load(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	spec, g, warn, err := prepare(opts, tok, g, warn)
	if err != nil {
		return nil, err
	}
	return spec.Load(opts, tok, g, warn)
}

// prepare is what every way of building a dataset does first: the
// defaults of g and warn, Validate, and the tokenizer check of the
// dataset's Spec.
func prepare(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) (*Spec, *Globals, io.Writer, error) {
	if warn == nil {
		warn = io.Discard
	}
	if g == nil {
		g = NewGlobals(opts.Seed)
	}
	if err := Validate(opts); err != nil {
		return nil, nil, nil, err
	}
	spec, _ := Lookup(opts.Name) // Validate found it
	if err := spec.CheckTokenizer(tok != nil); err != nil {
		return nil, nil, nil, err
	}
	return spec, g, warn, nil
}

// Globals are the process-wide generators vLLM seeds with --seed in
// main_async (random.seed, np.random.seed) and that some of its datasets
// reseed and draw from (vllm/benchmarks/datasets/datasets.py@11dfa3169).
// The run keeps drawing from both after the dataset, so a loader leaves
// them exactly where vLLM's dataset leaves them.
type Globals struct {
	// Random plays CPython's global random: the custom and sharegpt
	// loaders reseed it with the seed and shuffle their entries (reseed
	// only, with --disable-shuffle), oversampling reseeds it and draws one
	// choice per missing sample, prefix_repetition reseeds it and shuffles,
	// the random dataset leaves it alone. The run's random LoRA assignment
	// (serve.py@11dfa3169 benchmark: random.choice per request) continues
	// it.
	Random *pyrandom.Random
	// NumPy plays NumPy's legacy global generator: prefix_repetition
	// reseeds it and draws every token from it (np.random.randint); the
	// run's arrival gammas (serve.py@11dfa3169 get_request) continue it.
	NumPy *numpyrand.Legacy
}

// NewGlobals returns the generators as main_async leaves them: both seeded
// with seed (NumPy takes it as an unsigned 32-bit value; the run checks the
// range before).
func NewGlobals(seed int64) *Globals {
	return &Globals{Random: pyrandom.New(seed), NumPy: numpyrand.NewLegacy(uint32(seed))}
}

// CheckTokenizer refuses a dataset that counts or draws tokens when the
// run has no tokenizer (--skip-tokenizer-init): vLLM would fail inside the
// dataset, on the tokenizer's None.
func (s *Spec) CheckTokenizer(haveTokenizer bool) error {
	if s.NeedsTokenizer && !haveTokenizer {
		return fmt.Errorf("the %s dataset needs a tokenizer: remove --skip-tokenizer-init", s.Name)
	}
	return nil
}

// pathForbidden is vLLM's message for a synthetic dataset given a file.
func pathForbidden(opts Options) error {
	return fmt.Errorf("Cannot use '%s' dataset with --dataset-path. Please specify the appropriate --dataset-name (e.g., 'sharegpt', 'custom', 'sonnet') for your dataset file: %s", opts.Name, opts.Path)
}

// oversample pads samples to n by drawing copies with CPython's
// random.choice after random.seed(seed) on the global generator, as vLLM's
// maybe_oversample_requests does; copies get ids continuing from the
// original count. It then rejects duplicate ids.
func oversample(samples []Sample, opts Options, global *pyrandom.Random, warn io.Writer) ([]Sample, error) {
	if opts.NoOversample {
		fmt.Fprintf(warn, "Skipping oversampling. Total samples: %d.\n", len(samples))
		return samples, nil
	}
	if len(samples) < opts.NumPrompts {
		if len(samples) == 0 {
			return nil, errors.New("no samples to oversample from: the dataset produced no valid request")
		}
		global.Seed(opts.Seed)
		orig := len(samples)
		for i := range opts.NumPrompts - orig {
			s := samples[global.Choice(orig)]
			s.RequestID = fmt.Sprintf("%s%d", opts.RequestIDPrefix, orig+i)
			samples = append(samples, s)
		}
		fmt.Fprintf(warn, "Oversampled requests to reach %d total samples.\n", opts.NumPrompts)
	}
	seen := make(map[string]bool, len(samples))
	for _, s := range samples {
		if seen[s.RequestID] {
			return nil, errors.New("Duplicate request_id found in the sampled requests. Please ensure that each request_id is unique.")
		}
		seen[s.RequestID] = true
	}
	return samples, nil
}

// shuffle reproduces the file loaders' random.seed(seed), then
// random.shuffle(list) unless --disable-shuffle, on the global generator.
func shuffle[T any](items []T, opts Options, global *pyrandom.Random) {
	global.Seed(opts.Seed)
	if opts.DisableShuffle {
		return
	}
	global.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
}
