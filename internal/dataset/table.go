package dataset

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// PathRule says what a dataset makes of --dataset-path.
type PathRule int

// The rules for --dataset-path.
const (
	// PathOptional: the dataset reads a file when one is given.
	PathOptional PathRule = iota
	// PathRequired: the dataset is a file; it fails without one.
	PathRequired
	// PathForbidden: the dataset is synthetic; vLLM refuses a file.
	PathForbidden
)

// IgnoreEOSRule says when vLLM forces "ignore_eos": true for a dataset
// (serve.py@11dfa3169 main_async), so that generation runs to the
// requested length.
type IgnoreEOSRule int

// The rules for ignore_eos.
const (
	// IgnoreEOSAsAsked sends ignore_eos only with --ignore-eos.
	IgnoreEOSAsAsked IgnoreEOSRule = iota
	// IgnoreEOSForSampling forces it for the backends that take sampling
	// parameters (vLLM's OPENAI_COMPATIBLE_BACKENDS).
	IgnoreEOSForSampling
	// IgnoreEOSAlways forces it for every backend.
	IgnoreEOSAlways
)

// Loader builds a dataset's samples. tok is nil with
// --skip-tokenizer-init; g holds the global generators, which the loader
// reseeds and draws from exactly as vLLM's dataset does (see Globals);
// warnings vLLM logs go to warn.
type Loader func(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error)

// Spec describes one --dataset-name: what it needs and how it is built.
// Everything that depends on which dataset a run uses asks its Spec, so a
// dataset is added by adding its entry to specs and its loader in a file of
// its own (see docs/architecture.md).
type Spec struct {
	// Name is the --dataset-name value.
	Name string
	// Path says whether --dataset-path is required, forbidden or optional.
	Path PathRule
	// NeedsTokenizer: the dataset counts or draws tokens, so it cannot run
	// with --skip-tokenizer-init.
	NeedsTokenizer bool
	// NeedsVocabulary: the dataset draws token ids from the vocabulary,
	// which a server-side tokenizer (vLLM's /tokenize) cannot give.
	NeedsVocabulary bool
	// RealignToServer: vLLM re-aligns the prompts to the server's
	// tokenizer before sending them (serve.py@009e6d4a
	// _align_prompts_to_server_tokenizer).
	RealignToServer bool
	// IgnoreEOS says when ignore_eos is forced on.
	IgnoreEOS IgnoreEOSRule
	// Flags are the command-line flags that belong to this dataset alone
	// (without "--").
	Flags []string
	// NumPromptsAll: --num-prompts 0 or less takes every sample, as vLLM's
	// CustomDataset does (it logs "num_requests is set to 0 or negative,
	// so using all available samples"); elsewhere it is refused.
	NumPromptsAll bool
	// InputLen and OutputLen name the flags of this dataset that vLLM's
	// --input-len and --output-len set ("" for none); ApplyLengths sets
	// them.
	InputLen, OutputLen string
	// Check, when set, checks the values of the dataset's own flags when
	// it runs (Validate calls it after the path and before the number of
	// prompts).
	Check func(opts Options) error
	// CheckElsewhere, when set, checks this dataset's flags when another
	// dataset runs: vLLM ignores them, except the few it refuses.
	CheckElsewhere func(opts Options) error
	// SharedPrefix, when set, says how many tokens of each prompt
	// (prompt) are shared with the others (shared), for a dataset whose
	// prompts are otherwise fresh random tokens: the run's warning of a
	// warm prefix cache and the diagnosis' expected hit rate rest on it.
	// nil: not known.
	SharedPrefix func(opts Options) (shared, prompt int)
	// Conversations, when set, builds --multi-turn conversations; nil: the
	// dataset makes none.
	Conversations ConversationLoader
	// DrawsTurns: the dataset draws each conversation's number of turns
	// between --multi-turn-min-turns and --multi-turn-max-turns, so the
	// run checks those bounds.
	DrawsTurns bool
	// Load builds the samples; nil means gobench does not have this dataset
	// yet, and asking for it fails with exitcode.ErrNotSupported.
	Load Loader
}

// ConversationLoader builds --num-prompts conversations (Spec.Conversations),
// with the arguments of a Loader and the multi-turn flags.
type ConversationLoader func(opts Options, mt MultiTurnOptions, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Conversation, error)

// Supported reports whether gobench can build the dataset.
func (s *Spec) Supported() bool { return s.Load != nil }

// Realign reports whether the run re-aligns the dataset's prompts to the
// server's tokenizer (RealignToServer): not batched prompts (lists, which
// vLLM's alignment cannot send to /tokenize) nor token ids (sent as they
// are, never re-tokenized).
func (s *Spec) Realign(opts Options) bool {
	return s.RealignToServer && opts.RandomBatchSize <= 1 && !opts.PromptTokenIDs
}

