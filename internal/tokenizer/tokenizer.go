// Package tokenizer turns text into token ids and back, with the semantics of
// the Hugging Face tokenizers that vllm bench serve calls (§3.0 of the
// reference): token counts drive the random dataset, prompt lengths, the
// output-token fallback and every token throughput, so they must be exact.
package tokenizer

// Tokenizer is what gobench needs of a tokenizer. Method names follow the
// Hugging Face calls that vLLM's benchmark makes.
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
	// config asks for it.
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
