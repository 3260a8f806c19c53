// Package tokenizer turns text into token ids and back, with the semantics of
// the Hugging Face tokenizers that vllm bench serve calls: token counts drive
// the random dataset, prompt lengths, the output-token fallback and every
// token throughput, so they must be exact.
//
// # What is supported
//
// Load reads a Hugging Face tokenizer.json (plus tokenizer_config.json,
// special_tokens_map.json and chat_template.jinja when they sit next to it)
// of three kinds:
//   - byte-level BPE: GPT-2, Llama-3, Qwen2/Qwen3, GPT-4o and gobench's own
//     Builtin (Split and ByteLevel pre-tokenizers, ByteLevel decoder);
//   - SentencePiece-style BPE: Llama-2, Mistral, Gemma, with byte_fallback,
//     the Metaspace pre-tokenizer or the older Prepend/Replace normalizer, and
//     the Replace/ByteFallback/Fuse/Strip/Metaspace decoders (charbpe.go);
//   - WordPiece: BERT and the embedding and rerank models built on it, with
//     BertNormalizer, BertPreTokenizer, Whitespace(Split) and the WordPiece
//     decoder (wordpiece.go, bert.go).
//
// All of them take the model's vocabulary and merges with their real ranks
// (both merge formats), the added tokens with their
// lstrip/rstrip/single_word/normalized flags, the
// NFC/NFD/NFKC/NFKD/Lowercase/Strip/Replace/Prepend/BertNormalizer
// normalizers, and the TemplateProcessing/Roberta/Bert/ByteLevel
// post-processors. Unigram models and unknown pipeline stages are refused
// with an *UnsupportedError.
//
// Tokenizers may also implement the optional interfaces of optional.go:
// ChatTemplater renders the chat template of tokenizer_config.json or
// chat_template.jinja as transformers' apply_chat_template does (chat.go,
// with github.com/ardanlabs/jinja and Jinja2's whitespace rules applied
// first, jinjaws.go); Fallible reports failures of tokenizers that can fail
// (the server's, in package hub, which also finds tokenizers by model id).
//
// Encode and Decode reproduce Hugging Face tokenizers 0.22 (Rust) plus the
// transformers (4.x) layer on top of it: clean_up_tokenization_spaces and
// all_special_ids come from tokenizer_config.json, tokenizer_class
// LlamaTokenizerFast rebuilds the BOS/EOS template from add_bos_token and
// add_eos_token, BertTokenizerFast rebuilds the BertNormalizer from
// do_lower_case, strip_accents and tokenize_chinese_chars, and
// truncation/padding in tokenizer.json are ignored as transformers ignores
// them for a plain call.
// The tests compare ids and text exactly with golden files written by the
// Rust library itself (testdata/golden, tools/tokenizer-golden): Qwen3,
// Llama-3, Mistral (both pre-tokenizer variants) and BERT on 54 tricky texts
// and 40 random-id round trips each, hand-made tokenizers on 28 and 10; and
// chat templates with golden renders by Jinja2 in transformers' settings.
//
// Ids that name no token (negative, past the vocabulary, or holes in it) are
// skipped by Decode, as Hugging Face skips them; Decode never fails or
// panics. Invalid UTF-8 given to Encode is first replaced by U+FFFD per
// maximal invalid subpart, as Python's errors="replace" does.
//
// # Why not tiktoken-go
//
// github.com/pkoukk/tiktoken-go's CoreBPE is the obvious starting point, but
// it does not do the job exactly, so this package has its
// own BPE core:
//   - it ranks a pair by the id of the merged token, which equals Hugging
//     Face's merge order only if merge order is monotonic in token ids. That
//     holds for the Qwen3 and Llama-3 files but not in general (a merge list
//     may make one token twice, or number tokens freely). This package uses
//     the real merge ranks with Hugging Face's priority-queue algorithm,
//     stale-entry check included, so it needs no such assumption and no
//     load-time check of it (testdata/unit/basic.json numbers its merged
//     tokens in reverse merge order and still matches Hugging Face);
//   - it shortcuts a whole pre-token found in the vocabulary, which Hugging
//     Face only does with ignore_merges (Llama-3) and not for Qwen;
//   - it finds added tokens with a regex alternation built in map order, so
//     when one added token is a prefix of another the result is not the
//     leftmost-longest match and changes between runs; it has no
//     lstrip/rstrip/single_word/normalized;
//   - it rescans the text per special token and runs an O(n²) merge loop
//     without a cache, and it needs regexp2 for the split pattern, which
//     alone costs more than the BPE.
//
// The split patterns of the common tokenizers are therefore matched by hand
// (gptsplit.go, checked against regexp2 by FuzzSplitters and against
// Hugging Face by the golden files); other patterns fall back to regexp2.
//
// Everything is immutable after loading except a bounded cache of merged
// words, which is safe for concurrent use: a Tokenizer may be shared by any
// number of goroutines.
package tokenizer

// Tokenizer is what gobench needs of a tokenizer. Method names follow the
// Hugging Face calls that vLLM's benchmark makes. Implementations are safe
// for concurrent use.
type Tokenizer interface {
	// Name identifies the tokenizer (a path or a built-in name); it is saved
	// as tokenizer_id in result files.
	Name() string
	// Encode returns the token ids of text. With addSpecialTokens it is
	// HF's tokenizer(text).input_ids (the post-processor adds BOS/EOS as the
	// tokenizer.json says); without, encode(text, add_special_tokens=False).
	// Added tokens that occur in text are always recognised.
	Encode(text string, addSpecialTokens bool) []int
	// Decode is HF's decode(ids) with skip_special_tokens=False: special
	// tokens are kept, invalid UTF-8 becomes U+FFFD per maximal invalid
	// subpart, and clean_up_tokenization_spaces applies when the tokenizer's
	// config asks for it. Ids that name no token are skipped.
	Decode(ids []int) string
	// VocabSize is the base vocabulary size, without added tokens (HF's
	// tokenizer.vocab_size).
	VocabSize() int
	// AllSpecialIDs lists the ids of the special tokens (HF's
	// tokenizer.all_special_ids), in ascending order.
	AllSpecialIDs() []int
	// NumSpecialTokensToAdd is how many tokens Encode(text, true) adds to a
	// single sequence (HF's num_special_tokens_to_add()).
	NumSpecialTokensToAdd() int
}
