package dataset

import (
	"fmt"
	"slices"
)

// The Spec.Check of each dataset: the values of its own flags, with
// vLLM's messages where vLLM has one.

// tokenLen is the value of a flag that counts tokens.
type tokenLen struct {
	flag string
	v    int
	// each: -1 is allowed and takes each row's own length
	// (--custom-output-len).
	each bool
}

// optional is the tokenLen of a flag that defaults to None (nil): none
// to check when it is not given.
func optional(flag string, p *int) []tokenLen {
	if p == nil {
		return nil
	}
	return []tokenLen{{flag: flag, v: *p}}
}

// checkTokens checks token lengths: none is negative (vLLM would clamp a
// negative output length to 1, subtract a negative prefix from every
// prompt, and send a negative max_tokens), -1 excepted where it takes each
// row's own, and none is above MaxTokens.
func checkTokens(lens ...tokenLen) error {
	for _, l := range lens {
		switch {
		case l.v > MaxTokens:
			return fmt.Errorf("argument --%s: must be at most %d tokens (got %d)", l.flag, MaxTokens, l.v)
		case l.v >= 0, l.each && l.v == -1:
		case l.each:
			return fmt.Errorf("argument --%s: must be -1 (each row's output_tokens) or a number of tokens (got %d)", l.flag, l.v)
		default:
			return fmt.Errorf("argument --%s: must not be negative (got %d)", l.flag, l.v)
		}
	}
	return nil
}

// checkRangeRatio checks --random-range-ratio's parts, with vLLM's
// messages.
func checkRangeRatio(opts Options) error {
	if err := opts.RandomRangeRatio.Validate(); err != nil {
		return fmt.Errorf("argument --random-range-ratio: %w", err)
	}
	return nil
}

// tokenIDBackends are the backends that send Sample.PromptTokenIDs: the
// completions API takes a list of ids as its prompt.
var tokenIDBackends = []string{"openai", "vllm"}

// checkBatches checks --random-batch-size, --no-reranker and
// --prompt-token-ids: a batch holds at least one prompt (vLLM's
// range(0, n, batchsize) fails on 0), random-rerank without a reranker
// needs a query and a document from each batch and more than one request
// (vLLM asserts), and token ids (vLLM's Rust client) go one prompt per
// request to the completions backends only, from the random dataset
// (tokenIDs).
func checkBatches(opts Options, reranker, tokenIDs bool) error {
	switch b := opts.RandomBatchSize; {
	case b < 1:
		return fmt.Errorf("argument --random-batch-size: must be at least 1 (got %d)", b)
	case b > MaxSamples:
		return fmt.Errorf("argument --random-batch-size: must be at most %d (got %d)", MaxSamples, b)
	case reranker && opts.NoReranker && (b < 2 || opts.NumPrompts < 2):
		return fmt.Errorf("--no-reranker: each batch's first prompt is its query, so --random-batch-size (%d) and --num-prompts (%d) must both be at least 2", b, opts.NumPrompts)
	}
	switch {
	case !opts.PromptTokenIDs:
	case !tokenIDs:
		return fmt.Errorf("--prompt-token-ids: only the random dataset sends token ids (got --dataset-name %s)", opts.Name)
	case opts.RandomBatchSize > 1:
		return fmt.Errorf("--prompt-token-ids: a request carries the token ids of one prompt, so --random-batch-size must be 1 (got %d)", opts.RandomBatchSize)
	case opts.Backend != "" && !slices.Contains(tokenIDBackends, opts.Backend):
		return fmt.Errorf("--prompt-token-ids: --backend %s sends text; token ids go to the completions backends (openai, vllm) only", opts.Backend)
	}
	return nil
}

// checkRandom checks the random dataset's flags.
func checkRandom(opts Options) error {
	if err := checkRangeRatio(opts); err != nil {
		return err
	}
	if err := checkBatches(opts, false, true); err != nil {
		return err
	}
	return checkTokens(tokenLen{flag: "random-input-len", v: opts.RandomInputLen},
		tokenLen{flag: "random-output-len", v: opts.RandomOutputLen}, tokenLen{flag: "random-prefix-len", v: opts.RandomPrefixLen})
}

// checkRandomRerank checks the random-rerank dataset's flags.
func checkRandomRerank(opts Options) error {
	if err := checkRangeRatio(opts); err != nil {
		return err
	}
	if err := checkBatches(opts, true, false); err != nil {
		return err
	}
	return checkTokens(tokenLen{flag: "random-input-len", v: opts.RandomInputLen})
}

// checkShareGPT checks --sharegpt-output-len.
func checkShareGPT(opts Options) error {
	return checkTokens(optional("sharegpt-output-len", opts.SharegptOutputLen)...)
}

// checkHF checks --hf-output-len.
func checkHF(opts Options) error {
	return checkTokens(optional("hf-output-len", opts.HFOutputLen)...)
}

// checkSonnet checks the --sonnet-* lengths.
func checkSonnet(opts Options) error {
	return checkTokens(tokenLen{flag: "sonnet-input-len", v: opts.SonnetInputLen},
		tokenLen{flag: "sonnet-output-len", v: opts.SonnetOutputLen}, tokenLen{flag: "sonnet-prefix-len", v: opts.SonnetPrefixLen})
}

// checkCustom checks --custom-output-len (-1: each row's output_tokens).
func checkCustom(opts Options) error {
	return checkTokens(tokenLen{flag: "custom-output-len", v: opts.CustomOutputLen, each: true})
}

// checkSpecBench checks --spec-bench-output-len.
func checkSpecBench(opts Options) error {
	return checkTokens(tokenLen{flag: "spec-bench-output-len", v: opts.SpecBenchOutputLen})
}

// checkSpeedBench checks --speed-bench-output-len.
func checkSpeedBench(opts Options) error {
	return checkTokens(tokenLen{flag: "speed-bench-output-len", v: opts.SpeedBenchOutputLen})
}

// checkPrefixRepetition checks the --prefix-repetition-* flags: lengths,
// and at least one prefix (vLLM divides by the count, or makes no prefix).
func checkPrefixRepetition(opts Options) error {
	err := checkTokens(tokenLen{flag: "prefix-repetition-prefix-len", v: opts.PrefixRepetitionPrefixLen},
		tokenLen{flag: "prefix-repetition-suffix-len", v: opts.PrefixRepetitionSuffixLen},
		tokenLen{flag: "prefix-repetition-output-len", v: opts.PrefixRepetitionOutputLen})
	if n := opts.PrefixRepetitionNumPrefixes; err == nil && (n < 1 || n > MaxSamples) {
		return fmt.Errorf("argument --prefix-repetition-num-prefixes: must be between 1 and %d (got %d)", MaxSamples, n)
	}
	return err
}
