package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// fileJSON is the part of a Hugging Face tokenizer.json that gobench reads.
// The pipeline stages stay raw until their "type" is known, because each
// type has its own fields. truncation and padding are ignored on purpose:
// transformers switches them off for a plain tokenizer(text) call.
type fileJSON struct {
	Version       string
	AddedTokens   []addedTokenJSON
	Normalizer    json.RawMessage
	PreTokenizer  json.RawMessage
	PostProcessor json.RawMessage
	Decoder       json.RawMessage
	Model         modelJSON
}

// addedTokenJSON is one entry of added_tokens. Normalized is a pointer
// because HF's default for a missing value is "not special".
type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

// typedJSON reads only the "type" tag of a pipeline stage.
type typedJSON struct {
	Type string `json:"type"`
}

// modelJSON is the "model" object of a BPE or WordPiece tokenizer; the type
// of other models is read for a clear refusal.
type modelJSON struct {
	Type                    string
	Dropout                 *float64
	UnkToken                *string
	ContinuingSubwordPrefix *string
	EndOfWordSuffix         *string
	FuseUnk                 bool
	ByteFallback            bool
	IgnoreMerges            bool
	Vocab                   []byte
	Merges                  []byte
	MaxInputChars           *int // WordPiece's max_input_chars_per_word
}