// specs lists every --dataset-name vLLM accepts, in vLLM's order
// (vllm/benchmarks/datasets/datasets.py@11dfa3169 add_dataset_parser).
var specs = []Spec{
	{Name: "sharegpt", Path: PathRequired, NeedsTokenizer: true, Flags: []string{"sharegpt-output-len"},
		OutputLen: "sharegpt-output-len", Check: checkShareGPT, Conversations: shareGPTConversations, Load: ShareGPT},
	{Name: "burstgpt", Path: PathRequired, NeedsTokenizer: true, NeedsVocabulary: true, Load: BurstGPT},
	{Name: "sonnet", Path: PathOptional, NeedsTokenizer: true, Flags: []string{"sonnet-input-len", "sonnet-output-len", "sonnet-prefix-len"},
		InputLen: "sonnet-input-len", OutputLen: "sonnet-output-len", Check: checkSonnet, Load: Sonnet},
	{Name: "random", Path: PathForbidden, NeedsTokenizer: true, NeedsVocabulary: true, RealignToServer: true,
		IgnoreEOS: IgnoreEOSForSampling,
		Flags: []string{"random-input-len", "random-output-len", "random-prefix-len", "random-range-ratio", "random-batch-size",
			"prompt-token-ids"},
		InputLen: "random-input-len", OutputLen: "random-output-len", Check: checkRandom, SharedPrefix: randomSharedPrefix,
		Conversations: syntheticConversations, DrawsTurns: true, Load: Random},
	{Name: "random-mm", Path: PathForbidden, NeedsTokenizer: true, NeedsVocabulary: true, IgnoreEOS: IgnoreEOSForSampling,
		Flags: []string{"random-mm-base-items-per-request", "random-mm-num-mm-items-range-ratio",
			"random-mm-limit-mm-per-prompt", "random-mm-bucket-config"},
		InputLen: "random-input-len", OutputLen: "random-output-len", Load: RandomMM},
	{Name: "random-rerank", Path: PathForbidden, NeedsTokenizer: true, NeedsVocabulary: true,
		Flags:    []string{"random-input-len", "random-range-ratio", "random-batch-size", "no-reranker"},
		InputLen: "random-input-len", Check: checkRandomRerank, Load: RandomRerank},
	{Name: "hf", Path: PathRequired, NeedsTokenizer: true, Flags: []string{"no-stream", "hf-subset", "hf-split", "hf-name", "hf-output-len",
		"blazedit-min-distance", "blazedit-max-distance", "asr-max-audio-len-sec", "asr-min-audio-len-sec"},
		OutputLen: "hf-output-len", Check: checkHF, Load: HF},
	{Name: "custom", Path: PathRequired, Flags: []string{"custom-output-len"}, NumPromptsAll: true,
		OutputLen: "custom-output-len", Check: checkCustom, Conversations: traceConversations, Load: Custom},
	{Name: "custom_audio", Path: PathRequired, NeedsTokenizer: true, Flags: []string{"custom-output-len"}, NumPromptsAll: true,
		OutputLen: "custom-output-len", Check: checkCustom, Load: CustomAudio},
	{Name: "custom_image", Path: PathRequired, Flags: []string{"custom-ensure-client-side-data"}, NumPromptsAll: true, Load: CustomImage},
	{Name: "custom_mm", Path: PathRequired, NumPromptsAll: true, Load: CustomMM},
	{Name: "prefix_repetition", Path: PathForbidden, NeedsTokenizer: true, NeedsVocabulary: true, RealignToServer: true,
		Flags: []string{"prefix-repetition-prefix-len", "prefix-repetition-suffix-len",
			"prefix-repetition-num-prefixes", "prefix-repetition-output-len"},
		OutputLen: "prefix-repetition-output-len", Check: checkPrefixRepetition, Load: PrefixRepetition},
	{Name: "spec_bench", Path: PathRequired, Flags: []string{"spec-bench-output-len", "spec-bench-category"},
		NumPromptsAll: true, OutputLen: "spec-bench-output-len", Check: checkSpecBench, Load: SpecBench},
	{Name: "speed_bench", Path: PathRequired, Flags: []string{"speed-bench-dataset-subset", "speed-bench-output-len",
		"speed-bench-category"}, NumPromptsAll: true, Check: checkSpeedBench, Load: SpeedBench},
	{Name: "timed_trace", Path: PathRequired, NeedsTokenizer: true, NeedsVocabulary: true, IgnoreEOS: IgnoreEOSAlways,
		Flags: []string{"timed-trace-chunk-hash-size",
			"timed-trace-sec-multiplier", "timed-trace-label-timestamp", "timed-trace-label-input-length",
			"timed-trace-label-output-length", "timed-trace-label-hash-ids", "self-timed", "no-self-timed"},
		Check: checkTimedTrace, CheckElsewhere: checkSelfTimedElsewhere, Load: TimedTrace},
}

// Specs returns every dataset vLLM accepts, supported or not, in vLLM's
// order.
func Specs() []Spec { return slices.Clone(specs) }

// Names lists every --dataset-name choice vLLM accepts, in its order.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// Supported lists the datasets gobench can build, for messages.
func Supported() []string {
	var names []string
	for _, s := range specs {
		if s.Supported() {
			names = append(names, s.Name)
		}
	}
	return names
}

// Lookup returns the Spec of a --dataset-name, supported or not; a name
// vLLM does not know is vLLM's "Unknown dataset" error.
func Lookup(name string) (*Spec, error) {
	for i := range specs {
		if specs[i].Name == name {
			return &specs[i], nil
		}
	}
	return nil, fmt.Errorf("Unknown dataset: %s", name)
}

// FlagOwner returns the dataset a command-line flag belongs to, if any.
func FlagOwner(flag string) (*Spec, bool) {
	for i := range specs {
		if slices.Contains(specs[i].Flags, flag) {
			return &specs[i], true
		}
	}
	return nil, false
}

// notSupported is the error for a dataset gobench does not have yet.
func notSupported(name string) error {
	return fmt.Errorf("--dataset-name %s: %w (supported: %s)", name, exitcode.ErrNotSupported, strings.Join(Supported(), ", "))
}
