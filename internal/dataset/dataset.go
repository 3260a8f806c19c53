// Package dataset builds the list of requests a run sends, as vLLM's
// benchmark datasets do (vllm/benchmarks/datasets/datasets.py, §3 of the
// reference). Given the same tokenizer and seed, the prompts, their lengths,
// their order and their request ids equal vLLM's: the random dataset draws
// from a port of NumPy's default_rng (package numpyrand) and the file
// datasets shuffle and oversample with a port of CPython's random (package
// pyrandom).
//
// Supported now: random, custom (JSONL) and sharegpt. vLLM's other dataset
// names are accepted by the command line and refused here with
// ErrNotSupported.
package dataset

import (
	"errors"
	"fmt"
	"io"

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
}

// Names lists every --dataset-name choice vLLM accepts.
var Names = []string{
	"sharegpt", "burstgpt", "sonnet", "random", "random-mm", "random-rerank", "hf",
	"custom", "custom_audio", "custom_image", "custom_mm", "prefix_repetition",
	"spec_bench", "speed_bench", "timed_trace",
}

// ErrNotSupported marks a dataset vLLM has and gobench does not yet.
var ErrNotSupported = errors.New("not supported yet")

// Options are the dataset flags (§1.3), after vLLM's mapping of --input-len
// and --output-len onto the dataset-specific flags.
type Options struct {
	Name            string
	Path            string
	NumPrompts      int
	Seed            int64
	RequestIDPrefix string
	NoOversample    bool
	DisableShuffle  bool
	// SkipChatTemplate keeps custom prompts as they are instead of applying
	// the tokenizer's chat template.
	SkipChatTemplate bool

	RandomInputLen   int
	RandomOutputLen  int
	RandomPrefixLen  int
	RandomRangeRatio string
	RandomBatchSize  int

	// CustomOutputLen is --custom-output-len; -1 takes each row's
	// output_tokens.
	CustomOutputLen int
	// SharegptOutputLen is --sharegpt-output-len; nil uses each
	// conversation's completion length.
	SharegptOutputLen *int
}

// Validate checks what can be checked before anything is loaded: that the
// dataset is supported and that --dataset-path is given or absent as it must
// be. The command line calls it so a wrong flag fails before the server is
// contacted.
func Validate(opts Options) error {
	switch opts.Name {
	case "random":
		if opts.Path != "" {
			return pathForbidden(opts)
		}
		return nil
	case "custom", "sharegpt":
		if opts.Path == "" {
			return fmt.Errorf("--dataset-name %s needs --dataset-path", opts.Name)
		}
		return nil
	case "random-mm", "random-rerank", "prefix_repetition":
		if opts.Path != "" {
			return pathForbidden(opts)
		}
	}
	for _, n := range Names {
		if n == opts.Name {
			return fmt.Errorf("--dataset-name %s: %w (supported: random, custom, sharegpt)", opts.Name, ErrNotSupported)
		}
	}
	return fmt.Errorf("Unknown dataset: %s", opts.Name)
}

// Load builds the samples. tok may be nil (--skip-tokenizer-init) for the
// datasets that allow it. Warnings vLLM logs go to warn.
func Load(opts Options, tok tokenizer.Tokenizer, warn io.Writer) ([]Sample, error) {
	if warn == nil {
		warn = io.Discard
	}
	if err := Validate(opts); err != nil {
		return nil, err
	}
	switch opts.Name {
	case "random":
		if tok == nil {
			return nil, errors.New("the random dataset needs a tokenizer: remove --skip-tokenizer-init")
		}
		return Random(opts, tok, warn)
	case "custom":
		return Custom(opts, tok, warn)
	default: // "sharegpt", the only other one Validate lets through
		if tok == nil {
			return nil, errors.New("the sharegpt dataset needs a tokenizer: remove --skip-tokenizer-init")
		}
		return ShareGPT(opts, tok, warn)
	}
}

// pathForbidden is vLLM's message for a synthetic dataset given a file.
func pathForbidden(opts Options) error {
	return fmt.Errorf("Cannot use '%s' dataset with --dataset-path. Please specify the appropriate --dataset-name (e.g., 'sharegpt', 'custom', 'sonnet') for your dataset file: %s", opts.Name, opts.Path)
}

// oversample pads samples to n by drawing copies with CPython's
// random.choice after random.seed(seed), as vLLM's
// maybe_oversample_requests does; copies get ids continuing from the
// original count. It then rejects duplicate ids.
func oversample(samples []Sample, opts Options, warn io.Writer) ([]Sample, error) {
	if opts.NoOversample {
		fmt.Fprintf(warn, "Skipping oversampling. Total samples: %d.\n", len(samples))
		return samples, nil
	}
	if len(samples) < opts.NumPrompts {
		if len(samples) == 0 {
			return nil, errors.New("no samples to oversample from: the dataset produced no valid request")
		}
		rng := pyrandom.New(opts.Seed)
		orig := len(samples)
		for i := range opts.NumPrompts - orig {
			s := samples[rng.Choice(orig)]
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

// shuffle reproduces random.seed(seed); random.shuffle(list) unless
// disabled.
func shuffle[T any](items []T, opts Options) {
	if opts.DisableShuffle {
		return
	}
	pyrandom.New(opts.Seed).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
}
