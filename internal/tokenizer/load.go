package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
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
func LoadNamed(path, name string) (Tokenizer, error) { return loadNamed(path, name, readFile) }

// loadNamed is LoadNamed reading tokenizer.json with read, which returns
// its bytes and what releases them once the tokenizer is built.
func loadNamed(path, name string, read func(file string) ([]byte, func(), error)) (Tokenizer, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	} else if st.IsDir() {
		file = filepath.Join(path, "tokenizer.json")
	}
	data, release, err := read(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	// Nothing of the tokenizer points into data (see buildMapped).
	defer release()
	dir := filepath.Dir(file)
	var configs []namedJSON
	var chat *namedJSON
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
			return nil, fmt.Errorf("tokenizer: %w", err)
		}
		if name == "chat_template.jinja" {
			chat = &namedJSON{file: p, data: b}
		} else {
			configs = append(configs, namedJSON{file: p, data: b})
		}
	}
	t, err := buildMapped(name, namedJSON{file: file, data: data}, configs, chat)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// readFile reads tokenizer.json: mapped (readlimit.MapJSONObject) when
// the heap has less free memory than the file, as at start-up, where a
// copy would touch that much memory for the first time (about 35 ms of
// Qwen3's first load on the project's VM); read when it has, as when the
// tokenizer is loaded again after a run (letTokenizerGo in internal/run),
// where the copy reuses the run's freed memory but the mapping's pages
// would add to the process's resident set at its peak (Qwen3's serve
// peak: 116-117 MB read, 123-127 MB mapped, make bench-mem).
func readFile(file string) (data []byte, release func(), err error) {
	if st, err := os.Stat(file); err == nil && uint64(st.Size()) <= heapFree() {
		data, err := readlimit.JSONObject(file, maxFileBytes)
		return data, func() {}, err
	}
	return readlimit.MapJSONObject(file, maxFileBytes)
}

// heapFree is the heap's free memory that is still resident (a read of
// runtime/metrics, without stopping the world).
func heapFree() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// buildMapped is build for a tokenizer.json whose bytes are a mapping of
// the file (readlimit.MapJSONObject), which is unmapped once the
// tokenizer is built: every string the tokenizer keeps is a copy (the
// parsers copy into their arenas, encoding/json copies, and the one
// json.RawMessage into the file that the build needs, the normalizer's,
// is dropped at its end). Reading the mapping faults if another process
// truncates the file meanwhile; the goroutines that read it (this one,
// which also parses model.merges, and the one that parses model.vocab, or
// model.merges when the scan could not) turn such a fault into a panic
// (debug.SetPanicOnFault), which becomes this error rather than a crash.
func buildMapped(name string, tok namedJSON, configs []namedJSON, chat *namedJSON) (t *hfTokenizer, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	changed := func() error {
		return fmt.Errorf("tokenizer: %s: the file changed while it was read", tok.file)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(memoryFault); !ok {
				panic(r)
			}
			t, err = nil, changed()
		}
	}()
	t, err = build(name, tok, configs, chat)
	if fe := memoryFault(nil); errors.As(err, &fe) {
		return nil, changed()
	}
	return t, err
}

// memoryFault is the error of a fault that debug.SetPanicOnFault made a
// panic.
type memoryFault interface {
	error
	Addr() uintptr
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

// assemble parses tokenizer.json, which checkJSON validates, and assembles
// the pipeline. It also returns model.vocab, which the config step needs
// to resolve token names. model.vocab is parsed beside model.merges. The
// members it has parsed with the strict parsers of fastjson.go, which
// accept only valid JSON, are appended to strict.
func assemble(data []byte, strict *[][]byte) (*hfTokenizer, *vocabulary, error) {
	// model.vocab is parsed on its own goroutine from when the scan of the
	// file has passed it, beside the scan's parse of model.merges (see
	// modelScan). No return leaves it reading the file's bytes, which the
	// caller may unmap once this returns.
	vocabs := newEarlyParse(parseVocab)
	defer vocabs.wait()
	scan := modelScan{vocab: vocabs.start}
	f, err := decodeFile(data, &scan)
	if err != nil {
		return nil, nil, err
	}
	if f.Version != "" && f.Version != "1.0" {
		return nil, nil, fieldError("version", fmt.Errorf("unknown tokenizer version %q (want \"1.0\")", f.Version))
	}
	m := &f.Model
	kind := m.kind()
	if kind != "BPE" && kind != "WordPiece" {
		return nil, nil, unsupportedf("model.type", "%s", kind)
	}
	if m.Dropout != nil && *m.Dropout > 0 {
		return nil, nil, unsupportedf("model.dropout", "BPE with dropout %g (random segmentation)", *m.Dropout)
	}
	pre, byteLevel, err := buildPreTokenizer(f.PreTokenizer, "pre_tokenizer")
	if err != nil {
		return nil, nil, err
	}
	if byteLevel && kind != "BPE" {
		return nil, nil, unsupportedf("pre_tokenizer", "%s with a ByteLevel pre-tokenizer", kind)
	}
	decKind, steps, err := buildDecoder(f.Decoder, "decoder")
	if err != nil {
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
	// model.merges is parsed by the scan, unless it is not a list of
	// merges: then parseMerges says why, beside model.vocab's parse.
	merges := scan.merges.of(m.Merges)
	if merges == nil && kind == "BPE" && !isNull(m.Merges) {
		merges = inBackground(func() ([][2]string, error) {
			debug.SetPanicOnFault(true) // it reads the file's bytes (see buildMapped)
			return parseMerges(m.Merges)
		})
		// No return leaves it reading the file's bytes, which the caller
		// may unmap once this returns.
		defer func() { _, _ = merges() }()
	}
	vocab, err := vocabs.result(m.Vocab)
	if err != nil {
		return nil, nil, fieldError("model.vocab", err)
	}
	*strict = append(*strict, m.Vocab)
	t := &hfTokenizer{normalize: normalize, nfc: nfcOnly(f.Normalizer), pre: pre, post: post, vocabSize: vocab.len(), decoder: decKind, decodeSteps: steps,
		rt: new(roundTripTables)}
	// The added tokens and the decode table need only the vocabulary, so
	// they are made before the model: the table (a walk of the whole
	// vocabulary, about a tenth of Qwen3's load) on its own goroutine,
	// beside the wait for model.merges and the merge table's build, which
	// leave a core idle part of the time.
	byID, err := t.addTokens(f.AddedTokens, vocab)
	if err != nil {
		return nil, nil, err
	}
	decodeTable := make(chan struct{})
	go func() {
		defer close(decodeTable)
		t.buildDecodeTable(vocab, byID)
	}()
	// Every return below waits for it: the caller reads the table.
	defer func() { <-decodeTable }()
	switch kind {
	case "WordPiece":
		t.kind = KindWordPiece
		if t.model, err = newWordPieceModel(m, vocab); err != nil {
			return nil, nil, err
		}
	default:
		if isNull(m.Merges) {
			return nil, nil, fieldError("model.merges", errors.New("missing"))
		}
		merges, err := merges()
		if err != nil {
			return nil, nil, fieldError("model.merges", err)
		}
		*strict = append(*strict, m.Merges)
		t.kind = KindByteLevelBPE
		if !byteLevel {
			t.kind = KindSentencePieceBPE
		}
		if t.model, err = newBPEModel(m, vocab, merges, !byteLevel); err != nil {
			return nil, nil, err
		}
	}
	t.normalizerJSON, t.addedJSON = f.Normalizer, f.AddedTokens
	return t, vocab, nil
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