// checkJSON validates the whole of tokenizer.json with encoding/json, for
// its error when the load failed (buildFromJSON).
func checkJSON(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

// decodeFile reads tokenizer.json, validating it as JSON: its members
// are located without decoding, the small ones are decoded with
// encoding/json and model.vocab/model.merges are left to their parsers,
// which scan runs on the way when it can (see modelScan).
func decodeFile(data []byte, scan *modelScan) (*fileJSON, error) {
	top, mf, err := objectFieldsNested(data, "model", scan)
	if err != nil {
		return nil, fmt.Errorf("want a JSON object: %w", err)
	}
	f := &fileJSON{
		Normalizer:    top["normalizer"],
		PreTokenizer:  top["pre_tokenizer"],
		PostProcessor: top["post_processor"],
		Decoder:       top["decoder"],
	}
	if err := decodeMember(top, "version", "version", &f.Version); err != nil {
		return nil, err
	}
	if err := decodeMember(top, "added_tokens", "added_tokens", &f.AddedTokens); err != nil {
		return nil, err
	}
	raw, ok := top["model"]
	if !ok || isNull(raw) {
		return nil, fieldError("model", errors.New("missing"))
	}
	if mf == nil {
		if mf, err = objectFields(raw); err != nil {
			return nil, fieldError("model", fmt.Errorf("want an object: %w", err))
		}
	}
	m := &f.Model
	members := []struct {
		key string
		dst any
	}{
		{"type", &m.Type}, {"dropout", &m.Dropout}, {"unk_token", &m.UnkToken},
		{"continuing_subword_prefix", &m.ContinuingSubwordPrefix},
		{"end_of_word_suffix", &m.EndOfWordSuffix}, {"fuse_unk", &m.FuseUnk},
		{"byte_fallback", &m.ByteFallback}, {"ignore_merges", &m.IgnoreMerges},
	}
	for _, mem := range members {
		if err := decodeMember(mf, mem.key, "model."+mem.key, mem.dst); err != nil {
			return nil, err
		}
	}
	m.Vocab, m.Merges = mf["vocab"], mf["merges"]
	if err := decodeMember(mf, "max_input_chars_per_word", "model.max_input_chars_per_word", &m.MaxInputChars); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeMember decodes fields[key], if present and not null, into dst.
func decodeMember(fields map[string][]byte, key, path string, dst any) error {
	raw, ok := fields[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fieldError(path, err)
	}
	return nil
}

// isNull reports whether a raw member is missing or JSON null.
func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// kind names the model type, inferring it for old files without a "type"
// the way HF's untagged deserialisation does.
func (m *modelJSON) kind() string {
	switch {
	case m.Type != "":
		return m.Type
	case m.Merges != nil:
		return "BPE"
	case m.MaxInputChars != nil:
		return "WordPiece"
	case len(m.Vocab) > 0 && m.Vocab[0] == '[':
		return "Unigram"
	default:
		return "WordLevel"
	}
}

// parseMerges decodes model.merges in either format HF accepts: the current
// list of pairs [["a","b"], ...] or the legacy list of "a b" strings (where a
// "#version" line is skipped and every other line must split into exactly two
// parts on a space).
func parseMerges(raw []byte) ([][2]string, error) {
	pairs, lines, err := fastMerges(raw)
	if err != nil {
		return nil, err
	}
	return mergePairs(pairs, lines)
}

// mergePairs is parseMerges after the JSON, from what fastMerges returns:
// the pairs, or the legacy lines split.
func mergePairs(pairs [][2]string, lines []string) ([][2]string, error) {
	if lines == nil {
		return pairs, nil
	}
	pairs = make([][2]string, 0, len(lines))
	for _, line := range lines {
		if strings.HasPrefix(line, "#version") {
			continue
		}
		a, b, ok := strings.Cut(line, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("merge %d %q is not two tokens separated by one space", len(pairs)+1, line)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	return pairs, nil
}

// earlyParse is the parse of a member of tokenizer.json (model.vocab),
// started on its own goroutine as soon as the scan of the file has passed
// the member (see modelScan) rather than once the whole file is read.
type earlyParse[T any] struct {
	parse func(raw []byte) (T, error)
	raw   []byte            // the member being parsed
	get   func() (T, error) // its result; nil until started
}

// newEarlyParse returns an earlyParse of parse, not started.
func newEarlyParse[T any](parse func(raw []byte) (T, error)) *earlyParse[T] {
	return &earlyParse[T]{parse: parse}
}

// start starts the parse of raw, unless one has started: only a file
// with a duplicate key has the member twice, and when the one started is
// not the one that counts (the last), result parses that one itself.
func (p *earlyParse[T]) start(raw []byte) {
	if p.get != nil {
		return
	}
	p.raw = raw
	p.get = inBackground(func() (T, error) { return p.parse(raw) })
}

// result is parse(raw), waiting for the parse started when it is of raw
// (the same slice of the file: a later duplicate member wins).
func (p *earlyParse[T]) result(raw []byte) (T, error) {
	if p.get == nil || !sameSlice(p.raw, raw) {
		return p.parse(raw)
	}
	return p.get()
}

// wait waits for the parse, if it has started, so that none outlives the
// load.
func (p *earlyParse[T]) wait() {
	if p.get != nil {
		_, _ = p.get()
	}
}

// splitJSON is a Split pre-tokenizer.
type splitJSON struct {
	Pattern  patternJSON `json:"pattern"`
	Behavior string      `json:"behavior"`
	Invert   bool        `json:"invert"`
}

// patternJSON is HF's SplitPattern: {"Regex": "..."} or {"String": "..."}.
type patternJSON struct {
	Regex  *string `json:"Regex"`
	String *string `json:"String"`
}

// byteLevelJSON holds the ByteLevel options. UseRegex is a pointer because
// HF defaults it to true when absent.
type byteLevelJSON struct {
	AddPrefixSpace bool  `json:"add_prefix_space"`
	TrimOffsets    bool  `json:"trim_offsets"`
	UseRegex       *bool `json:"use_regex"`
}

// sequenceJSON is a Sequence of any stage kind; HF spells the list
// differently for each kind, so all spellings are accepted.
type sequenceJSON struct {
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	Normalizers   []json.RawMessage `json:"normalizers"`
	Processors    []json.RawMessage `json:"processors"`
	Decoders      []json.RawMessage `json:"decoders"`
}

// configJSON is the subset of tokenizer_config.json (and
// special_tokens_map.json) that changes what transformers returns. Special
// tokens are raw because they are either a string or an AddedToken object.
type configJSON struct {
	CleanUp    *bool           `json:"clean_up_tokenization_spaces"`
	BOS        json.RawMessage `json:"bos_token"`
	EOS        json.RawMessage `json:"eos_token"`
	UNK        json.RawMessage `json:"unk_token"`
	SEP        json.RawMessage `json:"sep_token"`
	PAD        json.RawMessage `json:"pad_token"`
	CLS        json.RawMessage `json:"cls_token"`
	Mask       json.RawMessage `json:"mask_token"`
	Additional json.RawMessage `json:"additional_special_tokens"`

	// transformers' LlamaTokenizerFast rebuilds the post-processor from
	// these two flags (see applyLlamaTemplate).
	Class  string `json:"tokenizer_class"`
	AddBOS *bool  `json:"add_bos_token"`
	AddEOS *bool  `json:"add_eos_token"`

	// ChatTemplate is a string or a list of named templates.
	ChatTemplate json.RawMessage `json:"chat_template"`

	// transformers' BertTokenizerFast rebuilds the normalizer from these
	// (see applyBertConfig); strip_accents is raw because null is a value.
	DoLowerCase          *bool           `json:"do_lower_case"`
	StripAccents         json.RawMessage `json:"strip_accents"`
	TokenizeChineseChars *bool           `json:"tokenize_chinese_chars"`
}

// specialTokenText decodes one special-token value of tokenizer_config.json:
// null, a string, or an object with a "content" field.
func specialTokenText(raw json.RawMessage) (string, bool, error) {
	if isNull(raw) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", false, fmt.Errorf("want a string or an object with \"content\", got %.60s", raw)
	}
	return *obj.Content, true, nil
}
