package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Load reads a Hugging Face tokenizer. path is a tokenizer.json file or a
// folder that contains one. tokenizer_config.json and special_tokens_map.json
// next to it are read when present, because transformers takes
// clean_up_tokenization_spaces and the special tokens from them.
//
// Only byte-level BPE tokenizers (GPT-2, Llama-3, Qwen2/3, GPT-4o style) are
// supported; other kinds fail with an *UnsupportedError. The returned
// Tokenizer's Name is path as given.
func Load(path string) (Tokenizer, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	} else if st.IsDir() {
		file = filepath.Join(path, "tokenizer.json")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	dir := filepath.Dir(file)
	var configs []namedJSON
	for _, name := range []string{"tokenizer_config.json", "special_tokens_map.json"} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("tokenizer: %w", err)
		}
		configs = append(configs, namedJSON{file: p, data: b})
	}
	t, err := build(path, namedJSON{file: file, data: data}, configs)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// namedJSON is the content of a JSON file and its name for error messages.
type namedJSON struct {
	file string
	data []byte
}

// build makes a tokenizer from tokenizer.json and the optional config files
// (tokenizer_config.json, then special_tokens_map.json, whose values win as
// in transformers' from_pretrained).
func build(name string, tok namedJSON, configs []namedJSON) (*hfTokenizer, error) {
	t, vocab, err := buildFromJSON(tok.data)
	if err != nil {
		return nil, located(tok.file, err)
	}
	t.name = name
	var cfg configJSON
	haveConfig := false
	for _, c := range configs {
		// Decoding into the same struct lets later files override fields.
		if err := json.Unmarshal(c.data, &cfg); err != nil {
			return nil, located(c.file, fmt.Errorf("invalid JSON: %w", err))
		}
		haveConfig = true
	}
	if err := t.applyConfig(&cfg, haveConfig, vocab); err != nil {
		// The fields of the config files are merged, so name them all.
		names := make([]string, len(configs))
		for i, c := range configs {
			names[i] = c.file
		}
		return nil, located(strings.Join(names, " + "), err)
	}
	return t, nil
}

// located puts the file name into err.
func located(file string, err error) error {
	var u *UnsupportedError
	if errors.As(err, &u) {
		u.File = file
		return u
	}
	return fmt.Errorf("tokenizer: %s: %w", file, err)
}

// buildFromJSON parses tokenizer.json and assembles the pipeline. It also
// returns model.vocab, which the config step needs to resolve token names.
func buildFromJSON(data []byte) (*hfTokenizer, map[string]int, error) {
	f, err := decodeFile(data)
	if err != nil {
		return nil, nil, err
	}
	if f.Version != "" && f.Version != "1.0" {
		return nil, nil, fieldError("version", fmt.Errorf("unknown tokenizer version %q (want \"1.0\")", f.Version))
	}
	m := &f.Model
	if k := m.kind(); k != "BPE" {
		return nil, nil, unsupportedf("model.type", "%s", k)
	}
	if isSentencePiece(m, f) {
		return nil, nil, unsupportedf("pre_tokenizer", "SentencePiece-style BPE (Metaspace/byte_fallback)")
	}
	if m.Dropout != nil && *m.Dropout > 0 {
		return nil, nil, unsupportedf("model.dropout", "BPE with dropout %g (random segmentation)", *m.Dropout)
	}
	pre, err := buildPreTokenizer(f.PreTokenizer, "pre_tokenizer")
	if err != nil {
		return nil, nil, err
	}
	if err := checkDecoder(f.Decoder, "decoder"); err != nil {
		return nil, nil, err
	}
	normalize, err := buildNormalizer(f.Normalizer, "normalizer")
	if err != nil {
		return nil, nil, err
	}
	post, err := buildPostProcessor(f.PostProcessor, "post_processor")
	if err != nil {
		return nil, nil, err
	}
	vocab, err := parseVocab(m.Vocab)
	if err != nil {
		return nil, nil, fieldError("model.vocab", err)
	}
	if isNull(m.Merges) {
		return nil, nil, fieldError("model.merges", errors.New("missing"))
	}
	merges, err := parseMerges(m.Merges)
	if err != nil {
		return nil, nil, fieldError("model.merges", err)
	}
	t := &hfTokenizer{normalize: normalize, pre: pre, post: post}
	if t.model, err = newBPEModel(m, vocab, merges); err != nil {
		return nil, nil, err
	}
	if err := t.addTokens(f.AddedTokens, vocab); err != nil {
		return nil, nil, err
	}
	return t, vocab, nil
}

// parseVocab decodes model.vocab, a JSON object from token to id.
func parseVocab(raw []byte) (map[string]int, error) {
	if isNull(raw) {
		return nil, errors.New("missing")
	}
	vocab, err := fastVocab(raw)
	if err != nil {
		return nil, fmt.Errorf("want an object from token to id: %w", err)
	}
	for tok, id := range vocab {
		if id < 0 || id > 1<<30 {
			return nil, fmt.Errorf("token %q has id %d, outside [0, 2^30]", tok, id)
		}
	}
	return vocab, nil
}

// isSentencePiece recognises Llama-2/Mistral style tokenizers: BPE on
// "▁"-marked words with byte_fallback, which needs its own model.
func isSentencePiece(m *modelJSON, f *fileJSON) bool {
	if m.ByteFallback {
		return true
	}
	for _, raw := range []json.RawMessage{f.PreTokenizer, f.Normalizer, f.Decoder} {
		if bytes.Contains(raw, []byte(`"Metaspace"`)) || bytes.Contains(raw, []byte(`"Prepend"`)) {
			return true
		}
	}
	return false
}

// checkDecoder accepts a ByteLevel decoder, alone or in a Sequence. Other
// decoders (Metaspace, WordPiece, ByteFallback...) belong to tokenizer kinds
// this package does not implement.
func checkDecoder(raw json.RawMessage, field string) error {
	if isNull(raw) {
		return unsupportedf(field, "BPE without decoder")
	}
	var t typedJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return fieldError(field, err)
	}
	switch t.Type {
	case "ByteLevel":
		return nil
	case "Sequence":
		var seq sequenceJSON
		if err := json.Unmarshal(raw, &seq); err != nil {
			return fieldError(field, err)
		}
		if len(seq.Decoders) == 0 {
			return unsupportedf(field, "empty decoder Sequence")
		}
		for i, r := range seq.Decoders {
			if err := checkDecoder(r, fmt.Sprintf("%s.decoders[%d]", field, i)); err != nil {
				return err
			}
		}
		return nil
	default:
		return unsupportedf(field, "BPE with %s decoder", t.Type)
	}
}
