package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/readlimit"
)

// maxFileBytes bounds each file of a tokenizer, so that a path naming a
// device or a pipe that never ends (--tokenizer /dev/zero) fails instead of
// exhausting memory. The largest tokenizer.json files (256k-token
// vocabularies) are about 35 MB.
const maxFileBytes = 256 << 20

// Load reads a Hugging Face tokenizer. path is a tokenizer.json file or a
// folder that contains one. tokenizer_config.json and special_tokens_map.json
// next to it are read when present, because transformers takes
// clean_up_tokenization_spaces and the special tokens from them.
//
// Byte-level BPE (GPT-2, Llama-3, Qwen2/3, GPT-4o style), SentencePiece-style
// BPE (Llama-2, Mistral, Gemma) and WordPiece (BERT) are supported; other
// kinds fail with an *UnsupportedError. The returned Tokenizer's Name is
// path as given.
func Load(path string) (Tokenizer, error) { return LoadNamed(path, path) }

// LoadNamed is Load with the Tokenizer's Name set to name, for a tokenizer
// found through a model id (a cache snapshot named by the id).
func LoadNamed(path, name string) (Tokenizer, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	} else if st.IsDir() {
		file = filepath.Join(path, "tokenizer.json")
	}
	// Read whole and let go of once built: every string the tokenizer
	// keeps is a copy (the parsers' arenas, encoding/json).
	data, err := readlimit.JSONObject(file, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	configs, chat, err := readConfigs(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	t, err := build(name, namedJSON{file: file, data: data}, configs, chat)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// readConfigs reads the files beside tokenizer.json in dir that are there:
// tokenizer_config.json and special_tokens_map.json, in that order, and
// chat_template.jinja (nil when absent).
func readConfigs(dir string) (configs []namedJSON, chat *namedJSON, err error) {
	for _, name := range []string{"tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja"} {
		p := filepath.Join(dir, name)
		readConfig := readlimit.JSONObject
		if name == "chat_template.jinja" {
			readConfig = readlimit.File
		}
		b, err := readConfig(p, maxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("tokenizer: %w", err)
		}
		if name == "chat_template.jinja" {
			chat = &namedJSON{file: p, data: b}
		} else {
			configs = append(configs, namedJSON{file: p, data: b})
		}
	}
	return configs, chat, nil
}

// namedJSON is the content of a JSON file and its name for error messages.
type namedJSON struct {
	file string
	data []byte
}

// build makes a tokenizer from tokenizer.json and the optional config files
// (tokenizer_config.json, then special_tokens_map.json, whose values win as
// in transformers' from_pretrained). chat is chat_template.jinja, which
// transformers prefers to the config's chat_template; nil if absent.
func build(name string, tok namedJSON, configs []namedJSON, chat *namedJSON) (*hfTokenizer, error) {
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
	if err := t.applyBertConfig(&cfg, vocab); err != nil {
		return nil, located(configs[0].file, err)
	}
	if err := t.applyChatTemplate(&cfg, configs, chat); err != nil {
		return nil, err
	}
	// normalizerJSON points into tokenizer.json's bytes (11 MB for
	// Qwen3), which it would keep alive; only the config step above
	// needed it.
	t.normalizerJSON = nil
	return t, nil
}

// applyChatTemplate compiles the chat template, from chat_template.jinja
// or else tokenizer_config.json, naming the file it came from on error.
func (t *hfTokenizer) applyChatTemplate(cfg *configJSON, configs []namedJSON, chat *namedJSON) error {
	src, file := "", ""
	if chat != nil {
		src, file = string(chat.data), chat.file
	} else {
		var err error
		if src, err = chatTemplateSource(cfg.ChatTemplate); err != nil {
			return located(configs[0].file, fieldError("chat_template", err))
		}
		if len(configs) > 0 {
			file = configs[0].file
		}
	}
	if src == "" {
		return nil
	}
	c, err := newChatTemplate(src, cfg)
	if err != nil {
		return fmt.Errorf("tokenizer: %s: chat template: %w", file, err)
	}
	t.chat = c
	return nil
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

// assemble parses tokenizer.json and assembles the pipeline. It also
// returns model.vocab, which the config step needs to resolve token names.
// model.vocab is parsed on its own goroutine from when the scan of the file
// has passed it, beside the scan's parse of model.merges (see modelScan);
// no return leaves a parse running.
func assemble(data []byte) (*hfTokenizer, *vocabulary, error) {
	vocabs := newEarlyParse(parseVocab)
	defer vocabs.wait()
	scan := modelScan{vocab: vocabs.start}
	f, err := decodeFile(data, &scan)
	if err != nil {
		return nil, nil, err
	}
	kind, err := f.modelKind()
	if err != nil {
		return nil, nil, err
	}
	t, byteLevel, err := newPipeline(f, kind)
	if err != nil {
		return nil, nil, err
	}
	merges := scan.merges.of(f.Model.Merges)
	if merges == nil && kind == "BPE" && !isNull(f.Model.Merges) {
		// Not a list of merges: parseMerges says why, beside model.vocab's parse.
		merges = inBackground(func() ([][2]string, error) { return parseMerges(f.Model.Merges) })
		defer func() { _, _ = merges() }()
	}
	vocab, err := vocabs.result(f.Model.Vocab)
	if err != nil {
		return nil, nil, fieldError("model.vocab", err)
	}
	t.vocabSize = vocab.len()
	if err := t.addModel(f, kind, byteLevel, vocab, merges); err != nil {
		return nil, nil, err
	}
	t.normalizerJSON, t.addedJSON = f.Normalizer, f.AddedTokens
	return t, vocab, nil
}

// modelKind checks the file's version and its model, and names the
// model's type: BPE or WordPiece.
func (f *fileJSON) modelKind() (string, error) {
	if f.Version != "" && f.Version != "1.0" {
		return "", fieldError("version", fmt.Errorf("unknown tokenizer version %q (want \"1.0\")", f.Version))
	}
	m := &f.Model
	kind := m.kind()
	if kind != "BPE" && kind != "WordPiece" {
		return "", unsupportedf("model.type", "%s", kind)
	}
	if m.Dropout != nil && *m.Dropout > 0 {
		return "", unsupportedf("model.dropout", "BPE with dropout %g (random segmentation)", *m.Dropout)
	}
	return kind, nil
}

// newPipeline builds the stages around a model of kind: normalizer,
// pre-tokenizer, post-processor and decoder. byteLevel: the pre-tokenizer
// maps bytes to byte-level characters.
func newPipeline(f *fileJSON, kind string) (t *hfTokenizer, byteLevel bool, err error) {
	pre, byteLevel, err := buildPreTokenizer(f.PreTokenizer, "pre_tokenizer")
	if err != nil {
		return nil, false, err
	}
	if byteLevel && kind != "BPE" {
		return nil, false, unsupportedf("pre_tokenizer", "%s with a ByteLevel pre-tokenizer", kind)
	}
	decKind, steps, err := buildDecoder(f.Decoder, "decoder")
	if err != nil {
		return nil, false, err
	}
	normalize, err := buildNormalizer(f.Normalizer, "normalizer")
	if err != nil {
		return nil, false, err
	}
	post, err := buildPostProcessor(f.PostProcessor, "post_processor")
	if err != nil {
		return nil, false, err
	}
	return &hfTokenizer{normalize: normalize, nfc: nfcOnly(f.Normalizer), pre: pre, post: post, decoder: decKind,
		decodeSteps: steps, rt: new(roundTripTables)}, byteLevel, nil
}

// addModel adds the added tokens, the decode table and the model of kind
// to t. The added tokens and the decode table need only the vocabulary,
// so they are made before the model: the table (a walk of the whole
// vocabulary, about a tenth of Qwen3's load) on its own goroutine, beside
// the wait for model.merges (merges, nil for a WordPiece model) and the
// merge table's build.
func (t *hfTokenizer) addModel(f *fileJSON, kind string, byteLevel bool, vocab *vocabulary, merges func() ([][2]string, error)) error {
	byID, err := t.addTokens(f.AddedTokens, vocab)
	if err != nil {
		return err
	}
	decodeTable := make(chan struct{})
	go func() {
		defer close(decodeTable)
		t.buildDecodeTable(vocab, byID)
	}()
	defer func() { <-decodeTable }()
	m := &f.Model
	if kind == "WordPiece" {
		t.kind = KindWordPiece
		t.model, err = newWordPieceModel(m, vocab)
		return err
	}
	if isNull(m.Merges) {
		return fieldError("model.merges", errors.New("missing"))
	}
	pairs, err := merges()
	if err != nil {
		return fieldError("model.merges", err)
	}
	t.kind = KindByteLevelBPE
	if !byteLevel {
		t.kind = KindSentencePieceBPE
	}
	t.model, err = newBPEModel(m, vocab, pairs, !byteLevel)
	return err
}

// parseVocab decodes model.vocab, a JSON object from token to id.
func parseVocab(raw []byte) (*vocabulary, error) {
	if isNull(raw) {
		return nil, errors.New("missing")
	}
	vocab, err := fastVocab(raw)
	if re := (*idRangeError)(nil); errors.As(err, &re) {
		return nil, re
	}
	if err != nil {
		return nil, fmt.Errorf("want an object from token to id: %w", err)
	}
	return vocab, nil
}
